import WebSocket from "ws";
import { resolveWebSocket, WebSocketUnavailableError, type WebSocketConstructor } from "../../../lib/internal/web-socket.js";

describe("resolveWebSocket", () => {
  const global = globalThis as { WebSocket?: unknown };
  const saved = global.WebSocket;
  afterEach(() => {
    if (saved === undefined) delete global.WebSocket;
    else global.WebSocket = saved;
  });

  it("prefers the injected constructor and knows that ws takes headers", () => {
    const resolved = resolveWebSocket(WebSocket as unknown as WebSocketConstructor);
    expect(resolved.WebSocket).toBe(WebSocket);
    expect(resolved.supportsHeaders).toBe(true);
  });

  it("falls back to globalThis.WebSocket, which cannot send headers", () => {
    class StandardWebSocket {}
    global.WebSocket = StandardWebSocket;
    expect(resolveWebSocket()).toEqual({ WebSocket: StandardWebSocket, supportsHeaders: false });
  });

  it("without either, throws a typed error that names the ws package", () => {
    delete global.WebSocket;
    expect(() => resolveWebSocket()).toThrow(WebSocketUnavailableError);
    expect(() => resolveWebSocket()).toThrow(/"ws"/);
  });
});
