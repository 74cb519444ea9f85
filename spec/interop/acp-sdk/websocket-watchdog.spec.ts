/**
 * The WebSocket watchdog against the official SDK's `AcpServer` 2.4.0, through a TCP proxy that
 * black-holes the socket (no close frame, no FIN: the peer is simply gone). With `ws` the client
 * pings and misses the pongs; with a standard socket (no `ping()`, as in browsers) it counts
 * silence while requests wait. Either way the stall closes the socket, the recovery builds a new
 * connection and loads the session, and the request in flight fails with `AcpInterruptedError`.
 */
import { firstValueFrom } from "rxjs";
import WebSocket from "ws";
import {
  AcpHttpClient,
  AcpInterruptedError,
  RFD_PROFILE,
  type AcpRecovery,
  type ReconnectPolicy,
  type WebSocketConstructor,
  type WebSocketLike,
} from "../../../lib/acp-http/index.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../support/acp-sdk-server.js";
import { startBlackholeProxy, type BlackholeProxy } from "./blackhole-proxy.js";

/** The standard interface only, as a browser's socket has it: no `ping()`, no `on()`, no headers. */
class StandardWebSocket implements WebSocketLike {
  readonly #socket: WebSocket;
  constructor(url: string, protocols?: string | string[]) {
    this.#socket = new WebSocket(url, protocols);
  }
  get readyState(): number {
    return this.#socket.readyState;
  }
  get binaryType(): string {
    return this.#socket.binaryType;
  }
  set binaryType(value: string) {
    this.#socket.binaryType = value as "arraybuffer";
  }
  send(data: string): void {
    this.#socket.send(data);
  }
  close(code?: number, reason?: string): void {
    this.#socket.close(code, reason);
  }
  addEventListener(type: string, listener: (event: unknown) => void): void {
    this.#socket.addEventListener(type as "message", listener);
  }
  removeEventListener(type: string, listener: (event: unknown) => void): void {
    this.#socket.removeEventListener(type as "message", listener);
  }
}

const CWD = "/tmp";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The next recovery; a client closed without one (a failing case) must not crash the run. */
function nextRecovery(client: AcpHttpClient): Promise<AcpRecovery> {
  const next = firstValueFrom(client.recoveries$);
  next.catch(() => undefined);
  return next;
}

describe("interop: AcpServer over WebSocket, a black-holed socket", () => {
  let server: AcpSdkServer;
  let proxy: BlackholeProxy;
  let client: AcpHttpClient | undefined;

  const connect = (WebSocketClass: unknown, reconnect: ReconnectPolicy): AcpHttpClient =>
    (client = new AcpHttpClient({
      baseUrl: proxy.baseUrl,
      ...RFD_PROFILE,
      transport: "websocket",
      recover: true,
      WebSocket: WebSocketClass as WebSocketConstructor,
      closeTimeoutMs: 500,
      reconnect: { initialDelayMs: 20, ...reconnect },
    }));

  beforeEach(async () => {
    server = await startAcpSdkServer();
    proxy = await startBlackholeProxy(server.port);
  });
  afterEach(async () => {
    await client?.disconnect();
    client = undefined;
    await proxy.stop();
    await server.stop();
  });

  /** On an initialized client: a request waits, the socket turns into a black hole. */
  async function expectRecoveryOfInFlight(live: AcpHttpClient): Promise<void> {
    const { sessionId } = await live.newSession({ cwd: CWD, mcpServers: [] });
    const recovered = nextRecovery(live);
    const hung = live.request("_test/hang", {});
    await sleep(50);
    expect(proxy.swallow()).toBe(1);
    const started = Date.now();
    await expect(hung).rejects.toBeInstanceOf(AcpInterruptedError);
    expect(Date.now() - started).toBeLessThan(5000);
    const recovery: AcpRecovery = await recovered;
    expect(recovery.loaded).toEqual([sessionId]);
    const turn = await live.prompt({ sessionId, prompt: [{ type: "text", text: "after" }] }, { timeoutMs: 5000 });
    expect(turn.stopReason).toBe("end_turn");
    expect(live.state).toBe("open");
  }

  it("ws: missed pongs close the socket; the session is recovered, the request in flight interrupted", async () => {
    const live = connect(WebSocket, { webSocket: { heartbeatMs: 400 } });
    await live.initialize();
    await expectRecoveryOfInFlight(live);
  });

  it("ws: an idle black-holed socket is noticed too (pings go out with nothing in flight)", async () => {
    const live = connect(WebSocket, { webSocket: { heartbeatMs: 400 } });
    await live.initialize();
    const recovered = nextRecovery(live);
    proxy.swallow();
    await expect(recovered).resolves.toMatchObject({ loaded: [] });
    await expect(live.request("_test/ping", { n: 1 }, { timeoutMs: 3000 })).resolves.toEqual({ echoed: { n: 1 } });
  });

  it("standard socket: silence counts only while a request waits, then it is a stall", async () => {
    const live = connect(StandardWebSocket, { webSocket: { heartbeatMs: 100, idleTimeoutMs: 1000 } });
    const recoveries: AcpRecovery[] = [];
    live.recoveries$.subscribe((recovery) => recoveries.push(recovery));
    await live.initialize();
    await sleep(1800);
    expect(recoveries).toEqual([]);
    await expectRecoveryOfInFlight(live);
  });
});
