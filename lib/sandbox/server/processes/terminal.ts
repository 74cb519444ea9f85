import { Subject, type Observable } from "rxjs";
import * as v from "valibot";
import { WEB_SOCKET_OPEN, type WebSocketLike } from "../../../internal/web-socket.js";
import { terminalError, type SandboxAgentError } from "../../errors.js";
import { toBase64 } from "./bytes.js";
import { TerminalServerFrameSchema } from "./schemas.js";
import { PROCESS_DEFAULTS } from "../../defaults.js";

/** How a terminal session ended: the process's exit code, `null` when a signal ended it. */
export interface TerminalExit {
  exitCode: number | null;
}

export interface TerminalOptions {
  /** Initial size, sent once the server says it is ready. */
  cols?: number;
  rows?: number;
  /** Sub-protocols for the WebSocket handshake. */
  protocols?: string | string[];
  /** Bound on the handshake and the server's `ready` frame. Default 10 000 ms. */
  readyTimeoutMs?: number;
  /** Aborting closes the terminal (the process keeps running). */
  signal?: AbortSignal;
}

/** What opening the socket needs, provided by the process API (auth, URL, failure diagnosis). */
export interface TerminalConnector {
  open(protocols: string | string[] | undefined): Promise<WebSocketLike>;
  /** Explains a socket that failed before it opened (404, 409, 401 ...), as a typed error. */
  diagnose(reason: string): Promise<Error>;
}

const CLOSE_GRACE_MS = 2_000;
const noop = () => undefined;

/**
 * A live terminal on a tty process, over `GET /v1/processes/{id}/terminal/ws`: output as
 * bytes, input, resize, and the process's exit. Text frames from the server are control
 * (`ready`, `exit`, `error`), binary frames are output. The server does not replay output
 * written before the socket opened; read the process's `pty` log for that.
 */
export class Terminal {
  readonly processId: string;
  /** PTY output while connected; hot (no replay); completes when the socket closes, whatever the reason. */
  readonly output$: Observable<Uint8Array>;
  /**
   * The server's error frames (bad input and the like), as errors of kind `terminal-server`; the
   * socket stays open. Completes at close.
   */
  readonly errors$: Observable<SandboxAgentError>;
  /** Resolves on the server's `ready` frame; rejects with a typed error when the socket cannot open. */
  readonly ready: Promise<void>;
  /** Resolves when the process exits; rejects when the socket closes first (the process may still run). */
  readonly exit: Promise<TerminalExit>;
  /** Resolves once the socket is closed. */
  readonly closed: Promise<void>;

  readonly #output = new Subject<Uint8Array>();
  readonly #errors = new Subject<SandboxAgentError>();
  readonly #queue: string[] = [];
  readonly #settle: { ready(error?: Error): void; exit(value: TerminalExit | Error): void; closed(): void };
  #socket: WebSocketLike | undefined;
  #state: "connecting" | "open" | "closing" | "closed" = "connecting";
  #isReady = false;
  #failure: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Drops the listener on the caller's signal: a signal shared by many terminals must not collect them. */
  #unlinkSignal: () => void = noop;

  constructor(processId: string, connector: TerminalConnector, options: TerminalOptions = {}) {
    this.processId = processId;
    this.output$ = this.#output.asObservable();
    this.errors$ = this.#errors.asObservable();
    let settleReady!: (error?: Error) => void;
    let settleExit!: (value: TerminalExit | Error) => void;
    let settleClosed!: () => void;
    this.ready = new Promise<void>((resolve, reject) => (settleReady = (e) => (e ? reject(e) : resolve())));
    this.exit = new Promise<TerminalExit>(
      (resolve, reject) => (settleExit = (x) => (x instanceof Error ? reject(x) : resolve(x))),
    );
    this.closed = new Promise<void>((resolve) => (settleClosed = resolve));
    // Callers who only care about one promise must not get unhandled rejections from the others.
    this.ready.catch(noop);
    this.exit.catch(noop);
    this.#settle = { ready: settleReady, exit: settleExit, closed: settleClosed };
    const readyTimeoutMs = options.readyTimeoutMs ?? PROCESS_DEFAULTS.terminalReadyTimeoutMs;
    this.#timer = setTimeout(() => this.#abandon("no ready frame within the timeout"), readyTimeoutMs);
    const { signal } = options;
    if (signal?.aborted) {
      this.#finish(terminalError(processId, "aborted", { fromServer: false }));
      return;
    }
    if (signal) {
      const onAbort = () => this.close();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#unlinkSignal = () => signal.removeEventListener("abort", onAbort);
    }
    connector
      .open(options.protocols)
      .then((socket) => this.#attach(socket, connector, options))
      .catch((error: Error) => this.#finish(error));
  }

  /** Types into the terminal: text as is, bytes base64-encoded. Queued until the socket is open. */
  send(data: string | Uint8Array): void {
    const frame =
      typeof data === "string" ? { type: "input", data } : { type: "input", data: toBase64(data), encoding: "base64" };
    this.#sendFrame(frame);
  }

  /** Resizes the PTY (the program gets SIGWINCH); the server sends no answer. */
  resize(cols: number, rows: number): void {
    this.#sendFrame({ type: "resize", cols, rows });
  }

  /** Detaches: asks the server to close the socket. The process keeps running. */
  close(): void {
    if (this.#state === "closing" || this.#state === "closed") return;
    const socket = this.#socket;
    if (this.#state === "open" && socket) {
      this.#state = "closing";
      socket.send(JSON.stringify({ type: "close" }));
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => socket.close(), CLOSE_GRACE_MS);
    } else {
      this.#state = "closing";
      socket?.close();
      if (!socket) this.#finish(terminalError(this.processId, "closed before it connected", { fromServer: false }));
    }
  }

  toString(): string {
    return `Terminal(${this.processId}, ${this.#state})`;
  }

  #sendFrame(frame: object): void {
    if (this.#state === "closing" || this.#state === "closed") {
      throw terminalError(this.processId, "the terminal is closed", { fromServer: false });
    }
    const text = JSON.stringify(frame);
    if (this.#state === "open" && this.#socket?.readyState === WEB_SOCKET_OPEN) this.#socket.send(text);
    else this.#queue.push(text);
  }

  #attach(socket: WebSocketLike, connector: TerminalConnector, options: TerminalOptions): void {
    this.#socket = socket;
    socket.binaryType = "arraybuffer";
    // Closed, aborted or timed out while the socket was being made: nobody will read it, so close it now.
    if (this.#state !== "connecting") {
      socket.addEventListener("error", noop); // `ws` reports a close before the handshake as an error event
      return socket.close();
    }
    socket.addEventListener("open", () => {
      if (this.#state !== "connecting") return;
      this.#state = "open";
      for (const text of this.#queue.splice(0)) socket.send(text);
    });
    socket.addEventListener("message", (event: { data: unknown }) => this.#onMessage(event.data, options));
    // Never keep the event: its target is the socket, whose URL may carry the token.
    socket.addEventListener("error", (event: { message?: unknown }) => {
      this.#failure ??= typeof event.message === "string" && event.message ? event.message : "WebSocket error";
    });
    socket.addEventListener("close", (event: { code?: number }) => {
      if (this.#isReady || this.#state === "closing") {
        return this.#finish(this.#localError("closed before the process exited"));
      }
      const reason = this.#failure ?? `closed (code ${event.code ?? "none"}) before the ready frame`;
      // Only a failed handshake needs explaining; an open socket without a ready frame is its own reason.
      if (this.#state === "open") return this.#finish(this.#localError(reason));
      connector.diagnose(reason).then(
        (error) => this.#finish(error),
        (error: Error) => this.#finish(error),
      );
    });
  }

  #onMessage(data: unknown, options: TerminalOptions): void {
    if (typeof data !== "string") {
      const bytes =
        data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : ArrayBuffer.isView(data)
            ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
            : undefined;
      if (bytes) this.#output.next(bytes);
      return;
    }
    const parsed = v.safeParse(TerminalServerFrameSchema, safeJson(data));
    if (!parsed.success) return this.#errors.next(this.#serverError("unreadable control frame"));
    const frame = parsed.output;
    if (frame.type === "error") return this.#errors.next(this.#serverError(frame.message));
    if (frame.type === "ready") {
      this.#isReady = true;
      clearTimeout(this.#timer);
      if (options.cols !== undefined && options.rows !== undefined) this.resize(options.cols, options.rows);
      return this.#settle.ready();
    }
    this.#settle.exit({ exitCode: frame.exitCode });
  }

  #localError(message: string): SandboxAgentError {
    return terminalError(this.processId, message, { fromServer: false });
  }

  #serverError(message: string): SandboxAgentError {
    return terminalError(this.processId, message, { fromServer: true });
  }

  #abandon(reason: string): void {
    if (this.#isReady || this.#state === "closed") return;
    this.#failure = reason;
    // Settle now: a peer that ignores the close handshake must not hold `ready` for ws's 30 s.
    this.#socket?.close();
    this.#finish(this.#localError(reason));
  }

  /** The socket is gone: settle whatever is still open with `error`, end the streams. */
  #finish(error: Error): void {
    if (this.#state === "closed") return;
    this.#state = "closed";
    clearTimeout(this.#timer);
    this.#unlinkSignal();
    this.#settle.ready(error);
    this.#settle.exit(error);
    this.#output.complete();
    this.#errors.complete();
    this.#settle.closed();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
