import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer, type WebSocket as ServerSocket } from "ws";
import { MemoryCookieStore } from "../../../lib/acp-http/http-transport.js";
import { AcpNetworkError } from "../../../lib/acp-http/errors.js";
import { silentLogger } from "../../../lib/internal/logger.js";
import type { WebSocketConstructor } from "../../../lib/internal/web-socket.js";
import { WebSocketTransport, type WebSocketTransportOptions } from "../../../lib/acp-http/ws-transport.js";

interface Loopback {
  url: string;
  upgrades: IncomingMessage[];
  sockets: ServerSocket[];
  received: string[];
  stop(): Promise<void>;
}

async function loopback(): Promise<Loopback> {
  const upgrades: IncomingMessage[] = [];
  const sockets: ServerSocket[] = [];
  const received: string[] = [];
  const server: Server = createServer((_, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  wss.on("headers", (headers: string[]) => headers.push("Acp-Connection-Id: conn-101", "Set-Cookie: lb=b7; Path=/"));
  server.on("upgrade", (req, socket, head) => {
    upgrades.push(req);
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.push(ws);
      ws.on("message", (data) => received.push(String(data)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/acp`,
    upgrades,
    sockets,
    received,
    stop: async () => {
      for (const ws of sockets) ws.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const waitFor = async (check: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 3000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe("WebSocketTransport (against a ws loopback server)", () => {
  let server: Loopback;
  const transports: WebSocketTransport[] = [];
  const messages: string[] = [];
  const oversized: Array<[number, string]> = [];
  const lost: AcpNetworkError[] = [];

  const make = (extra: Partial<WebSocketTransportOptions> = {}): WebSocketTransport => {
    const transport = new WebSocketTransport({
      url: server.url,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      connectionIdHeader: "Acp-Connection-Id",
      headers: { "x-trace": "t1" },
      token: "secret-token",
      cookies: new MemoryCookieStore(),
      maxMessageBytes: 64,
      logger: silentLogger,
      sink: {
        frame: (frame) => messages.push(frame.data),
        readDone: () => undefined,
        tooLarge: (bytes, head) => oversized.push([bytes, head]),
      },
      ...extra,
    }, { lost: (cause) => void lost.push(cause), busy: false });
    transports.push(transport);
    return transport;
  };

  beforeEach(async () => {
    server = await loopback();
    messages.length = oversized.length = lost.length = 0;
  });
  afterEach(async () => {
    for (const transport of transports.splice(0)) transport.close();
    await server.stop();
  });

  it("opens on the first send, sends headers and the token on the upgrade, reads the id from the 101", async () => {
    const transport = make();
    expect(transport.open).toBe(false);
    await transport.send('{"jsonrpc":"2.0","id":1,"method":"initialize"}', "initialize");
    expect(transport.open).toBe(true);
    expect(transport.connectionId).toBe("conn-101");
    expect(server.upgrades[0]?.headers.authorization).toBe("Bearer secret-token");
    expect(server.upgrades[0]?.headers["x-trace"]).toBe("t1");
    await waitFor(() => server.received.length === 1, "the frame");
    expect(server.received).toEqual(['{"jsonrpc":"2.0","id":1,"method":"initialize"}']);
  });

  it("hands text frames on, ignores binary ones, reports (and drops) a frame over maxMessageBytes", async () => {
    const transport = make();
    await transport.send("{}", "initialize");
    const socket = server.sockets[0]!;
    socket.send('{"jsonrpc":"2.0","method":"a"}');
    socket.send(Buffer.from('{"jsonrpc":"2.0","method":"binary"}'), { binary: true });
    socket.send(`{"jsonrpc":"2.0","method":"${"x".repeat(100)}"}`);
    socket.send('{"jsonrpc":"2.0","method":"b"}');
    await waitFor(() => messages.length === 2, "two messages");
    expect(messages).toEqual(['{"jsonrpc":"2.0","method":"a"}', '{"jsonrpc":"2.0","method":"b"}']);
    expect(oversized).toEqual([[129, `{"jsonrpc":"2.0","method":"${"x".repeat(100)}"}`]]);
    expect(transport.open).toBe(true);
  });

  it("reports a socket the server closed; the cookie from the 101 goes on the next upgrade", async () => {
    const cookies = new MemoryCookieStore();
    const transport = make({ cookies });
    await transport.send("{}", "initialize");
    expect(server.upgrades[0]?.headers.cookie).toBeUndefined();
    server.sockets[0]!.close(1001, "going away");
    await waitFor(() => lost.length === 1, "lost");
    expect(lost[0]).toBeInstanceOf(AcpNetworkError);
    expect(lost[0]?.message).toContain("1001");
    expect(transport.open).toBe(false);
    await transport.send("{}", "initialize");
    expect(server.upgrades[1]?.headers.cookie).toBe("lb=b7");
  });

  it("close() is not a loss; sends afterwards fail with a typed error", async () => {
    const transport = make();
    await transport.send("{}", "initialize");
    transport.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lost).toEqual([]);
    await expect(transport.send("{}", "initialize")).rejects.toBeInstanceOf(AcpNetworkError);
  });

  it("a refused upgrade fails the send with AcpNetworkError, without the token in the message", async () => {
    await server.stop();
    const transport = make();
    const error = await Promise.resolve(transport.send("{}", "initialize")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AcpNetworkError);
    expect(String((error as Error).message)).not.toContain("secret-token");
    server = await loopback();
  });
});
