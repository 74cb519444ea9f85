/**
 * AcpHttpClient over WebSocket where a send must not happen or a refusal must read as over HTTP: a
 * request whose signal is aborted before the send (against the official SDK's `AcpServer`), and an
 * upgrade refused with 401 (a loopback fake: `AcpServer` checks no credentials).
 */
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import WebSocket from "ws";
import {
  AcpHttpClient,
  AcpHttpError,
  RFD_PROFILE,
  type WebSocketConstructor,
} from "../../../lib/acp-http/index.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../support/acp-sdk-server.js";

const WS = WebSocket as unknown as WebSocketConstructor;

describe("AcpHttpClient over WebSocket: sends that must not go out, refusals", () => {
  const clients: AcpHttpClient[] = [];
  const stops: Array<() => Promise<void>> = [];

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.disconnect()));
    for (const stop of stops.splice(0)) await stop();
  });

  it.each(["http", "websocket"] as const)(
    "over %s a request whose signal is already aborted rejects and is never sent",
    async (transport) => {
      const server: AcpSdkServer = await startAcpSdkServer();
      stops.push(() => server.stop());
      const client = new AcpHttpClient({ ...RFD_PROFILE, baseUrl: server.baseUrl, transport, WebSocket: WS });
      clients.push(client);
      await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
      const before = server.log.sessions.size;
      const error = await client
        .newSession({ cwd: "/tmp", mcpServers: [] }, { signal: AbortSignal.abort() })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: "AbortError" });
      // The server handles a connection's messages in order: once this is answered, an earlier frame
      // would have created its session.
      await client.request("_test/ping", {});
      expect(server.log.sessions.size).toBe(before);
      await client.newSession({ cwd: "/tmp", mcpServers: [] });
      expect(server.log.sessions.size).toBe(before + 1);
    },
  );

  it.each(["http", "websocket"] as const)(
    "over %s a 401 is an AcpHttpError, the token function is asked once more, and the client closes unauthorized",
    async (transport) => {
      const body = '{"title":"bad token","status":401}';
      const server = createServer((_req, res) => {
        res.writeHead(401, { "content-type": "application/problem+json" }).end(body);
      });
      server.on("upgrade", (_req, socket: Socket) => {
        socket.end(
          "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/problem+json\r\n" +
            `content-length: ${body.length}\r\n\r\n${body}`,
        );
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      stops.push(async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });
      const { port } = server.address() as AddressInfo;
      let asked = 0;
      const client = new AcpHttpClient({
        baseUrl: `http://127.0.0.1:${port}`,
        transport,
        WebSocket: WS,
        token: () => {
          asked++;
          return "expired-token";
        },
      });
      clients.push(client);
      const error = await client.initialize({ protocolVersion: 1, clientCapabilities: {} }).catch((caught) => caught);
      expect(error).toBeInstanceOf(AcpHttpError);
      expect(error).toMatchObject({ status: 401, problem: { title: "bad token" } });
      expect(asked).toBe(2);
      expect((await client.closed).reason).toBe("unauthorized");
    },
  );
});
