/**
 * Our `AcpHttpClient` (RFD profile, Streamable HTTP) against the official SDK's `AcpServer`
 * 2.4.0 with our test agent: the shared cases, plus what only HTTP has (409 on a session
 * stream somebody else holds).
 */
import { AcpHttpClient, RFD_PROFILE } from "../../../lib/acp-http/index.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../support/acp-sdk-server.js";
import { CASES, CWD } from "./cases.js";

describe("interop: @agentclientprotocol/sdk 2.4.0 AcpServer over Streamable HTTP", () => {
  const clients: AcpHttpClient[] = [];
  const servers: AcpSdkServer[] = [];

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.disconnect()));
    await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
  });

  for (const testCase of CASES.filter((c) => !c.transports || c.transports.includes("http"))) {
    const test = testCase.knownFailing?.includes("http") ? it.failing : it;
    test(testCase.name, async () => {
      const server = await startAcpSdkServer(testCase.server);
      servers.push(server);
      await testCase.run({
        server,
        transport: "http",
        connect: (extra = {}) => {
          const client = new AcpHttpClient({ baseUrl: server.baseUrl, ...RFD_PROFILE, closeTimeoutMs: 1000, ...extra });
          clients.push(client);
          return client;
        },
      });
    });
  }

  it("409 on a session stream held elsewhere fails only that session, until session/load", async () => {
    const server = await startAcpSdkServer();
    servers.push(server);
    const held: AbortController[] = [];
    // Whoever asks for a session stream first gets it; the AcpServer answers a second GET 409.
    const grabFirst: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      const session = headers.get(RFD_PROFILE.sessionStreams.header);
      if (init?.method === undefined || init.method === "GET") {
        if (session === "sdk-session-1" && held.length === 0) {
          const controller = new AbortController();
          held.push(controller);
          await fetch(input, { ...init, signal: controller.signal });
        }
      }
      return fetch(input, init);
    };
    const client = new AcpHttpClient({ baseUrl: server.baseUrl, ...RFD_PROFILE, fetch: grabFirst, closeTimeoutMs: 1000 });
    clients.push(client);
    await client.initialize();
    const first = await client.newSession({ cwd: CWD, mcpServers: [] });
    const second = await client.newSession({ cwd: CWD, mcpServers: [] });
    const text = (sessionId: string) => ({ sessionId, prompt: [{ type: "text" as const, text: "hi" }] });
    await expect(client.prompt(text(first.sessionId), { timeoutMs: 3000 })).rejects.toMatchObject({ status: 409 });
    expect((await client.prompt(text(second.sessionId), { timeoutMs: 5000 })).stopReason).toBe("end_turn");
    held[0]?.abort();
    await client.loadSession({ sessionId: first.sessionId, cwd: CWD, mcpServers: [] });
    expect((await client.prompt(text(first.sessionId), { timeoutMs: 5000 })).stopReason).toBe("end_turn");
  });
});
