import WebSocket, { WebSocketServer } from "ws";
import type { AddressInfo } from "node:net";
import type { WebSocketLike } from "../../../lib/internal/web-socket.js";
import { normalizeWatchdogPolicy, SocketWatchdog } from "../../../lib/acp-http/ws-transport.js";

describe("normalizeWatchdogPolicy", () => {
  it("pings every 15 s by default, with no silence bound of its own", () => {
    expect(normalizeWatchdogPolicy()).toEqual({ heartbeatMs: 15_000, idleTimeoutMs: undefined });
  });

  it("0 turns the watchdog off; a negative value is refused at construction", () => {
    expect(normalizeWatchdogPolicy({ heartbeatMs: 0 }).heartbeatMs).toBeUndefined();
    expect(() => normalizeWatchdogPolicy({ idleTimeoutMs: -1 })).toThrow(TypeError);
    expect(() => normalizeWatchdogPolicy({ heartbeatMs: Number.NaN })).toThrow(/heartbeatMs/);
  });
});

describe("SocketWatchdog on a live ws socket", () => {
  let server: WebSocketServer;
  let socket: WebSocket;

  beforeEach(async () => {
    server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => server.once("listening", resolve));
    socket = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await new Promise((resolve) => socket.once("open", resolve));
  });
  afterEach(async () => {
    socket.terminate();
    await new Promise((resolve) => server.close(resolve));
  });

  it("a peer that answers pings never stalls, even with requests waiting", async () => {
    const stalls: number[] = [];
    const watchdog = SocketWatchdog.start(
      socket as unknown as WebSocketLike,
      { heartbeatMs: 20, idleTimeoutMs: 60 },
      () => true,
      (ms) => stalls.push(ms),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    watchdog?.stop();
    expect(watchdog).toBeDefined();
    expect(stalls).toEqual([]);
  });

  it("is off for a socket without ping() unless a silence bound is set", () => {
    const standard = { readyState: 1 } as unknown as WebSocketLike;
    expect(SocketWatchdog.start(standard, { heartbeatMs: 20, idleTimeoutMs: undefined }, () => true, () => {})).toBe(
      undefined,
    );
    const watchdog = SocketWatchdog.start(standard, { heartbeatMs: 20, idleTimeoutMs: 50 }, () => true, () => {});
    expect(watchdog).toBeDefined();
    watchdog?.stop();
  });
});
