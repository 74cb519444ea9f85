/**
 * Our `AcpHttpClient` with `transport: "websocket"` (the `ws` constructor injected, as Node 20
 * needs) against the official SDK's `AcpServer` 2.4.0: the same cases as over HTTP.
 */
import WebSocket from "ws";
import { AcpHttpClient, RFD_PROFILE, type WebSocketConstructor } from "../../../lib/acp-http/index.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../support/acp-sdk-server.js";
import { CASES } from "./cases.js";

describe("interop: @agentclientprotocol/sdk 2.4.0 AcpServer over WebSocket", () => {
  const clients: AcpHttpClient[] = [];
  const servers: AcpSdkServer[] = [];

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.disconnect()));
    await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
  });

  for (const testCase of CASES.filter((c) => !c.transports || c.transports.includes("websocket"))) {
    const test = testCase.knownFailing?.includes("websocket") ? it.failing : it;
    test(testCase.name, async () => {
      const server = await startAcpSdkServer(testCase.server);
      servers.push(server);
      await testCase.run({
        server,
        transport: "websocket",
        connect: (extra = {}) => {
          const client = new AcpHttpClient({
            baseUrl: server.baseUrl,
            ...RFD_PROFILE,
            transport: "websocket",
            WebSocket: WebSocket as unknown as WebSocketConstructor,
            closeTimeoutMs: 1000,
            ...extra,
          });
          clients.push(client);
          return client;
        },
      });
    });
  }
});
