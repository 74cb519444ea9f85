/**
 * The RFD says Streamable HTTP MUST use HTTP/2. Node 20's global `fetch` speaks HTTP/1.1 only,
 * but the client takes any `fetch`: undici's own, with an `Agent({ allowH2: true })`, negotiates
 * h2 over TLS. The shared HTTP cases run through it against the official `AcpServer` served by
 * `node:http2`, and every request the server saw must have been HTTP/2.
 */
import { Agent, fetch as undiciFetch } from "undici";
import { AcpHttpClient, RFD_PROFILE } from "../../../lib/acp-http/index.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../support/acp-sdk-server.js";
import { CASES } from "./cases.js";

// The loopback certificate is self-signed: trust it for this agent only.
const dispatcher = new Agent({ allowH2: true, connect: { rejectUnauthorized: false } });
const fetchH2 = ((input: string | URL | Request, init?: RequestInit) =>
  undiciFetch(input as Parameters<typeof undiciFetch>[0], {
    ...(init as Parameters<typeof undiciFetch>[1]),
    dispatcher,
  })) as unknown as typeof fetch;

describe("interop: AcpServer over Streamable HTTP on HTTP/2 (TLS, undici's fetch)", () => {
  const clients: AcpHttpClient[] = [];
  const servers: AcpSdkServer[] = [];

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.disconnect()));
    await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
  });
  afterAll(() => dispatcher.close());

  for (const testCase of CASES.filter((c) => !c.transports || c.transports.includes("http"))) {
    const test = testCase.knownFailing?.includes("http") ? it.failing : it;
    test(testCase.name, async () => {
      const server = await startAcpSdkServer({ ...testCase.server, http2: true });
      servers.push(server);
      await testCase.run({
        server,
        transport: "http",
        connect: (extra = {}) => {
          const client = new AcpHttpClient({
            baseUrl: server.baseUrl,
            ...RFD_PROFILE,
            closeTimeoutMs: 1000,
            fetch: fetchH2,
            ...extra,
          });
          clients.push(client);
          return client;
        },
      });
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests.filter((request) => request.httpVersion !== "2.0")).toEqual([]);
    });
  }
});
