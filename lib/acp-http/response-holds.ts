import type { AcpResponse, JsonRpcId } from "./envelope.js";

/**
 * How a held inline response waits:
 * - `copy-promised`: the server promises a stream copy (`responseEcho: true`). The copy, and
 *   only the copy, shows where the response belongs among the notifications, so it is awaited
 *   however quiet the stream is, bounded by MAX_HOLD_MS and by the stream's fate: no stream
 *   left (closed, given up) releases it (looked at every grace period; a closing or rebuilt
 *   connection releases at once), and so does a reported loss of events (the copy may have
 *   been among them) once the stream has been quiet for the grace period.
 * - `copy-learned`: echo was only inferred (`"auto"` after seeing one): awaited while the
 *   stream is busy or reconnecting, released once it has been quiet for the grace period.
 * - `quiet`: no copy will come. A server writes a turn's updates before it answers the POST,
 *   but on another connection: the answer can arrive first, with those updates still in flight
 *   (or not yet written, when the server's stream writer is a task of its own). So the hold is
 *   measured from the answer's arrival, never from frames before it: released once the
 *   response's session has had no frame for a quiet window since the later of the arrival and
 *   its last frame (each frame restarts it), the window being `quietMs` (the caller's: longer for
 *   a turn's answer) until a read of the stream that carried the session's frames has completed
 *   after the arrival, and QUIET_MS after that (the burst has begun to arrive; the rest of it
 *   follows on the same connection). The release itself waits for I/O already pending (an event
 *   loop held up by other work runs due timers before it reads the bytes that came meanwhile),
 *   and is looked at again if that I/O brought the session's frames. Not while the stream is
 *   reconnecting (what it missed comes when it is back). At most QUIET_MAX_MS in all. Other
 *   sessions' traffic is irrelevant to that order, so it never delays the response.
 */
export type HoldKind = "copy-promised" | "copy-learned" | "quiet";

export interface ResponseHoldsOptions {
  /** The quiet period after which a copy that was not promised is given up on. */
  echoGraceMs: number;
  /** A stream exists (open or coming back): a copy or earlier notifications can still arrive. */
  streamStarted(): boolean;
  /** The stream is connected right now. */
  streamOpen(): boolean;
  /** The stream dropped and is being reopened (not its first opening): what it missed comes when it is back. */
  streamReconnecting(): boolean;
  /** Hands a released response on (delivered, settling its request). */
  release(response: AcpResponse, answers: JsonRpcId | undefined): void;
}

const SESSION_MEMORY = 1024;
const MAX_HOLD_MS = 30_000;
/** The quiet window of a `quiet` hold by default, and of every one once its session's frames came after it. */
export const QUIET_MS = 25;
/**
 * The window of a turn's answer (`session/prompt`) until its updates start to arrive: the answer
 * ends a turn whose updates were all written before it, and a server whose stream writer lags
 * its POST answers (a task of its own, a loaded machine) may start sending them a while after.
 */
export const TURN_QUIET_MS = 100;
/** No `quiet` hold lasts longer, whatever the stream does: nothing can wedge a request on it. */
export const QUIET_MAX_MS = 2000;

/** The quiet window of an answer to `method` before its session's frames came after it. */
export function quietWindowOf(method: unknown): number {
  return method === "session/prompt" ? TURN_QUIET_MS : QUIET_MS;
}

/** Runs `fn` after I/O callbacks already queued (setImmediate), or on the next timer turn in browsers. */
const afterPendingIo: (fn: () => void) => void =
  typeof setImmediate === "function" ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);
/** Frames of one synchronous run that share a clock reading. */
const CLOCK_REUSE = 32;

interface Held {
  readonly response: AcpResponse;
  /** The request the response answers, when that differs from the id it carries. */
  readonly answers: JsonRpcId | undefined;
  readonly kind: HoldKind;
  readonly session: string | undefined;
  readonly since: number;
  /** `quiet`: the window before any of the session's frames came after the answer. */
  readonly quietMs: number;
  /** `quiet`: the session's completed stream reads when the answer arrived. */
  readonly readsAtArrival: number;
  /** When events were last reported lost while this was held (its copy may never come); 0: never. */
  lostAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** What the holds know of one session's stream traffic. */
interface SessionTraffic {
  /** When its last frame arrived. */
  frameAt: number;
  /** Stream reads that carried its frames and have been fully dispatched. */
  reads: number;
}

/**
 * Inline responses waiting for their place in the stream's order, keyed by request id, and
 * the stream activity their release depends on (when the stream, and each session, last had
 * a frame, and how many reads of a session's frames were completed).
 */
export class ResponseHolds {
  readonly #options: ResponseHoldsOptions;
  readonly #held = new Map<string, Held>();
  /** Each session's frames on any stream (bounded: the oldest entries go first). */
  readonly #sessions = new Map<string, SessionTraffic>();
  /** Sessions with frames in the stream read being dispatched now. */
  readonly #inRead = new Set<string>();
  #lastFrameAt = 0;
  /** The session of the last frame, and the time it was recorded at: a repeat changes nothing. */
  #lastSession: string | undefined;
  #lastSessionAt = 0;
  /** The clock as read for the frames of one synchronous run (see #frameClock). */
  #clock: number | undefined;
  #clockUses = 0;
  readonly #forgetClock = () => (this.#clock = undefined);

  constructor(options: ResponseHoldsOptions) {
    this.#options = options;
  }

  /** A frame arrived (for `session`, when its params name one). */
  noteFrame(session: string | undefined): void {
    const now = (this.#lastFrameAt = this.#frameClock());
    if (session === undefined || (session === this.#lastSession && now === this.#lastSessionAt)) return;
    this.#lastSession = session;
    this.#lastSessionAt = now;
    this.#inRead.add(session);
    const sessions = this.#sessions;
    const known = sessions.get(session);
    if (known) {
      known.frameAt = now;
      return;
    }
    if (sessions.size >= SESSION_MEMORY) {
      const oldest = sessions.keys().next().value;
      if (oldest !== undefined) sessions.delete(oldest);
    }
    sessions.set(session, { frameAt: now, reads: 0 });
  }

  /** A stream read (one chunk of bytes) has been fully dispatched: it counts for the sessions it carried. */
  readDone(): void {
    // The next chunk records its sessions afresh, even within the same clock reading.
    this.#lastSession = undefined;
    if (this.#inRead.size === 0) return;
    for (const session of this.#inRead) {
      const traffic = this.#sessions.get(session);
      if (traffic) traffic.reads++;
    }
    // Holds of these sessions may now need a shorter window than their timers were set for.
    if (this.#held.size > 0) {
      for (const [key, held] of [...this.#held]) {
        if (held.kind === "quiet" && held.timer !== undefined && this.#inRead.has(held.session ?? "")) this.#recheck(key, held);
      }
    }
    this.#inRead.clear();
  }

  /**
   * The time of a frame. The frames of one chunk arrive in one synchronous run, microseconds
   * apart: the clock is read once for up to CLOCK_REUSE of them and forgotten when the run
   * ends, instead of once per frame (the quiet periods measured with it are 25 ms and up).
   */
  #frameClock(): number {
    if (this.#clock !== undefined && ++this.#clockUses < CLOCK_REUSE) return this.#clock;
    if (this.#clock === undefined) queueMicrotask(this.#forgetClock);
    this.#clockUses = 0;
    return (this.#clock = Date.now());
  }

  /** `quietMs`: a `quiet` hold's window before its session's frames came after it (default QUIET_MS). */
  hold(
    key: string,
    response: AcpResponse,
    answers: JsonRpcId | undefined,
    kind: HoldKind,
    session?: string,
    quietMs = QUIET_MS,
  ): void {
    const readsAtArrival = session === undefined ? 0 : (this.#sessions.get(session)?.reads ?? 0);
    const since = Date.now();
    const held: Held = { response, answers, kind, session, since, quietMs, readsAtArrival, lostAt: 0, timer: undefined };
    this.#held.set(key, held);
    // Always on a timer, even with nothing to wait for: frames already read get their turn first.
    held.timer = setTimeout(() => this.#check(key, held), this.#waitFor(held, held.since));
  }

  /** Takes the response held under `key` off hold (its stream copy arrived); undefined if none. */
  take(key: string): { response: AcpResponse; answers: JsonRpcId | undefined } | undefined {
    const held = this.#held.get(key);
    if (!held) return undefined;
    clearTimeout(held.timer);
    this.#held.delete(key);
    return held;
  }

  /** Releases everything held, oldest first (they are real answers). */
  releaseAll(): void {
    for (const key of [...this.#held.keys()]) {
      const held = this.take(key);
      if (held) this.#options.release(held.response, held.answers);
    }
  }

  /** Events were lost for good: a promised copy may have been among them. */
  eventsLost(): void {
    for (const [key, held] of [...this.#held]) {
      held.lostAt = Date.now();
      this.#recheck(key, held);
    }
  }

  #recheck(key: string, held: Held): void {
    if (this.#held.get(key) !== held) return;
    clearTimeout(held.timer);
    this.#check(key, held);
  }

  #check(key: string, held: Held): void {
    const wait = this.#waitFor(held, Date.now());
    if (wait > 0) {
      held.timer = setTimeout(() => this.#check(key, held), wait);
      return;
    }
    if (held.kind === "quiet" && !this.#capped(held, Date.now())) return this.#confirm(key, held);
    this.#release(key, held);
  }

  /**
   * A `quiet` hold whose window has passed: released after the I/O already pending has run, unless
   * that brought frames of its session (then the window starts again).
   */
  #confirm(key: string, held: Held): void {
    const traffic = held.session === undefined ? undefined : this.#sessions.get(held.session);
    const frameAt = traffic?.frameAt;
    const reads = traffic?.reads;
    held.timer = undefined;
    afterPendingIo(() => {
      if (this.#held.get(key) !== held) return;
      const now = held.session === undefined ? undefined : this.#sessions.get(held.session);
      const moved = now?.frameAt !== frameAt || now?.reads !== reads;
      if (moved) this.#check(key, held);
      else this.#release(key, held);
    });
  }

  #release(key: string, held: Held): void {
    this.#held.delete(key);
    this.#options.release(held.response, held.answers);
  }

  #capped(held: Held, now: number): boolean {
    return now - held.since >= (held.kind === "quiet" ? QUIET_MAX_MS : MAX_HOLD_MS);
  }

  /** How much longer `held` waits before it is looked at again; 0: release it now. */
  #waitFor(held: Held, now: number): number {
    const left = (held.kind === "quiet" ? QUIET_MAX_MS : MAX_HOLD_MS) - (now - held.since);
    if (left <= 0) return 0;
    if (held.kind === "quiet") return Math.min(this.#quietWait(held, now), left);
    if (!this.#options.streamStarted()) return 0;
    const grace = this.#options.echoGraceMs;
    // Promised and not possibly lost: only the copy (or the stream's end) releases it; look again later.
    if (held.kind === "copy-promised" && held.lostAt === 0) return Math.min(grace, left);
    // Otherwise wait while the stream is busy or reconnecting, when the copy is most likely on its way.
    if (!this.#options.streamOpen()) return Math.min(grace, left);
    const quietFor = now - Math.max(this.#lastFrameAt, held.since, held.lostAt);
    return Math.min(Math.max(0, grace - quietFor), left);
  }

  /** How much longer a `quiet` hold waits for its session's frames (uncapped); 0: its window has passed. */
  #quietWait(held: Held, now: number): number {
    // A reconnecting stream brings what it missed when it is back: wait for it (within the cap).
    if (this.#options.streamReconnecting()) return QUIET_MS;
    const traffic = held.session === undefined ? undefined : this.#sessions.get(held.session);
    // Measured from the arrival: frames before it (a previous turn's) say nothing about this one.
    const last = Math.max(held.since, traffic?.frameAt ?? 0);
    const readAfter = traffic !== undefined && traffic.reads > held.readsAtArrival;
    const window = readAfter ? Math.min(QUIET_MS, held.quietMs) : held.quietMs;
    return Math.max(0, window - (now - last));
  }
}
