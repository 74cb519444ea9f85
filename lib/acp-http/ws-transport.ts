// The WebSocket transport: one socket to the same endpoint, one JSON text frame per message, and a
// liveness watchdog for half-open sockets. Frames go to the same inbound as SSE frames.
import type { FrameSink } from "./response-order.js";
import { headersFrom, toHttpError, type AcpCookieStore } from "./http-transport.js";
import { AcpNetworkError, type AcpHttpError } from "./errors.js";
import { assertHeaders, mergeHeaders, resolveToken, type TokenSource } from "../internal/http.js";
import type { AcpLogger } from "../internal/logger.js";
import { oversize, ANSWER_HEAD_CHARS } from "./envelope.js";
import {
  resolveWebSocket,
  WEB_SOCKET_OPEN,
  type WebSocketConstructor,
  type WebSocketLike,
} from "../internal/web-socket.js";
import { normalizeTimeout } from "../internal/abort.js";
import type { WebSocketWatchdogPolicy } from "../internal/backoff.js";
import type { Sent, Transport } from "./outbox.js";
import { ACP_DEFAULTS } from "./defaults.js";

export interface WebSocketTransportOptions {
  /** `ws://` or `wss://` URL of the endpoint. */
  url: string;
  WebSocket: WebSocketConstructor | undefined;
  connectionIdHeader: string;
  headers: Record<string, string> | undefined;
  token: TokenSource | undefined;
  cookies: AcpCookieStore | undefined;
  maxMessageBytes: number;
  /** How long a socket may take to open before the send that opened it fails (default: `ACP_DEFAULTS`). */
  openTimeoutMs?: number;
  /** The liveness watchdog's settings (`reconnect.webSocket`); none without. */
  watchdog?: NormalizedWatchdogPolicy;
  logger: AcpLogger;
  /**
   * Where text frames go, each a frame of the `connection` stream and a read of its own; one over
   * `maxMessageBytes` is dropped and only its head (what answer it names) handed on.
   */
  sink: FrameSink;
}

/**
 * What the WebSocket tells the connection that owns it, besides frames (those go to the sink).
 * `Connection` implements it.
 */
export interface SocketOwner {
  /** The socket went away without `close()` being called (dropped, or found stalled); `cause` says how. */
  lost(cause: AcpNetworkError): void;
  /** Requests are waiting for answers (the watchdog counts silence only then, where it cannot ping). */
  readonly busy: boolean;
}

/** A frame carries no answer body: the answer comes back on the socket. */
const SENT: Sent = Object.freeze({ json: undefined });

/** A socket carries one stream, the connection's. */
const CONNECTION_STREAM = "connection";

/**
 * The WebSocket side of the transport: one socket per connection, opened by the first
 * send (which must be `initialize`), one JSON text frame per message both ways, binary
 * frames ignored. The connection id and cookies come from the 101 where the constructor
 * shows its headers (`ws` emits `upgrade`); standard constructors cannot send headers, so
 * there the browser's own cookie jar and no bearer header apply. A lost socket is reported,
 * never reopened here: on a server without replay the next socket is a new connection,
 * which only `initialize` can start (the caller's recovery does that). A socket the watchdog
 * finds stalled is dropped at once (a half-open one would never deliver its close event) and
 * reported lost the same way.
 */
export class WebSocketTransport implements Transport {
  /** A frame cannot be withdrawn once sent: calls need no signal of their own for it. */
  readonly abortable = false;
  readonly #options: WebSocketTransportOptions;
  readonly #owner: SocketOwner;
  #socket: WebSocketLike | undefined;
  #opening: Promise<WebSocketLike> | undefined;
  /** The socket `#opening` waits for: `reset()` and `close()` end it too, or it would open for no one. */
  #connecting: WebSocketLike | undefined;
  #connectionId: string | undefined;
  #watchdog: SocketWatchdog | undefined;
  #closed = false;

  constructor(options: WebSocketTransportOptions, owner: SocketOwner) {
    // The user's headers are read once, as the HTTP transport reads them.
    this.#options = options.headers ? { ...options, headers: { ...options.headers } } : options;
    this.#owner = owner;
    assertHeaders(options.headers);
  }

  get connectionId(): string | undefined {
    return this.#connectionId;
  }

  /** A socket is open (frames can arrive). */
  get open(): boolean {
    return this.#socket?.readyState === WEB_SOCKET_OPEN;
  }

  /** Frames come back on the socket: the connection is live while it is open. */
  get live(): boolean {
    return this.open;
  }

  /** A socket is open: the server knows this connection. */
  get bootstrapped(): boolean {
    return this.open;
  }

  /**
   * Sends one message: at once on an open socket (no promise: the hot path), else once a socket
   * has opened. A failed send throws (or rejects with) `AcpNetworkError`. No headers per message:
   * the upgrade carried them.
   */
  send(body: string, operation: string): Sent | Promise<Sent> {
    const socket = this.#socket;
    if (socket?.readyState === WEB_SOCKET_OPEN) {
      sendOn(socket, body, operation);
      return SENT;
    }
    return this.#connect(operation).then((opened) => {
      sendOn(opened, body, operation);
      return SENT;
    });
  }

  /** Drops the current socket (a new connection starts with the next send). */
  reset(): void {
    const socket = this.#socket;
    const connecting = this.#connecting;
    this.#detach();
    this.#opening = undefined;
    this.#connecting = undefined;
    this.#connectionId = undefined;
    if (socket) closeQuietly(socket, 1000);
    // Its `#opened` hears the close (or error) and fails the send that opened it, at once.
    if (connecting) closeQuietly(connecting, 1000);
  }

  /** Closes for good: later sends fail. */
  close(): void {
    this.#closed = true;
    this.reset();
  }

  #connect(operation: string): Promise<WebSocketLike> {
    if (this.#closed) return Promise.reject(new AcpNetworkError(operation, new Error("transport closed")));
    this.#opening ??= this.#openSocket(operation).finally(() => (this.#opening = undefined));
    return this.#opening;
  }

  async #openSocket(operation: string): Promise<WebSocketLike> {
    const { WebSocket, supportsHeaders } = resolveWebSocket(this.#options.WebSocket);
    const token = await resolveToken(this.#options.token);
    const headers = mergeHeaders({ user: this.#options.headers, token });
    this.#options.cookies?.apply(headers);
    if (!supportsHeaders && (token || [...headers.keys()].length > 0)) {
      this.#options.logger.warn("this WebSocket constructor cannot send headers; token, headers and cookies stay off");
    }
    // `ws` buffers a frame whole before handing it on, up to `maxPayload` (100 MiB by default): a
    // frame over the limit is refused early (the socket closes with 1009) once the limit is past
    // that default; under it, frames up to it are read, reported too large and dropped.
    const maxPayload = Math.max(this.#options.maxMessageBytes, WS_DEFAULT_MAX_PAYLOAD);
    const init = supportsHeaders ? { headers: Object.fromEntries(headers), maxPayload } : undefined;
    if (this.#closed) throw new AcpNetworkError(operation, new Error("transport closed"));
    let socket: WebSocketLike;
    try {
      socket = init ? new WebSocket(this.#options.url, [], init) : new WebSocket(this.#options.url);
    } catch (error) {
      throw new AcpNetworkError(operation, error);
    }
    // Lasting, before anything else: `ws` throws an `error` nobody listens to, which ends the process
    // (a frame it refuses, a handshake aborted after the open timeout or by `close()`). The close
    // event that follows every error tells the rest; the error only names why.
    const errors: unknown[] = [];
    socket.addEventListener("error", (event: { error?: unknown; message?: string }) => {
      if (errors.length === 0) errors.push(event.error ?? new Error(event.message ?? "WebSocket error"));
    });
    socket.binaryType = "arraybuffer";
    this.#connecting = socket;
    this.#watchUpgrade(socket);
    try {
      await this.#opened(socket, operation);
    } finally {
      if (this.#connecting === socket) this.#connecting = undefined;
    }
    if (this.#closed) {
      closeQuietly(socket, 1000);
      throw new AcpNetworkError(operation, new Error("transport closed"));
    }
    this.#socket = socket;
    this.#listen(socket, errors);
    return socket;
  }

  /** `ws` shows the 101 response: the connection id header and `Set-Cookie`. */
  #watchUpgrade(socket: WebSocketLike): void {
    const on = (socket as { on?: (event: string, listener: (response: unknown) => void) => void }).on;
    if (typeof on !== "function") return;
    on.call(socket, "upgrade", (response) => {
      const raw = (response as { headers?: Record<string, string | string[] | undefined> }).headers ?? {};
      const headers = headersFrom(raw);
      this.#options.cookies?.store(headers);
      const id = headers.get(this.#options.connectionIdHeader);
      if (id) this.#connectionId = id;
    });
  }

  /**
   * Waits for the open. A refused upgrade (401, 404, ...) rejects with the `AcpHttpError` the same
   * answer to a POST gives where the constructor shows the response (`ws` emits
   * `unexpected-response`), so a token function is asked again on 401 as over HTTP; a standard
   * WebSocket only reports that the handshake failed, so there it stays an `AcpNetworkError`.
   */
  #opened(socket: WebSocketLike, operation: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let refused: Promise<AcpHttpError> | undefined;
      const openMs = this.#options.openTimeoutMs ?? ACP_DEFAULTS.webSocketOpenTimeoutMs;
      const timer = setTimeout(() => fail(new Error(`not open within ${openMs} ms`)), openMs);
      const done = () => {
        clearTimeout(timer);
        socket.removeEventListener("open", onOpen);
        socket.removeEventListener("error", onError);
        socket.removeEventListener("close", onClose);
      };
      const fail = (cause: unknown) => {
        done();
        closeQuietly(socket, 1000);
        if (refused) void refused.then(reject, reject);
        else reject(new AcpNetworkError(operation, cause));
      };
      const onOpen = () => {
        done();
        this.#options.logger.debug("websocket open", { operation });
        resolve();
      };
      const onError = (event: { message?: string; error?: unknown }) =>
        fail(event.error ?? new Error(event.message ?? "WebSocket error"));
      const onClose = (event: { code?: number }) => fail(new Error(`closed before opening (code ${event.code})`));
      socket.addEventListener("open", onOpen);
      socket.addEventListener("error", onError);
      socket.addEventListener("close", onClose);
      const on = (socket as Partial<UpgradingSocket>).on;
      if (typeof on !== "function") return;
      on.call(socket, "unexpected-response", (request, response) => {
        refused = refusal(operation, response);
        // With a listener, `ws` leaves the handshake to it: read the body (bounded), then abort.
        const abort = () => {
          request.destroy();
          fail(new Error(`upgrade refused with HTTP ${response.statusCode ?? "?"}`));
        };
        void refused.then(abort, abort);
      });
    });
  }

  #listen(socket: WebSocketLike, errors: unknown[]): void {
    const { maxMessageBytes, watchdog: policy } = this.#options;
    const busy = () => this.#owner.busy;
    const watchdog = (this.#watchdog = SocketWatchdog.start(socket, policy, busy, (ms) => this.#stalled(socket, ms)));
    const take = (data: string): void => {
      watchdog?.heard();
      const bytes = oversize(data, maxMessageBytes);
      const { sink } = this.#options;
      if (bytes !== undefined) return sink.tooLarge(bytes, data.slice(0, ANSWER_HEAD_CHARS), CONNECTION_STREAM);
      sink.frame({ id: undefined, event: undefined, data }, CONNECTION_STREAM);
      sink.readDone();
    };
    const { on, terminate } = socket as Partial<EmittingSocket>;
    // `ws` (known by `terminate()`, as for headers) emits the frame's bytes directly; its
    // `addEventListener` wraps each in a MessageEvent first.
    if (typeof on === "function" && typeof terminate === "function") {
      on.call(socket, "message", (data: { toString(): string }, isBinary: boolean) =>
        isBinary ? watchdog?.heard() : take(data.toString()),
      );
    } else {
      socket.addEventListener("message", ((event: { data: unknown }) => {
        if (typeof event.data === "string") take(event.data);
        else watchdog?.heard(); // binary frames carry no ACP messages, but the peer is there
      }));
    }
    socket.addEventListener("close", ((event: { code?: number; reason?: string }) => {
      if (this.#socket !== socket) return;
      this.#detach();
      this.#options.logger.debug("websocket closed by the server", { code: event.code, reason: event.reason });
      // A frame `ws` refused (invalid UTF-8: 1007, over `maxPayload`: 1009) closes the socket with an error first.
      const why = errors.length > 0 ? `; ${String((errors[0] as Error)?.message ?? errors[0])}` : "";
      const reason = event.reason ? `: ${event.reason}` : "";
      const cause = new Error(`WebSocket closed (code ${event.code ?? "?"}${reason}${why})`, { cause: errors[0] });
      this.#owner.lost(new AcpNetworkError("websocket", cause));
    }));
  }

  /** The watchdog heard nothing for `silentMs`: the peer is gone, whatever the socket says. */
  #stalled(socket: WebSocketLike, silentMs: number): void {
    if (this.#socket !== socket) return;
    this.#detach();
    const terminate = (socket as { terminate?: () => void }).terminate;
    // `ws` can drop the TCP connection at once; a closing handshake would wait on a dead peer.
    if (typeof terminate === "function") terminate.call(socket);
    else closeQuietly(socket, 4000);
    const cause = new Error(`WebSocket stalled: no frame or pong for ${silentMs} ms`);
    this.#owner.lost(new AcpNetworkError("websocket", cause));
  }

  #detach(): void {
    this.#socket = undefined;
    this.#watchdog?.stop();
    this.#watchdog = undefined;
  }
}

/** `ws`'s own bound on a frame, which it applies unless given another. */
const WS_DEFAULT_MAX_PAYLOAD = 100 * 1024 * 1024;

/** How much of a refused upgrade's body is read for its error (as an error body over HTTP is capped). */
const REFUSAL_BODY_BYTES = 8192;

/** The `unexpected-response` event of a `ws` socket: its request and the non-101 response. */
interface UpgradingSocket {
  on(
    event: "unexpected-response",
    listener: (request: { destroy(): void }, response: UpgradeResponse) => void,
  ): void;
}

/** The part of Node's `IncomingMessage` a refused upgrade is read from. */
interface UpgradeResponse extends AsyncIterable<Uint8Array> {
  statusCode?: number;
  statusMessage?: string;
  headers: Record<string, string | string[] | undefined>;
  destroy(): void;
}

/** The `AcpHttpError` for a refused upgrade, from its status, headers and the head of its body. */
async function refusal(operation: string, response: UpgradeResponse): Promise<AcpHttpError> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of response) {
      chunks.push(chunk);
      bytes += chunk.byteLength;
      if (bytes >= REFUSAL_BODY_BYTES) break;
    }
  } catch {
    // A body cut short still leaves the status to report.
  }
  response.destroy();
  const body = Buffer.concat(chunks).subarray(0, REFUSAL_BODY_BYTES);
  const status = response.statusCode ?? 500;
  // `Response` takes statuses 200-599 only; anything else is reported as a bad gateway would be.
  const init = { status: status >= 200 && status <= 599 ? status : 502, headers: headersFrom(response.headers) };
  return toHttpError(operation, new Response(status === 204 || status === 304 ? null : body, init));
}

/** `ws` sockets are also event emitters: `message` gives `(data, isBinary)`. */
interface EmittingSocket {
  on(event: "message", listener: (data: { toString(): string }, isBinary: boolean) => void): void;
  terminate(): void;
}

function sendOn(socket: WebSocketLike, body: string, operation: string): void {
  try {
    socket.send(body);
  } catch (error) {
    throw new AcpNetworkError(operation, error);
  }
}

function closeQuietly(socket: WebSocketLike, code: number): void {
  try {
    socket.close(code);
  } catch {
    // Closing a socket that never opened can throw in some implementations; it is gone either way.
  }
}

export interface NormalizedWatchdogPolicy {
  heartbeatMs: number | undefined;
  idleTimeoutMs: number | undefined;
}

export function normalizeWatchdogPolicy(policy: WebSocketWatchdogPolicy = {}): NormalizedWatchdogPolicy {
  const heartbeatMs =
    normalizeTimeout(policy.heartbeatMs, "reconnect.webSocket.heartbeatMs") ?? ACP_DEFAULTS.webSocketHeartbeatMs;
  return {
    heartbeatMs: heartbeatMs === 0 ? undefined : heartbeatMs,
    idleTimeoutMs: normalizeTimeout(policy.idleTimeoutMs, "reconnect.webSocket.idleTimeoutMs"),
  };
}

/** `ws` sockets: protocol pings, and pongs as an event (not on the standard interface). */
interface PingingSocket {
  ping(): void;
  on(event: "pong", listener: () => void): void;
}

const canPing = (socket: WebSocketLike): socket is WebSocketLike & PingingSocket =>
  typeof (socket as Partial<PingingSocket>).ping === "function" &&
  typeof (socket as Partial<PingingSocket>).on === "function";

/**
 * Watches one open socket. Frames only set a flag (`heard`): the clock is read once per
 * heartbeat, never per message. A stall is reported once; the owner then drops the socket.
 */
export class SocketWatchdog {
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #socket: (WebSocketLike & PingingSocket) | undefined;
  readonly #idleMs: number;
  readonly #busy: () => boolean;
  readonly #onStall: (silentMs: number) => void;
  #heard = false;
  #quietSince = Date.now();

  /** Starts watching, or returns undefined when the policy has nothing to watch on this socket. */
  static start(
    socket: WebSocketLike,
    policy: NormalizedWatchdogPolicy | undefined,
    busy: () => boolean,
    onStall: (silentMs: number) => void,
  ): SocketWatchdog | undefined {
    const { heartbeatMs, idleTimeoutMs } = policy ?? {};
    if (heartbeatMs === undefined) return undefined;
    const pings = canPing(socket);
    if (!pings && idleTimeoutMs === undefined) return undefined;
    return new SocketWatchdog(socket, pings, heartbeatMs, idleTimeoutMs ?? 2 * heartbeatMs, busy, onStall);
  }

  private constructor(
    socket: WebSocketLike,
    pings: boolean,
    heartbeatMs: number,
    idleMs: number,
    busy: () => boolean,
    onStall: (silentMs: number) => void,
  ) {
    this.#socket = pings ? (socket as WebSocketLike & PingingSocket) : undefined;
    this.#idleMs = idleMs;
    this.#busy = busy;
    this.#onStall = onStall;
    this.#socket?.on("pong", () => (this.#heard = true));
    this.#timer = setInterval(() => this.#tick(), heartbeatMs);
    // A watchdog must never keep a process alive on its own.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Something arrived on the socket. */
  heard(): void {
    this.#heard = true;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #tick(): void {
    const now = Date.now();
    // Without pings, silence while nothing is awaited says nothing about the peer.
    if (this.#heard || (this.#socket === undefined && !this.#busy())) {
      this.#heard = false;
      this.#quietSince = now;
    } else if (now - this.#quietSince >= this.#idleMs) {
      this.stop();
      return this.#onStall(now - this.#quietSince);
    }
    try {
      this.#socket?.ping();
    } catch {
      // A socket that is closing cannot ping; its close event follows.
    }
  }
}
