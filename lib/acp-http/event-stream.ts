// One Server-Sent Events stream that comes back after a drop: the GET, the cursor (Last-Event-ID,
// duplicate and gap detection), the reconnect loop with backoff, and the verdict when it ends.
import { Observable, defer, retry, timer, type Subscriber, type Subscription } from "rxjs";
import { AcpHttpError } from "./errors.js";
import type { AcpLogger } from "../internal/logger.js";
import { reconnectDelay, type AcpReconnectAttempt, type NormalizedReconnectPolicy } from "../internal/backoff.js";
import { readSseBody, type OversizedSseEvent, type SseFrame, type SseReadCallbacks } from "../internal/sse.js";
import { afterPendingIo } from "../internal/abort.js";
import type { FrameSink } from "./response-order.js";

/** Events a stream could not deliver because the server no longer had them. */
export interface EventGap {
  /** The stream's name: `connection`, or the session id of a session-scoped stream. */
  stream: string;
  /** Set when the gap happened on a per-session stream: only that session's events were lost. */
  sessionId?: string;
  firstMissing: number;
  lastMissing: number;
}

/** A stream's cursor moved: persist `lastEventId` to resume that stream later. */
export interface CursorAdvance {
  /** The stream's name: `connection`, or the session id of a session-scoped stream. */
  stream: string;
  /** Set for a per-session stream. */
  sessionId?: string;
  lastEventId: string;
}

/** Room for an event's own framing (`id:`, `data:` prefixes, line ends) in the reader's bound. */
const EVENT_FRAMING_CHARS = 1024;

export type EventStreamStatus = "connecting" | "open" | "reconnecting";

/** One stream's settings (plain values, and the sink its frames go to), given by whoever makes it. */
export interface EventStreamSettings {
  name: string;
  policy: NormalizedReconnectPolicy;
  lastEventId: string | undefined;
  /**
   * The server numbers this stream's events 1, 2, 3, ... without holes, so a skipped
   * number is a lost event. Default true. False: ids are opaque, no gap is ever inferred.
   */
  contiguousIds?: boolean;
  /** The session a per-session stream belongs to; set on its gaps and cursor advances. */
  sessionId?: string;
  logger: AcpLogger;
  /**
   * Where its frames go, each with the stream's name, and each completed read (`readDone`: a
   * chunk of bytes whose frames have all been handed over), and the events too large to read.
   */
  sink: FrameSink;
  /**
   * `maxMessageBytes`: an event past it (counted in characters, which UTF-8 never has more of than
   * bytes) is skipped and handed to `sink.tooLarge`; the sink's own check counts bytes. Default: the
   * SSE reader's own bound.
   */
  maxMessageBytes?: number;
  /**
   * The user's cursor callback (option `onCursor`), handed through as it is: called when the cursor
   * moved past an accepted frame, before the frame is dispatched. Without it no advance is built.
   */
  onCursor?: ((advance: CursorAdvance) => void) | undefined;
  /** Statuses that end the stream at once instead of being retried. Default {@link FATAL_STATUSES}. */
  fatalStatuses?: ReadonlySet<number>;
  /**
   * The token comes from a function, asked before each GET: a 401/403 then gets one more GET at
   * once (with what the function gives now) before it ends the stream.
   */
  refreshableToken?: boolean;
}

/**
 * What a stream asks of the one that owns it (its GET) and tells it, besides frames (those go to
 * its sink). Each method names the stream, so one owner serves all its streams. `SessionStreams`
 * implements it.
 */
export interface EventStreamOwner {
  /** Opens the stream's GET from `lastEventId`; `signal` ends it. The stream retries a failed one. */
  openStream(stream: EventStream, lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  streamStatus(stream: EventStream, status: EventStreamStatus): void;
  /** Events the server could no longer replay (found on the first frame after an open). */
  streamGap(gap: EventGap): void;
  /** A reconnect attempt is scheduled (not the immediate reopen that recovers skipped ids). */
  streamRetrying(stream: EventStream, attempt: AcpReconnectAttempt): void;
  /** An open stream was lost (ended, failed or stalled), before it is reopened or given up; see `resumable`. */
  streamDropped(stream: EventStream, error: Error): void;
  /** The stream gave up: retries exhausted or an answer that retrying cannot change. */
  streamGaveUp(stream: EventStream, error: Error): void;
}

/** The stream ended cleanly; for a long-lived stream that is still a reason to reconnect. */
export class StreamEndedError extends Error {
  override name = "StreamEndedError";
}

/** Ids skipped mid-stream: reopen at once from the cursor so the server replays them. */
class GapRecoveryError extends Error {
  override name = "GapRecoveryError";
}

class StreamStalledError extends Error {
  override name = "StreamStalledError";
}

/** Every reconnect attempt failed; `cause` is the last failure. */
export class RetriesExhaustedError extends Error {
  override name = "RetriesExhaustedError";
}

/** Statuses that retrying cannot change. 409 is left out: a server may still hold the previous stream's slot. */
export const FATAL_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 405, 406, 410, 415, 422]);

/**
 * One logical SSE stream: opens the GET, follows the `Last-Event-ID` cursor, drops
 * replayed frames, recovers id gaps by reopening from the last contiguous id, and
 * reconnects with backoff. A gap found on the first frame after an open cannot be
 * recovered (the server replayed what it had) and is reported to its owner (`streamGap`).
 */
export class EventStream {
  readonly #options: EventStreamSettings;
  readonly #owner: EventStreamOwner;
  readonly #cursor: EventCursor;
  #serverRetryMs: number | undefined;
  #subscription: Subscription | undefined;
  #stopped = false;
  /** The attempt under way got its stream open: its loss is a drop (`streamDropped`). */
  #opened = false;
  /** A refused GET was tried once more with a fresh token since the stream was last open. */
  #askedAgain = false;
  #resumable: boolean;
  /** The reader's bound on one event, in characters (see `EventStreamSettings.maxMessageBytes`). */
  readonly #maxEventChars: number | undefined;

  constructor(options: EventStreamSettings, owner: EventStreamOwner) {
    this.#options = options;
    // The reader counts the field names and line ends of what it holds too: a little room for them, so
    // an event near the limit is judged by the sink's byte count of its data alone.
    const limit = options.maxMessageBytes;
    this.#maxEventChars = limit === undefined ? undefined : limit + EVENT_FRAMING_CHARS;
    this.#owner = owner;
    this.#cursor = new EventCursor(options.lastEventId, { contiguous: options.contiguousIds ?? true });
    // A stored cursor came from a server that numbers its events; "0" only asks for the whole history.
    const seed = options.lastEventId;
    this.#resumable = seed !== undefined && seed !== "" && seed !== "0";
  }

  /** `connection`, or the session id of a session-scoped stream. */
  get name(): string {
    return this.#options.name;
  }

  get lastEventId(): string | undefined {
    return this.#cursor.lastEventId;
  }

  /**
   * The server has given this stream event ids (or the stored cursor it started from): a reopen
   * can ask it to replay what was written meanwhile. False: whatever the server wrote while no
   * stream was attached may be gone.
   */
  get resumable(): boolean {
    return this.#resumable;
  }

  start(): void {
    if (this.#subscription || this.#stopped) return;
    this.#owner.streamStatus(this, "connecting");
    this.#subscription = defer(() => this.#attempt())
      .pipe(retry({ resetOnSuccess: true, delay: (error: Error, count) => this.#retryDelay(error, count) }))
      .subscribe(new StreamDelivery(this, this.#options.sink));
  }

  /** Every attempt failed, or one failed in a way retrying cannot change (`StreamDelivery.error`). */
  gaveUp(error: Error): void {
    if (!this.#stopped) this.#owner.streamGaveUp(this, error);
  }

  stop(): void {
    if (!this.#stopped && this.#subscription) this.#options.logger.debug("event stream stopped", this.#names());
    this.#stopped = true;
    this.#subscription?.unsubscribe();
  }

  #attempt(): Observable<SseFrame> {
    return new Observable<SseFrame>((subscriber) => {
      const attempt = new StreamAttempt(this, subscriber, this.#options.policy.stallTimeoutMs, this.#options.sink);
      // A GET that never answers its headers is a stall too.
      attempt.arm();
      void this.#run(attempt);
      return attempt;
    });
  }

  /** One attempt's GET, then its body to the end; any failure ends the attempt (unless it was torn down). */
  async #run(attempt: StreamAttempt): Promise<void> {
    try {
      const response = await this.#owner.openStream(this, this.#cursor.lastEventId, attempt.controller.signal);
      if (attempt.ended) {
        // Torn down while opening (a fetch that ignored its signal): do not read, release the socket.
        await response.body?.cancel().catch(() => undefined);
        return;
      }
      this.#opened = true;
      this.#askedAgain = false;
      const { logger } = this.#options;
      logger.debug("event stream open", { ...this.#names(), lastEventId: this.#cursor.lastEventId });
      this.#owner.streamStatus(this, "open");
      // The watchdog runs only while we wait for the server's bytes, never while our
      // own consumers process a chunk: a slow subscriber is not a stalled server.
      await readSseBody(response.body as ReadableStream<Uint8Array>, attempt, this.#maxEventChars);
      if (!attempt.ended) {
        logger.debug("event stream closed by the server", this.#names());
        attempt.fail(new StreamEndedError("event stream ended"));
      }
    } catch (error) {
      if (!attempt.ended) {
        this.#options.logger.debug("event stream failed", { ...this.#names(), error: (error as Error).message });
        attempt.fail(error as Error);
      }
    }
  }

  /** A frame of the attempt under way (`StreamAttempt.onFrame`, while it has not ended). */
  attemptFrame(attempt: StreamAttempt, frame: SseFrame): void {
    if (this.#accept(attempt, frame.id)) attempt.subscriber.next(frame);
  }

  /**
   * An event of the attempt too large to read: reported as too large, and its id counts as read (a
   * reconnect would only replay it).
   */
  attemptTooLarge(attempt: StreamAttempt, event: OversizedSseEvent): void {
    if (this.#accept(attempt, event.id)) this.#options.sink.tooLarge(event.chars, event.head, this.#options.name);
  }

  /** Moves the cursor for an event's id; false when the event is not to be delivered (a replay, a gap). */
  #accept(attempt: StreamAttempt, id: string | undefined): boolean {
    // A new id moves the cursor here; a gap moves it only once accepted, after it was reported.
    const verdict = this.#cursor.take(id);
    if (verdict.kind === "duplicate") return false;
    if (verdict.kind === "gap") {
      if (!attempt.first) {
        attempt.fail(new GapRecoveryError(`ids ${verdict.firstMissing}..${verdict.lastMissing} skipped`));
        return false;
      }
      this.#owner.streamGap({
        ...this.#names(),
        firstMissing: verdict.firstMissing,
        lastMissing: verdict.lastMissing,
      });
      this.#cursor.advance(id);
    }
    attempt.first = false;
    // The advance is built only for a listener (an optional call skips its argument otherwise).
    if (id !== undefined && id !== "") {
      this.#resumable = true;
      this.#options.onCursor?.(this.#advanceTo(id));
    }
    return true;
  }

  /** The server's `retry:` field: the delay before the next reconnect. */
  serverRetry(ms: number): void {
    this.#serverRetryMs = ms;
  }

  #retryDelay(error: Error, attempt: number): Observable<number> {
    if (error instanceof GapRecoveryError) {
      this.#options.logger.debug("event stream: recovering skipped ids", {
        stream: this.#options.name,
        detail: error.message,
      });
      return timer(0);
    }
    if (this.#opened) {
      this.#opened = false;
      this.#owner.streamDropped(this, error);
    }
    const refused = error instanceof AcpHttpError && (error.status === 401 || error.status === 403);
    if (refused && this.#options.refreshableToken && !this.#askedAgain) {
      this.#askedAgain = true;
      this.#options.logger.debug("event stream: credentials refused, asking the token function again, one retry", {
        ...this.#names(),
        status: error.status,
      });
      return timer(0);
    }
    const fatal = this.#options.fatalStatuses ?? FATAL_STATUSES;
    if (error instanceof AcpHttpError && fatal.has(error.status)) throw error;
    if (attempt > this.#options.policy.maxRetries) {
      throw new RetriesExhaustedError(`event stream: ${this.#options.policy.maxRetries} reconnect attempts failed`, {
        cause: error,
      });
    }
    const delay = reconnectDelay(this.#options.policy, attempt, this.#serverRetryMs);
    this.#options.logger.debug("event stream: reconnecting", {
      stream: this.#options.name,
      attempt,
      delay,
      reason: error.message,
    });
    this.#owner.streamStatus(this, "reconnecting");
    const maxAttempts = this.#options.policy.maxRetries;
    this.#owner.streamRetrying(this, { attempt, maxAttempts, nextDelayMs: delay, cause: error, kind: "stream" });
    return timer(delay);
  }

  /** A fresh advance per call: the listener may keep it. Built without the spread of `#names()`. */
  #advanceTo(lastEventId: string): CursorAdvance {
    const { name: stream, sessionId } = this.#options;
    return sessionId === undefined ? { stream, lastEventId } : { stream, sessionId, lastEventId };
  }

  #names(): { stream: string; sessionId?: string } {
    const { name, sessionId } = this.#options;
    return sessionId === undefined ? { stream: name } : { stream: name, sessionId };
  }
}

/** Where a stream's frames go, and its end: an object, not two closures (see StreamAttempt). */
class StreamDelivery {
  constructor(
    readonly stream: EventStream,
    readonly sink: FrameSink,
  ) {}

  next(frame: SseFrame): void {
    this.sink.frame(frame, this.stream.name);
  }

  error(error: Error): void {
    this.stream.gaveUp(error);
  }
}

/**
 * One attempt of a stream: its GET's abort, whether it has ended, whether its first frame is still
 * to come, and the stall watchdog; the body reader's callbacks and the attempt's teardown. A class,
 * not closures: an idle connection keeps its stream's attempt while the GET is open, and bench
 * scenario 5b holds the heap an idle connection may keep (bench/README.md, "Targets").
 *
 * The watchdog: `arm` when we start waiting for bytes, `pause` when they arrive. When the timer
 * fires it looks once more after pending I/O has run: an event loop blocked by other work may hold
 * bytes that already arrived, and those are not a stall.
 */
class StreamAttempt implements SseReadCallbacks {
  readonly controller = new AbortController();
  /** No frame accepted yet: a gap now is what the server could not replay, not one to recover. */
  first = true;
  ended = false;
  #stallTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every arm and pause: a late check from an earlier wait does nothing. */
  #wait = 0;

  constructor(
    readonly stream: EventStream,
    readonly subscriber: Subscriber<SseFrame>,
    /** 0 or undefined: no watchdog. */
    readonly stallTimeoutMs: number | undefined,
    readonly sink: FrameSink,
  ) {}

  fail(error: Error): void {
    this.ended = true;
    this.subscriber.error(error);
  }

  arm(): void {
    const limit = this.stallTimeoutMs;
    if (!limit) return;
    this.pause();
    const current = this.#wait;
    this.#stallTimer = setTimeout(
      () =>
        afterPendingIo(
          () => this.#wait === current && this.fail(new StreamStalledError("no data within the stall timeout")),
        ),
      limit,
    );
  }

  pause(): void {
    if (this.#stallTimer !== undefined) clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
    this.#wait++;
  }

  // --- SseReadCallbacks ---

  /** Waiting again means the previous chunk has been dispatched. */
  onWaiting(): void {
    this.arm();
    this.sink.readDone();
  }

  onActivity(): void {
    this.pause();
  }

  onRetry(ms: number): void {
    this.stream.serverRetry(ms);
  }

  onFrame(frame: SseFrame): void {
    if (!this.ended) this.stream.attemptFrame(this, frame);
  }

  onTooLarge(event: OversizedSseEvent): void {
    if (!this.ended) this.stream.attemptTooLarge(this, event);
  }

  /** The teardown (the attempt failed, was retried or the stream stopped): the GET ends. */
  unsubscribe(): void {
    this.ended = true;
    this.pause();
    this.controller.abort();
  }
}

/**
 * The `Last-Event-ID` cursor of one stream, and the rule that tells a new frame from
 * a replayed one and a contiguous one from one after a hole.
 *
 * SSE ids are opaque cursors. Only a server that promises contiguous numbering (1, 2,
 * 3, ... per stream, as the sandbox-agent servers do) lets decimal ids be read as a
 * sequence, which makes dedupe O(1) and gaps detectable; that promise is the
 * `contiguous` option. Without it, and for any non-decimal id, ids are deduped against
 * a bounded set and never checked for gaps (ids 10, 20, 30 are then just three events).
 */
export type CursorVerdict =
  | { readonly kind: "new" }
  | { readonly kind: "duplicate" }
  | { readonly kind: "gap"; readonly firstMissing: number; readonly lastMissing: number };

// Every frame gets a verdict: the two common ones are shared constants, not a fresh object each.
const NEW: CursorVerdict = Object.freeze({ kind: "new" });
const DUPLICATE: CursorVerdict = Object.freeze({ kind: "duplicate" });

/** Longest id read as a number: 15 digits stay exact in a double. */
const MAX_DIGITS = 15;
const OPAQUE_MEMORY = 1024;
/** What `#sequenceNumber` returns for an id that is not read as a number. */
const OPAQUE = -1;

export interface EventCursorOptions {
  /** The server numbers this stream's events 1, 2, 3, ... with no holes. Default true. */
  contiguous?: boolean;
}

export class EventCursor {
  #last: string | undefined;
  #lastNumber = 0;
  /** Made with the first opaque id: a contiguous stream never needs it. */
  #opaqueSeen: Set<string> | undefined;
  readonly #contiguous: boolean;

  constructor(seed?: string, options: EventCursorOptions = {}) {
    this.#contiguous = options.contiguous ?? true;
    if (seed !== undefined && seed !== "") this.advance(seed);
  }

  /** The id to send as `Last-Event-ID` on the next reconnect. */
  get lastEventId(): string | undefined {
    return this.#last;
  }

  /** Judges a frame's id without moving the cursor. */
  check(id: string | undefined): CursorVerdict {
    if (id === undefined || id === "") return NEW;
    return this.#judge(id, this.#sequenceNumber(id));
  }

  /** Moves the cursor to a frame that has been accepted. */
  advance(id: string | undefined): void {
    if (id === undefined || id === "") return;
    this.#move(id, this.#sequenceNumber(id));
  }

  /**
   * `check`, then `advance` when the verdict is new, reading the id once: the per-frame path.
   * A gap only is reported; the caller decides whether to accept it (`advance`) or recover.
   */
  take(id: string | undefined): CursorVerdict {
    if (id === undefined || id === "") return NEW;
    const n = this.#sequenceNumber(id);
    const verdict = this.#judge(id, n);
    if (verdict === NEW) this.#move(id, n);
    return verdict;
  }

  #judge(id: string, n: number): CursorVerdict {
    if (n === OPAQUE) return this.#opaqueSeen?.has(id) ? DUPLICATE : NEW;
    const last = this.#lastNumber;
    if (n <= last) return DUPLICATE;
    if (n > last + 1) return { kind: "gap", firstMissing: last + 1, lastMissing: n - 1 };
    return NEW;
  }

  #move(id: string, n: number): void {
    this.#last = id;
    if (n !== OPAQUE) {
      this.#lastNumber = n;
      return;
    }
    const seen = (this.#opaqueSeen ??= new Set());
    seen.add(id);
    if (seen.size > OPAQUE_MEMORY) {
      const oldest = seen.values().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
  }

  /**
   * The id as a sequence number when the stream is contiguous and the id is 1 to 15 ASCII
   * digits (what /^\d{1,15}$/ accepts), else OPAQUE. Read digit by digit: no regex and no
   * second pass through Number() on every frame.
   */
  #sequenceNumber(id: string): number {
    if (!this.#contiguous || id.length > MAX_DIGITS) return OPAQUE;
    let n = 0;
    for (let i = 0; i < id.length; i++) {
      const digit = id.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return OPAQUE;
      n = n * 10 + digit;
    }
    return n;
  }
}
