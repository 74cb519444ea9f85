// A WebSocket that drops before the first `initialize` is answered: that call failed, so the client
// closes as `initialize-failed` (docs/protocol-client.md, "Lifecycle"), not as a lost connection.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import { AcpHttpClient, AcpNetworkError, type WebSocketConstructor } from "../../../lib/acp-http/index.js";

describe("a WebSocket dropped before the first initialize answer", () => {
  let server: Server | undefined;
  const clients: AcpHttpClient[] = [];

  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.disconnect()));
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it.each([false, true])("fails initialize and closes as initialize-failed (recover: %s)", async (recover) => {
    let received = 0;
    server = createServer((_, res) => res.writeHead(200).end());
    const wss = new WebSocketServer({ noServer: true });
    server.on("upgrade", (req, socket, head) => {
      wss.handleUpgrade(req, socket, head, (ws) =>
        ws.on("message", () => {
          received++;
          ws.terminate(); // the initialize arrived: drop the socket unanswered
        }),
      );
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const client = new AcpHttpClient({
      baseUrl: `http://127.0.0.1:${port}`,
      transport: "websocket",
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      closeTimeoutMs: 500,
      recover,
    });
    clients.push(client);
    const failure = await client.initialize({ protocolVersion: 1, clientCapabilities: {} }).catch((e: unknown) => e);
    expect(received).toBe(1);
    expect(failure).toBeInstanceOf(Error);
    const closed = await client.closed;
    expect(closed.reason).toBe("initialize-failed");
    expect(closed.error?.cause).toBeInstanceOf(AcpNetworkError);
  });
});
