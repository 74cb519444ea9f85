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
 * - `quiet`: no copy will come; released once the response's session has been quiet for
 *   QUIET_MS (servers write a turn's updates before answering its POST, but those bytes can
 *   still be in flight when the body arrives), at most QUIET_MAX_MS. Other sessions'
 *   traffic is irrelevant to that order, so it never delays the response.
 */
export type HoldKind = "copy-promised" | "copy-learned" | "quiet";

export interface ResponseHoldsOptions {
  /** The quiet period after which a copy that was not promised is given up on. */
  echoGraceMs: number;
  /** A stream exists (open or coming back): a copy or earlier notifications can still arrive. */
  streamStarted(): boolean;
  /** The stream is connected right now. */
  streamOpen(): boolean;
  /** Hands a released response on (delivered, settling its request). */
  release(response: AcpResponse, answers: JsonRpcId | undefined): void;
}

const SESSION_MEMORY = 1024;
const MAX_HOLD_MS = 30_000;
const QUIET_MS = 25;
const QUIET_MAX_MS = 2000;
/** Frames of one synchronous run that share a clock reading. */
const CLOCK_REUSE = 32;

interface Held {
  readonly response: AcpResponse;
  /** The request the response answers, when that differs from the id it carries. */
  readonly answers: JsonRpcId | undefined;
  readonly kind: HoldKind;
  readonly session: string | undefined;
  readonly since: number;
  /** When events were last reported lost while this was held (its copy may never come); 0: never. */
  lostAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Inline responses waiting for their place in the stream's order, keyed by request id, and
 * the stream activity their release depends on (when the stream, and each session, last had
 * a frame).
 */
export class ResponseHolds {
  readonly #options: ResponseHoldsOptions;
  readonly #held = new Map<string, Held>();
  /** When each session last had a frame on any stream (bounded: the oldest entries go first). */
  readonly #sessionFrameAt = new Map<string, number>();
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
    const frames = this.#sessionFrameAt;
    // Full: one lookup more to see whether `session` would be a new entry.
    if (frames.size >= SESSION_MEMORY && !frames.has(session)) {
      const oldest = frames.keys().next().value;
      if (oldest !== undefined) frames.delete(oldest);
    }
    frames.set(session, now);
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

  hold(key: string, response: AcpResponse, answers: JsonRpcId | undefined, kind: HoldKind, session?: string): void {
    const held: Held = { response, answers, kind, session, since: Date.now(), lostAt: 0, timer: undefined };
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
    this.#held.delete(key);
    this.#options.release(held.response, held.answers);
  }

  /** How much longer `held` waits before it is looked at again; 0: release it now. */
  #waitFor(held: Held, now: number): number {
    const left = (held.kind === "quiet" ? QUIET_MAX_MS : MAX_HOLD_MS) - (now - held.since);
    if (left <= 0) return 0;
    if (held.kind === "quiet") {
      const last = held.session === undefined ? 0 : (this.#sessionFrameAt.get(held.session) ?? 0);
      return Math.min(Math.max(0, QUIET_MS - (now - last)), left);
    }
    if (!this.#options.streamStarted()) return 0;
    const grace = this.#options.echoGraceMs;
    // Promised and not possibly lost: only the copy (or the stream's end) releases it; look again later.
    if (held.kind === "copy-promised" && held.lostAt === 0) return Math.min(grace, left);
    // Otherwise wait while the stream is busy or reconnecting, when the copy is most likely on its way.
    if (!this.#options.streamOpen()) return Math.min(grace, left);
    const quietFor = now - Math.max(this.#lastFrameAt, held.since, held.lostAt);
    return Math.min(Math.max(0, grace - quietFor), left);
  }
}
