// The set of event streams of one connection: the connection stream and, in the RFD profile, one
// stream per session (opened early for session/load and session/resume, stopped when a session
// closes), and the verdict on a session whose stream was lost.
import type { FrameSink } from "./response-order.js";
import { type CloseReason, AcpHttpError } from "./errors.js";
import {
  EventStream,
  FATAL_STATUSES,
  RetriesExhaustedError,
  StreamEndedError,
  type CursorAdvance,
  type EventGap,
  type EventStreamOwner,
  type EventStreamStatus,
} from "./event-stream.js";
import type { HttpTransport } from "./http-transport.js";
import type { AcpLogger } from "../internal/logger.js";
import type { AcpReconnectAttempt, NormalizedReconnectPolicy } from "../internal/backoff.js";
import { sessionOf } from "./envelope.js";

/** The streams' settings (plain values, resolved once by the client). */
export interface SessionStreamsSettings {
  http: HttpTransport;
  policy: NormalizedReconnectPolicy;
  logger: AcpLogger;
  /** The RFD profile's per-session stream header; undefined: the connection stream carries everything. */
  sessionHeader: string | undefined;
  /** Seed for the connection stream's cursor. */
  lastEventId: string | undefined;
  /** The server's ids are contiguous numbers (gaps are detectable); false: opaque. */
  contiguousIds: boolean;
  /** The user's cursor callback (option `onCursor`). */
  onCursor?: ((advance: CursorAdvance) => void) | undefined;
  /** Where every stream's frames go, and each completed read (see `EventStreamSettings.sink`). */
  sink: FrameSink;
  /** `maxMessageBytes`: an event past it is skipped and reported too large (see `EventStreamSettings`). */
  maxMessageBytes?: number;
  /** The token comes from a function: a refused GET is tried once more (see `EventStreamSettings`). */
  refreshableToken?: boolean;
}

/**
 * What the streams tell the connection that owns them, besides frames (those go to the sink).
 * `Connection` implements it.
 */
export interface StreamsOwner {
  /** Events the server could no longer replay. */
  gap(gap: EventGap): void;
  /** The connection stream's status (session streams do not move the connection's state). */
  streamStatus(status: EventStreamStatus): void;
  /** The connection stream's reconnect attempts (a session stream's are not the connection's). */
  reconnecting(attempt: AcpReconnectAttempt): void;
  /** A stream failure that ends the whole connection (`connection-lost`: it may be rebuilt). */
  streamFailed(reason: CloseReason, cause: unknown): void;
  /** A session's stream was refused with 409 (held elsewhere): that session fails, the connection lives on. */
  sessionConflict(sessionId: string, error: AcpHttpError): void;
  /**
   * A session's stream ended where the server cannot replay it (it gave no event ids) and the
   * verdict is in (`StreamLosses`), or it was refused for good: answers it would have carried for
   * requests sent before may never come.
   */
  sessionStreamLost(sessionId: string, cause: Error): void;
}

/** A session stream stopped (the session closed, the connection reset or closed) before it opened. */
export class SessionStreamStoppedError extends Error {
  override name = "SessionStreamStoppedError";
}

const CONNECTION_STREAM = "connection";
/** No headers: shared, since a transport only reads them. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
/** A session stream refused with 409 is held elsewhere (RFD): retrying cannot win it back, `session/load` can. */
const SESSION_FATAL_STATUSES: ReadonlySet<number> = new Set([...FATAL_STATUSES, 409]);
/** Methods whose result names the session (a new one). */
const SESSION_FROM_RESULT = new Set(["session/new", "session/fork"]);
/**
 * Methods naming a session whose answer may come on the connection stream (qwen: both; the official
 * SDK's server: `session/load`; goose answers `session/load` on the session's stream): a session
 * stream's end never fails them, and a closing session's stream may end before its answer.
 */
const ANSWERED_ON_CONNECTION = new Set(["session/load", "session/close"]);

/**
 * Which GET event streams a connection has: the connection stream, opened after the first
 * accepted POST, and (RFD profile) one stream per session created or attached here, opened
 * from its whole history so no update sent before the GET is missed. It owns every stream it
 * makes (`EventStreamOwner`, in its own section below): one owner, no callbacks per stream.
 */
export class SessionStreams implements EventStreamOwner {
  readonly #settings: SessionStreamsSettings;
  readonly #owner: StreamsOwner;
  readonly #streams = new Map<string, EventStream>();
  /** Kept after close: the cursor is most wanted then, to persist it. */
  #connection: EventStream | undefined;
  /** Reattached session streams not yet accepted by the server: their `attach` callers wait. */
  #attaching: Map<string, { opened: Promise<void>; settle(error?: Error): void }> | undefined;
  readonly #early = new EarlyLoadStreams();
  readonly #losses: StreamLosses;
  #stopped = false;

  constructor(settings: SessionStreamsSettings, owner: StreamsOwner) {
    this.#settings = settings;
    this.#owner = owner;
    this.#losses = new StreamLosses(LOSS_VERDICT_MAX_MS, owner);
  }

  /** A stream exists (open or coming back): more frames can still arrive. */
  get started(): boolean {
    return this.#streams.size > 0;
  }

  /** The RFD profile's per-session streams (over HTTP): their GETs need the connection id. */
  get perSession(): boolean {
    return this.#settings.sessionHeader !== undefined;
  }

  /** The connection stream's cursor: persist it to resume after a reload. */
  get lastEventId(): string | undefined {
    return this.#connection?.lastEventId ?? this.#settings.lastEventId;
  }

  /** The session header for a POST whose params name a session (RFD profile only). */
  headersFor(params: unknown): Record<string, string> {
    const header = this.#settings.sessionHeader;
    // Every envelope out asks (over a WebSocket too): without the header, nothing is read or made.
    if (!header) return NO_HEADERS;
    const sessionId = sessionOf(params);
    return sessionId !== undefined ? { [header]: sessionId } : NO_HEADERS;
  }

  /**
   * The session whose stream carries the answer to this request when its POST is accepted without
   * one (RFD profile); undefined: the connection stream, or no per-session streams at all.
   */
  answeredOn(method: string, params: unknown): string | undefined {
    if (!this.#settings.sessionHeader || ANSWERED_ON_CONNECTION.has(method)) return undefined;
    return sessionOf(params);
  }

  /**
   * Opens the connection stream once the server knows the connection. In the RFD profile
   * a GET without the connection id is refused, so it waits until one is known.
   */
  openConnection(known = false): void {
    const { http, sessionHeader } = this.#settings;
    // `known`: a stored connection id (a reattach) names a connection the server already has.
    if (this.#stopped || this.#connection || !(known || http.bootstrapped)) return;
    if (sessionHeader && !http.connectionId) return;
    this.#connection = this.#start(CONNECTION_STREAM, this.#settings.lastEventId);
  }

  /** Opens the stream of a `session/load` or `session/resume` before it goes out (RFD profile; `EarlyLoadStreams`). */
  beforeSend(method: string, params: unknown): void {
    const header = this.#settings.sessionHeader;
    const sessionId = loadedSession(method, params);
    if (!header || sessionId === undefined || this.#stopped || this.#streams.has(sessionId)) return;
    this.#early.opening(sessionId);
    this.#start(sessionId, "0");
  }

  /** A failed load or resume: the stream opened for it ahead of the answer is not wanted. */
  afterError(method: string, params: unknown): void {
    const sessionId = loadedSession(method, params);
    if (this.#early.failed(sessionId)) this.close(sessionId);
  }

  /** Follows a successful request: opens the stream of the session it created or attached, or closes one. */
  afterResult(method: string, params: unknown, result: unknown): void {
    if (method === "session/close") return this.close(sessionOf(params));
    const sessionId = SESSION_FROM_RESULT.has(method) ? sessionOf(result) : loadedSession(method, params);
    const header = this.#settings.sessionHeader;
    if (sessionId !== undefined) this.#early.answered(sessionId, this.#streams.has(sessionId));
    if (!header || sessionId === undefined || this.#stopped || this.#streams.has(sessionId)) return;
    // "0" asks for the session's whole history: updates sent before this GET are not lost.
    this.#start(sessionId, "0");
  }

  /**
   * Reattach (RFD profile): opens the stream of a session of the known connection from that
   * session's stored cursor, with no `session/load`, so the server replays only what was missed
   * (no cursor: "0", the whole ring). Opens the connection stream too. Resolves once the server
   * accepted the session's GET; rejects with the refusal (an `AcpHttpError`), with
   * `SessionStreamStoppedError` when the stream stopped first, or a `TypeError` without session
   * streams or a connection id. A stream already there is kept as it is.
   */
  attach(sessionId: string, lastEventId: string | undefined): Promise<void> {
    const header = this.#settings.sessionHeader;
    // Caller bugs, as elsewhere in this client: a TypeError before anything is sent.
    const refuse = (why: string) => Promise.reject(new TypeError(`attachSession: ${why}`));
    if (!header) return refuse("the client has no per-session streams (option sessionStreams, over HTTP)");
    if (!this.#settings.http.connectionId) return refuse("no connection id to reattach to (option connectionId)");
    if (this.#stopped) return Promise.reject(new SessionStreamStoppedError("the connection is closed"));
    const pending = this.#attaching?.get(sessionId);
    if (pending) return pending.opened;
    if (this.#streams.has(sessionId)) return Promise.resolve();
    let settle!: (error?: Error) => void;
    const opened = new Promise<void>((resolve, reject) => {
      settle = (error) => {
        this.#attaching?.delete(sessionId);
        if (error) reject(error);
        else resolve();
      };
    });
    (this.#attaching ??= new Map()).set(sessionId, { opened, settle });
    this.openConnection(true);
    this.#start(sessionId, lastEventId ?? "0");
    return opened;
  }

  /** Stops one session's stream. */
  close(sessionId: string | undefined): void {
    if (sessionId === undefined) return;
    this.#early.forget(sessionId);
    this.#losses.settle(sessionId);
    this.#streams.get(sessionId)?.stop();
    this.#streams.delete(sessionId);
    this.#attaching?.get(sessionId)?.settle(new SessionStreamStoppedError(`session ${sessionId} closed`));
  }

  /** Stops every stream and forgets them; unlike `stopAll`, streams may open again (a new connection). */
  reset(): void {
    this.#stopEvery("the connection was reset");
    this.#connection = undefined;
  }

  /** Stops every stream; no stream opens afterwards. */
  stopAll(): void {
    this.#stopped = true;
    this.#stopEvery("the connection closed");
  }

  #stopEvery(why: string): void {
    for (const stream of this.#streams.values()) stream.stop();
    this.#streams.clear();
    this.#losses.clear();
    for (const { settle } of [...(this.#attaching?.values() ?? [])]) settle(new SessionStreamStoppedError(why));
    this.#early.clear();
  }

  #start(name: string, lastEventId: string | undefined): EventStream {
    const { policy, logger, contiguousIds, onCursor, sink, refreshableToken, maxMessageBytes } = this.#settings;
    const session = name !== CONNECTION_STREAM;
    const stream = new EventStream(
      {
        name,
        policy,
        lastEventId,
        contiguousIds,
        ...(session ? { sessionId: name, fatalStatuses: SESSION_FATAL_STATUSES } : {}),
        ...(onCursor ? { onCursor } : {}),
        ...(refreshableToken ? { refreshableToken } : {}),
        ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
        logger,
        sink,
      },
      this,
    );
    this.#streams.set(name, stream);
    stream.start();
    return stream;
  }

  // --- EventStreamOwner: what each stream asks for and reports ---

  /** The stream's GET; a session's carries the session header. */
  openStream(stream: EventStream, lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    const { http, sessionHeader } = this.#settings;
    const headers = stream.name === CONNECTION_STREAM ? {} : { [sessionHeader!]: stream.name };
    return http.openStream(headers, lastEventId, signal);
  }

  /** The connection stream's status is the connection's; a session stream that opened settles what waited on it. */
  streamStatus(stream: EventStream, status: EventStreamStatus): void {
    const { name } = stream;
    if (name === CONNECTION_STREAM) this.#owner.streamStatus(status);
    else if (status === "reconnecting") this.#losses.reopenFailed(name);
    else if (status === "open") {
      this.#losses.reopened(name);
      this.#early.accepted(name);
      this.#attaching?.get(name)?.settle();
    }
  }

  streamGap(gap: EventGap): void {
    this.#settings.logger.warn("events lost: the server no longer had them", { ...gap });
    this.#owner.gap(gap);
  }

  /** Only the connection stream's attempts are the connection's (`reconnecting$`). */
  streamRetrying(stream: EventStream, attempt: AcpReconnectAttempt): void {
    if (stream.name === CONNECTION_STREAM) this.#owner.reconnecting(attempt);
  }

  /**
   * A server that ends a session's stream without ids to resume from has let go of what it sends
   * until the next GET (the official client fails such requests). A cut or a stall is not that:
   * the servers seen hold a session's output for the next GET (goose, the official SDK's server),
   * so a reopen in time keeps what waits on it; but a server that neither holds output nor gives ids
   * has lost it, so a stream not back within the verdict's bound does not keep requests waiting
   * until the reconnect policy gives up. The stream keeps reopening either way: later events still come.
   */
  streamDropped(stream: EventStream, error: Error): void {
    if (stream.name === CONNECTION_STREAM || stream.resumable) return;
    if (error instanceof StreamEndedError) this.#losses.dropped(stream.name, error);
    else this.#losses.dropped(stream.name, error, { keptByReopen: true });
  }

  streamGaveUp(stream: EventStream, error: Error): void {
    this.#failed(stream.name, error);
  }

  #failed(name: string, error: Error): void {
    const { logger } = this.#settings;
    this.#attaching?.get(name)?.settle(error);
    if (!(error instanceof AcpHttpError)) {
      const cause = error instanceof RetriesExhaustedError ? (error.cause as Error) : error;
      return this.#owner.streamFailed("retries-exhausted", cause);
    }
    if (error.status === 401) return this.#owner.streamFailed("unauthorized", error);
    if (error.status === 404) return this.#owner.streamFailed("connection-lost", error);
    if (name === CONNECTION_STREAM && error.status === 405) {
      // As in MCP: the server offers no standalone stream; answers come in POST bodies or session streams.
      logger.debug("the server has no connection stream (405)");
      this.#streams.delete(name);
      return this.#owner.streamStatus("open");
    }
    if (name === CONNECTION_STREAM) return this.#owner.streamFailed("stream-rejected", error);
    this.#streams.delete(name);
    // Opened ahead of its load (`beforeSend`): a refusal before the answer waits for it, one just after is asked again.
    const early = this.#early.refused(name);
    if (early === "wait") return logger.debug("session stream refused before its load", { session: name });
    if (early === "retry") return void this.#start(name, "0");
    if (error.status === 409) return this.#owner.sessionConflict(name, error);
    // A session stream refused (e.g. not owned here) ends that stream, not the connection.
    logger.warn("session stream refused", { session: name, status: error.status });
    this.#losses.dropped(name, error);
    this.#losses.settle(name);
  }
}

/** Methods that attach an existing session, named in the request: their results carry no `sessionId`. */
const SESSION_FROM_PARAMS: ReadonlySet<string> = new Set(["session/load", "session/resume"]);

/** The session a `session/load` or `session/resume` attaches; undefined for any other method. */
export const loadedSession = (method: string, params: unknown): string | undefined =>
  SESSION_FROM_PARAMS.has(method) ? sessionOf(params) : undefined;

/**
 * Which session streams were opened before their `session/load` or `session/resume` went out (RFD
 * profile), as the official SDK does: some servers (goose) answer the load on that stream and hold the
 * answer until a GET is there. A server may refuse that GET until the session is attached here (qwen:
 * 403), or while its old holder still lets go (409): a refusal before the answer is only noted, since the
 * answer opens the stream again; a GET still pending at the answer is asked once more if refused after it.
 */
export class EarlyLoadStreams {
  // Both made on first use: most connections never load a session (see ResponseHolds.#held).
  /** Opened before their load, which is not answered yet. */
  #unanswered: Set<string> | undefined;
  /** Their load was answered while the stream was there: its next refusal is asked again once. */
  #answered: Set<string> | undefined;

  /** A stream opens for this session's load, before the load goes out. */
  opening(sessionId: string): void {
    (this.#unanswered ??= new Set()).add(sessionId);
  }

  /** The load failed: whether a stream was opened for it, which is then not wanted. */
  failed(sessionId: string | undefined): boolean {
    return sessionId !== undefined && this.#unanswered !== undefined && this.#unanswered.delete(sessionId);
  }

  /** The load was answered; `streaming`: its stream is still there (not refused meanwhile). */
  answered(sessionId: string, streaming: boolean): void {
    if (this.#unanswered?.delete(sessionId) && streaming) (this.#answered ??= new Set()).add(sessionId);
  }

  /** The server accepted the session's GET: a later refusal is not the load's. */
  accepted(sessionId: string): void {
    this.#answered?.delete(sessionId);
  }

  /**
   * The session's GET was refused: "wait" while its load is unanswered (only that answer's refusal
   * counts), "retry" when the answer came before the refusal, undefined when the refusal is not the load's.
   */
  refused(sessionId: string): "wait" | "retry" | undefined {
    if (this.#unanswered?.has(sessionId)) return "wait";
    return this.#answered?.delete(sessionId) ? "retry" : undefined;
  }

  /** The session's stream stopped (it closed): nothing of its load is kept. */
  forget(sessionId: string): void {
    this.#unanswered?.delete(sessionId);
    this.#answered?.delete(sessionId);
  }

  clear(): void {
    this.#unanswered?.clear();
    this.#answered?.clear();
  }
}

/** A loss waiting for its verdict (see `StreamLosses.dropped`). */
interface LossPending {
  cause: Error;
  timer: ReturnType<typeof setTimeout> | undefined;
  keptByReopen: boolean;
  expired: boolean;
}

/** How long a lost stream's verdict waits for the reopen at most (a GET that hangs, a server that is down). */
export const LOSS_VERDICT_MAX_MS = 3000;

/**
 * Session streams ended where the server cannot replay them, waiting for the verdict on what was
 * in flight. A stream that ends on a server without event ids may mean that only the stream ended
 * (it reopens: what was written meanwhile is gone, the requests waiting on it fail as `stream-lost`)
 * or that the connection is gone (the reopen gets 404: the recovery or the close fails everything,
 * and a caller who retries at once finds the recovery under way instead of racing it). So the
 * verdict comes when the stream is open again, when it is given up or its session closed, or after
 * `maxWaitMs` at most; a reset or close of the connection cancels it.
 */
export class StreamLosses {
  /** Made on first use (see EarlyLoadStreams). */
  #pending: Map<string, LossPending> | undefined;
  readonly #maxWaitMs: number;
  /** Told the verdict (`sessionStreamLost`): an object, not a callback (the idle-heap budget, bench 5b). */
  readonly #owner: Pick<StreamsOwner, "sessionStreamLost">;

  constructor(maxWaitMs: number, owner: Pick<StreamsOwner, "sessionStreamLost">) {
    this.#maxWaitMs = maxWaitMs;
    this.#owner = owner;
  }

  /**
   * The session's stream ended (or, `keptByReopen`, was cut) and cannot be replayed; the first
   * loss's cause is kept until the verdict. A cut stream that reopens has lost nothing (the server
   * held its output): its verdict is "lost" only at the first reopen that fails after the bound, so
   * an outage shorter than the bound is forgiven whenever the reconnect schedule's next attempt lands.
   */
  dropped(sessionId: string, cause: Error, options: { keptByReopen?: boolean } = {}): void {
    if (this.#pending?.has(sessionId)) return;
    const keptByReopen = options.keptByReopen === true;
    const pending: LossPending = { cause, keptByReopen, expired: false, timer: undefined };
    pending.timer = setTimeout(() => {
      if (keptByReopen) pending.expired = true;
      else this.settle(sessionId);
    }, this.#maxWaitMs);
    // A verdict pending must never keep a process alive on its own.
    (pending.timer as { unref?: () => void }).unref?.();
    (this.#pending ??= new Map()).set(sessionId, pending);
  }

  /** A reopen of the session's stream failed: a cut stream still down after the bound is lost. */
  reopenFailed(sessionId: string): void {
    const pending = this.#pending?.get(sessionId);
    if (pending?.keptByReopen && pending.expired) this.settle(sessionId);
  }

  /** The session's stream is open again: an ended stream's loss is judged now, a cut one's forgiven. */
  reopened(sessionId: string): void {
    const pending = this.#pending?.get(sessionId);
    if (!pending) return;
    if (!pending.keptByReopen) return this.settle(sessionId);
    clearTimeout(pending.timer);
    this.#pending?.delete(sessionId);
  }

  /** The verdict is in (the stream reopened, or is gone for good): what waited on it is lost. */
  settle(sessionId: string): void {
    const pending = this.#pending?.get(sessionId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.#pending?.delete(sessionId);
    this.#owner.sessionStreamLost(sessionId, pending.cause);
  }

  /** The connection is reset or closed: whoever handles that fails what is in flight. */
  clear(): void {
    if (!this.#pending) return;
    for (const { timer } of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
  }
}
