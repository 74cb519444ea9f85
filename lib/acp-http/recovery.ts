// Bringing sessions back inside one client: after a lost connection a new one is built and the
// known sessions re-attached (`recover` option, recoveries$), and attachSession for one session.
// The ledger and its retry loop serve reattach.ts too (a client rebuilt from stored state in a
// new process), so the protocol layer loads sessions back one way only.
import type { AcpLogger } from "../internal/logger.js";
import { reconnectDelay, type AcpReconnectAttempt, type NormalizedReconnectPolicy } from "../internal/backoff.js";
import type { CloseInfo } from "./client-options.js";
import { AcpAbortError, AcpConnectionClosedError, AcpInterruptedError, AcpTimeoutError } from "./errors.js";
import type { PendingOptions } from "./call-correlation.js";
import { SessionStreamStoppedError, type SessionStreams } from "./session-streams.js";
import { sleep, startDeadline } from "../internal/abort.js";

function directoriesOf(list: unknown[] | undefined): { additionalDirectories?: unknown[] } {
  return list && list.length > 0 ? { additionalDirectories: list } : {};
}

/** Methods after which a session is not brought back by a recovery: closed, or deleted. */
const ENDS_SESSION: ReadonlySet<string> = new Set(["session/close", "session/delete"]);

/** A lost connection was re-established on a server without replay (`recoveries$`). */
export interface AcpRecovery {
  /** The new connection's id, when the transport shows it. */
  connectionId: string | undefined;
  /** Sessions re-attached with `session/load`: their next prompts work as before. */
  loaded: string[];
  /** Sessions that could not be re-attached (no `loadSession`, or the load failed); they are gone. */
  failed: Array<{ sessionId: string; error: string }>;
  /** Attempts it took (1 = the first). */
  attempts: number;
}

interface OpenSession {
  cwd: string;
  mcpServers: unknown[];
  /** Given only when the session was opened with some: an agent that does not know the field never sees it. */
  additionalDirectories?: unknown[];
}

/**
 * What a lost connection needs to be rebuilt: the `initialize` params sent, whether the
 * agent can `session/load`, and each session open here (with the `cwd`, MCP servers and
 * additional directories it was opened with). Fed from every successful request.
 */
export class SessionLedger {
  #initialize: unknown;
  #initialized = false;
  #loadSession = false;
  /** Made with the first session (see ResponseHolds.#held). */
  #sessions: Map<string, OpenSession> | undefined;

  /**
   * A ledger for sessions an earlier client opened (a reattach whose connection is gone): `recover`
   * then opens a new connection with `initialize` and loads each. `session/load` is tried unless the
   * next `initialize` result (fed to `note`) says the agent cannot.
   */
  static of(initialize: unknown, sessions: Iterable<{ sessionId: string } & Partial<OpenSession>>): SessionLedger {
    const ledger = new SessionLedger();
    ledger.#initialize = initialize;
    ledger.#initialized = true;
    ledger.#loadSession = true;
    for (const { sessionId, cwd, mcpServers } of sessions) {
      (ledger.#sessions ??= new Map()).set(sessionId, { cwd: cwd ?? "/", mcpServers: mcpServers ?? [] });
    }
    return ledger;
  }

  note(method: string, params: unknown, result: unknown): void {
    const p = (params ?? {}) as Partial<Record<"sessionId" | "cwd" | "mcpServers" | "additionalDirectories", unknown>>;
    if (method === "initialize") {
      this.#initialize = params;
      this.#initialized = true;
      const caps = (result as { agentCapabilities?: { loadSession?: unknown } } | undefined)?.agentCapabilities;
      this.#loadSession = caps?.loadSession === true;
      return;
    }
    const sessionId =
      method === "session/new" || method === "session/fork"
        ? (result as { sessionId?: unknown } | undefined)?.sessionId
        : method === "session/load" || method === "session/resume" || ENDS_SESSION.has(method)
          ? p.sessionId
          : undefined;
    if (typeof sessionId !== "string") return;
    if (ENDS_SESSION.has(method)) return void this.#sessions?.delete(sessionId);
    const known = this.#sessions?.get(sessionId);
    (this.#sessions ??= new Map()).set(sessionId, {
      cwd: typeof p.cwd === "string" ? p.cwd : (known?.cwd ?? "/"),
      mcpServers: Array.isArray(p.mcpServers) ? p.mcpServers : (known?.mcpServers ?? []),
      ...directoriesOf(Array.isArray(p.additionalDirectories) ? p.additionalDirectories : known?.additionalDirectories),
    });
  }

  /** True once an `initialize` succeeded: there is something to rebuild. */
  get recoverable(): boolean {
    return this.#initialized;
  }

  /** Re-initializes, then loads each session; retried per the reconnect policy. */
  async recover(options: RecoverOptions): Promise<AcpRecovery> {
    const { policy, signal, logger } = options;
    const maxAttempts = policy.maxRetries + 1;
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      const nextDelayMs = attempt > 1 ? reconnectDelay(policy, attempt - 1) : 0;
      options.onAttempt?.({ attempt, maxAttempts, nextDelayMs, cause: lastError ?? options.cause, kind: "recovery" });
      if (nextDelayMs > 0) await sleep(nextDelayMs, signal);
      if (signal.aborted) break;
      options.reset();
      try {
        await options.request("initialize", this.#initialize);
      } catch (error) {
        lastError = error;
        logger.debug("recovery: initialize failed", { attempt, error: (error as Error).message });
        continue;
      }
      return { ...(await this.loadAll(options)), connectionId: options.connectionId(), attempts: attempt };
    }
    throw lastError ?? new Error("recovery aborted");
  }

  /** `session/load`s each session; one that fails is reported and forgotten. */
  async loadAll(options: Pick<RecoverOptions, "request">): Promise<Pick<AcpRecovery, "loaded" | "failed">> {
    const loaded: string[] = [];
    const failed: AcpRecovery["failed"] = [];
    for (const [sessionId, session] of [...(this.#sessions ?? [])]) {
      if (!this.#loadSession) {
        failed.push({ sessionId, error: "the agent does not advertise loadSession" });
        this.#sessions?.delete(sessionId);
        continue;
      }
      try {
        const { cwd, mcpServers, additionalDirectories } = session;
        await options.request("session/load", { sessionId, cwd, mcpServers, ...directoriesOf(additionalDirectories) });
        loaded.push(sessionId);
      } catch (error) {
        failed.push({ sessionId, error: (error as Error).message });
        this.#sessions?.delete(sessionId);
      }
    }
    return { loaded, failed };
  }
}

export interface RecoverOptions {
  policy: NormalizedReconnectPolicy;
  /** Aborted when the client closes: recovery stops. */
  signal: AbortSignal;
  logger: AcpLogger;
  /** Forgets the lost connection (its id, streams or socket) before each attempt. */
  reset(): void;
  /** Sends one request on the new connection. */
  request(method: string, params: unknown): Promise<unknown>;
  connectionId(): string | undefined;
  /** What lost the connection (the first attempt's `cause`). */
  cause?: unknown;
  /** Each attempt, before its delay (`reconnecting$`). */
  onAttempt?(attempt: AcpReconnectAttempt): void;
}

/**
 * The connection as its recovery sees it: how a new connection is built in place of the lost one,
 * and what it is told as the recovery goes. `Connection` implements it.
 */
export interface RecoveryOwner {
  /** The new connection's id, when the transport shows it. */
  readonly connectionId: string | undefined;
  /** A recovery begins: move the state, fail what was in flight. */
  recoveryStarted(cause: unknown): void;
  /** Forgets the lost connection (its id, streams or socket) before each attempt. */
  resetTransports(): void;
  /** Sends one request of the recovery (`initialize`, `session/load`) on the new connection. */
  recoveryRequest(method: string, params: unknown): Promise<unknown>;
  /** Each attempt, before its delay (`reconnecting$`). */
  reconnecting(attempt: AcpReconnectAttempt): void;
  recovered(recovery: AcpRecovery): void;
  /** Every attempt failed: the connection closes. */
  recoveryFailed(error: unknown): void;
}

/**
 * When a connection is lost: one recovery at a time, built from the ledger of what was
 * opened. Requests made meanwhile wait for it (`pending`) and then go out on the new one.
 */
export class ConnectionRecovery {
  readonly ledger = new SessionLedger();
  readonly #enabled: boolean;
  readonly #base: Pick<RecoverOptions, "policy" | "signal" | "logger">;
  readonly #owner: RecoveryOwner;
  #pending: Promise<void> | undefined;

  constructor(enabled: boolean, base: Pick<RecoverOptions, "policy" | "signal" | "logger">, owner: RecoveryOwner) {
    this.#enabled = enabled;
    this.#base = base;
    this.#owner = owner;
  }

  /** The recovery under way, if any. */
  get pending(): Promise<void> | undefined {
    return this.#pending;
  }

  /** Starts a recovery (or joins the one under way); false when there is nothing to recover. */
  start(cause: unknown): boolean {
    if (this.#pending) return true;
    if (!this.#enabled || !this.ledger.recoverable) return false;
    this.#base.logger.warn("connection lost: re-initializing", { error: (cause as Error | undefined)?.message });
    const owner = this.#owner;
    owner.recoveryStarted(cause);
    // Started a microtask later, so that `pending` is set before the first attempt is reported: a
    // call made from a `reconnecting$` subscriber waits for the new connection like any other.
    this.#pending = Promise.resolve()
      .then(() =>
        this.ledger.recover({
          ...this.#base,
          reset: () => owner.resetTransports(),
          request: (method, params) => owner.recoveryRequest(method, params),
          connectionId: () => owner.connectionId,
          onAttempt: (attempt) => owner.reconnecting(attempt),
          cause,
        }),
      )
      .then(
        (recovery) => {
          this.#pending = undefined;
          owner.recovered(recovery);
        },
        (error: unknown) => {
          this.#pending = undefined;
          owner.recoveryFailed(error);
        },
      );
    return true;
  }
}

/**
 * How `attachSession` resumes a session's stream; `signal` and `timeoutMs` bound the wait for the server.
 * It resolves once the server accepted the stream. It rejects with `AcpConnectionClosedError` when the
 * connection closed (`connection-lost`: the server no longer knows it, a 404; fall back with `reattach()`
 * or a new client and `loadSession`), `AcpInterruptedError` when it was rebuilt meanwhile, `AcpHttpError`
 * when the server refused the stream (403: the connection no longer owns the session; `loadSession` it),
 * `AcpAbortError` / `AcpTimeoutError` when the caller stopped waiting, and `TypeError` without
 * `sessionStreams` (over HTTP) or a connection id.
 */
export interface AttachSessionOptions extends PendingOptions {
  /**
   * The session stream's cursor as `onCursor` last reported it for this session: the server
   * replays the events after it. Absent: "0", every event the server still keeps.
   */
  lastEventId?: string | undefined;
}

/** What `attachSession` needs of the connection. */
export interface AttachingConnection {
  readonly streams: SessionStreams;
  readonly closeInfo: CloseInfo | undefined;
}

const METHOD = "attachSession";

/**
 * Opens `sessionId`'s stream from its cursor and waits until the server accepted it. The
 * failure says what happened: the connection closed (`AcpConnectionClosedError`; a 404 is
 * `connection-lost`), was rebuilt meanwhile (`AcpInterruptedError`), the server refused the
 * stream (`AcpHttpError`, e.g. 403 when the connection no longer owns the session), or the
 * caller stopped waiting (`AcpAbortError`, `AcpTimeoutError`; the stream is closed then).
 */
export function attachSession(
  target: AttachingConnection,
  sessionId: string,
  options: AttachSessionOptions,
): Promise<void> {
  const { signal, timeoutMs } = options;
  if (signal?.aborted) return Promise.reject(new AcpAbortError(METHOD, signal.reason));
  return new Promise<void>((resolve, reject) => {
    const giveUp = (error: Error) => {
      target.streams.close(sessionId);
      reject(error);
    };
    const onAbort = () => giveUp(new AcpAbortError(METHOD, signal?.reason));
    const cancelDeadline = startDeadline(timeoutMs, () => giveUp(new AcpTimeoutError(METHOD, timeoutMs ?? 0)));
    signal?.addEventListener("abort", onAbort, { once: true });
    target.streams.attach(sessionId, options.lastEventId).then(
      resolve,
      (error: unknown) => reject(attachFailure(error, target.closeInfo)),
    ).finally(() => {
      cancelDeadline();
      signal?.removeEventListener("abort", onAbort);
    });
  });
}

function attachFailure(error: unknown, closed: CloseInfo | undefined): unknown {
  // Read after the stream failed: a 404 has closed the connection (or started a recovery) by then.
  const cause = closed?.error?.cause ?? error;
  if (closed) return new AcpConnectionClosedError(closed.reason, { method: METHOD, cause });
  return error instanceof SessionStreamStoppedError ? new AcpInterruptedError(METHOD, error) : error;
}
