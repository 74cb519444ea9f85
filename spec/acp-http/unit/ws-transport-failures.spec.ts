/**
 * WebSocketTransport when the socket misbehaves: a frame `ws` refuses, an upgrade never answered, a
 * close while opening, an upgrade refused with an HTTP status. Loopback fakes, because no real server
 * sends these faults on purpose: a raw TCP server that never answers the upgrade, and a `ws` server
 * that writes an invalid frame or answers the upgrade with 401.
 */
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import WebSocket, { WebSocketServer, type WebSocket as ServerSocket } from "ws";
import { MemoryCookieStore } from "../../../lib/acp-http/http-transport.js";
import { AcpHttpError, AcpNetworkError } from "../../../lib/acp-http/errors.js";
import { silentLogger } from "../../../lib/internal/logger.js";
import type { WebSocketConstructor } from "../../../lib/internal/web-socket.js";
import { WebSocketTransport, type WebSocketTransportOptions } from "../../../lib/acp-http/ws-transport.js";

const waitFor = async (check: () => boolean, what: string, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Accepts TCP and reads the upgrade request, never answers it; records when the client closed. */
async function silentServer(): Promise<{ url: string; held: Socket[]; ended: number; stop(): Promise<void> }> {
  const state = { held: [] as Socket[], ended: 0 };
  const server: TcpServer = createTcpServer((socket) => {
    state.held.push(socket);
    socket.resume(); // read the request, so the client's FIN is seen
    socket.on("close", () => state.ended++);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/acp`,
    held: state.held,
    get ended() {
      return state.ended;
    },
    stop: async () => {
      for (const socket of state.held) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A `ws` server whose upgrade handling the test chooses. */
async function wsServer(
  onUpgrade: (wss: WebSocketServer, ...args: Parameters<Parameters<Server["on"]>[1]>) => void,
): Promise<{ url: string; sockets: ServerSocket[]; upgrades: number; stop(): Promise<void> }> {
  const state = { sockets: [] as ServerSocket[], upgrades: 0 };
  const server = createHttpServer((_, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  wss.on("connection", (ws) => state.sockets.push(ws));
  server.on("upgrade", (...args: unknown[]) => {
    state.upgrades++;
    (onUpgrade as (...all: unknown[]) => void)(wss, ...args);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/acp`,
    sockets: state.sockets,
    get upgrades() {
      return state.upgrades;
    },
    stop: async () => {
      for (const ws of state.sockets) ws.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("WebSocketTransport when the socket fails", () => {
  const transports: WebSocketTransport[] = [];
  const stops: Array<() => Promise<void>> = [];
  const lost: AcpNetworkError[] = [];
  const frames: string[] = [];

  const make = (url: string, extra: Partial<WebSocketTransportOptions> = {}): WebSocketTransport => {
    const transport = new WebSocketTransport(
      {
        url,
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        connectionIdHeader: "Acp-Connection-Id",
        headers: undefined,
        token: undefined,
        cookies: new MemoryCookieStore(),
        maxMessageBytes: 1024,
        logger: silentLogger,
        sink: { frame: (frame) => void frames.push(frame.data), readDone: () => undefined, tooLarge: () => undefined },
        ...extra,
      },
      { lost: (cause) => void lost.push(cause), busy: false },
    );
    transports.push(transport);
    return transport;
  };

  beforeEach(() => {
    lost.length = frames.length = 0;
  });
  afterEach(async () => {
    for (const transport of transports.splice(0)) transport.close();
    for (const stop of stops.splice(0)) await stop();
  });

  it("a text frame that is not UTF-8 ends the socket as lost, with the reason, and the process lives on", async () => {
    const server = await wsServer((wss, req, socket, head) =>
      wss.handleUpgrade(req, socket as Socket, head as Buffer, (ws) => wss.emit("connection", ws, req)),
    );
    stops.push(server.stop);
    const transport = make(server.url);
    await transport.send("{}", "initialize");
    await waitFor(() => server.sockets.length === 1, "the server socket");
    server.sockets[0]!.send('{"jsonrpc":"2.0","method":"before"}');
    await waitFor(() => frames.length === 1, "the frame before the bad one");
    // A text frame (FIN, opcode 1) of two bytes that are not UTF-8, written past `ws`'s own checks.
    (server.sockets[0] as unknown as { _socket: Socket })._socket.write(Buffer.from([0x81, 0x02, 0xff, 0xfe]));
    await waitFor(() => lost.length === 1, "the loss");
    expect(lost[0]).toBeInstanceOf(AcpNetworkError);
    expect(lost[0]?.message).toMatch(/invalid UTF-8/i);
    expect(frames).toEqual(['{"jsonrpc":"2.0","method":"before"}']);
    expect(transport.open).toBe(false);
  });

  it("an upgrade never answered fails the send after the open timeout and closes its socket quietly", async () => {
    const server = await silentServer();
    stops.push(server.stop);
    const transport = make(server.url, { openTimeoutMs: 200 });
    const error = await Promise.resolve(transport.send("{}", "initialize")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AcpNetworkError);
    expect((error as Error).message).toContain("not open within 200 ms");
    // `ws` reports the aborted handshake as an error event after the close: it must find a listener.
    await waitFor(() => server.ended === 1, "the client to close its socket");
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost).toEqual([]);
  });

  it("close() while the upgrade is unanswered fails the send at once and closes the socket", async () => {
    const server = await silentServer();
    stops.push(server.stop);
    const transport = make(server.url);
    const sending = Promise.resolve(transport.send("{}", "initialize")).catch((caught: unknown) => caught);
    await waitFor(() => server.held.length === 1, "the upgrade request");
    const before = Date.now();
    transport.close();
    const error = await sending;
    expect(Date.now() - before).toBeLessThan(2000);
    expect(error).toBeInstanceOf(AcpNetworkError);
    await waitFor(() => server.ended === 1, "the client to close its socket");
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost).toEqual([]);
  });

  it("an upgrade refused with 401 fails the send with AcpHttpError, its status and problem", async () => {
    const server = await wsServer((_wss, _req, socket) => {
      const body = '{"title":"bad token","status":401}';
      (socket as Socket).end(
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/problem+json\r\n" +
          `content-length: ${body.length}\r\n\r\n${body}`,
      );
    });
    stops.push(server.stop);
    const transport = make(server.url, { token: "secret-token" });
    const error = await Promise.resolve(transport.send("{}", "initialize")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AcpHttpError);
    expect(error).toMatchObject({ status: 401, problem: { title: "bad token" } });
    expect((error as Error).message).not.toContain("secret-token");
    expect(transport.open).toBe(false);
  });
});
