// Response ordering: what happens to a frame until its envelope is delivered. A frame (SSE data,
// WebSocket text, POST body) enters at takeFrame/takeBody: size checked, batch split, each member
// parsed once (Inbound). Each response is delivered once; one that would overtake its session's
// earlier events is held until they arrive or a quiet window passes (ResponseHolds). Delivery
// settles the call it answers in the correlator (call-correlation.ts, imported for its type only).
import { LazySubject } from "../internal/lazy-subject.js";
import {
  isRequest,
  isResponse,
  parseEnvelope,
  type AcpEnvelope,
  type AcpRequest,
  type AcpResponse,
  type JsonRpcId,
  answeredIdOf,
  sessionOf,
  splitBatch,
  oversize,
} from "./envelope.js";
import { AcpMessageTooLargeError } from "./errors.js";
import type { SseFrame } from "../internal/sse.js";
import { afterPendingIo } from "../internal/abort.js";
import { FanOutSubject } from "../internal/fan-out-subject.js";
import { ACP_DEFAULTS } from "./defaults.js";
import type { RpcCorrelator } from "./call-correlation.js";

/** A frame or body that was not a JSON-RPC envelope; the stream it came on goes on. */
export interface AcpParseError {
  source: "stream" | "response-body" | "websocket";
  /** The stream's name (`connection` or a session id) for stream frames. */
  stream?: string;
  eventId?: string;
  raw: string;
  error: string;
  /** Set when the message was dropped for exceeding `maxMessageBytes` (`raw` is then its first KiB). */
  tooLarge?: AcpMessageTooLargeError;
}

/**
 * What a POST body was to the request it carried: `answer` (a response taken as its answer, or,
 * for a POST that was not a request, any routed response), `other` (a valid envelope that is no
 * response: a notification, an agent request), `mismatched` (a response carrying another request's
 * id: ignored, since taking it for this request's answer would settle it with a wrong result) or
 * `unparseable` (no JSON-RPC envelope at all; reported on `parseErrors`).
 */
export type BodyVerdict = "answer" | "other" | "mismatched" | "unparseable";

/** How much of an oversized message `AcpParseError.raw` keeps. */
const TOO_LARGE_RAW_CHARS = 1024;

/**
 * Whether the server also puts every response it returns in a POST body on the event
 * stream. `true` (a promise, e.g. sandbox-agent 0.4.2): each inline response waits for its
 * stream copy, which shows where it belongs among the notifications, however long the
 * stream lags, until the stream is gone or 30 s have passed. `"auto"` learns it from the
 * first echo seen and then waits for copies only while the stream is busy or reconnecting,
 * giving up after 1.5 s of quiet: a server that never promised copies may not send them
 * all. `false`: no copies; an inline response waits for its session's updates in flight: until
 * that session's stream has been quiet for 25 ms since the response came (100 ms for a turn's
 * answer until the turn's updates start to arrive), at most 2 s.
 */
export type ResponseEcho = boolean | "auto";

export interface InboundOptions {
  correlator: RpcCorrelator;
  responseEcho: ResponseEcho;
  /** How long an inline response waits for a copy that was not promised while the stream is quiet. Default 1.5 s. */
  echoGraceMs?: number;
}

/**
 * What the inbound asks of the connection that owns it, and tells it. One object with methods
 * rather than a callback each, for the idle-heap budget (bench scenario 5b, see `Connection`).
 * `Connection` implements it.
 */
export interface InboundOwner {
  /** A stream exists (open or coming back): a copy or earlier notifications can still arrive. */
  streamStarted(): boolean;
  /** The stream is connected right now. */
  streamOpen(): boolean;
  /** The stream dropped and is being reopened. */
  streamReconnecting(): boolean;
  agentRequest(request: AcpRequest): void;
  /** A `$/cancel_request` notification arrived (called before subscribers see it). */
  agentWithdrew(requestId: unknown): void;
}

/** The envelope a POST carried: a request's body answers that request (its params name the session). */
export interface SentEnvelope {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

/**
 * Told of each notification right after it is delivered on `envelopes` (a v2 connection's turns and
 * update check, v2-turns.ts), as a call is settled right after its response is delivered.
 */
export interface DeliveredObserver {
  observe(envelope: AcpEnvelope, fromStream: boolean): void;
}

const DELIVERED_MEMORY = 4096;
const ECHO_GRACE_MS = ACP_DEFAULTS.echoGraceMs;

/**
 * Merges the two ways envelopes arrive (stream frames and POST bodies) into one
 * ordered, de-duplicated `envelopes`. Each response is delivered once; subscribers
 * see it before the request's promise settles, and, on servers that echo responses,
 * after every notification the agent sent ahead of it.
 */
export class Inbound implements ResponseHoldsOptions {
  /** Often subscribed many times over (each session view, each consumer): see FanOutSubject. */
  readonly envelopes = new FanOutSubject<AcpEnvelope>();
  /** Made when first read (LazySubject): most connections never watch it. */
  readonly parseErrors = new LazySubject<AcpParseError>();
  /** The holds' options are the inbound itself (no callbacks: the idle-heap budget, bench scenario 5b). */
  readonly echoGraceMs: number;
  /** Set once a connection has negotiated a protocol that reads its notifications (ACP v2). */
  delivered: DeliveredObserver | undefined;
  readonly #options: InboundOptions;
  readonly #owner: InboundOwner;
  readonly #delivered = new BoundedSet<JsonRpcId>(DELIVERED_MEMORY);
  readonly #holds: ResponseHolds;
  #echoSeen = false;

  constructor(options: InboundOptions, owner: InboundOwner) {
    this.#options = options;
    this.#owner = owner;
    this.echoGraceMs = options.echoGraceMs ?? ECHO_GRACE_MS;
    this.#holds = new ResponseHolds(this);
  }

  // --- ResponseHoldsOptions: what the holds ask (the owner answers) and the release of a held response ---

  streamStarted(): boolean {
    return this.#owner.streamStarted();
  }

  streamOpen(): boolean {
    return this.#owner.streamOpen();
  }

  streamReconnecting(): boolean {
    return this.#owner.streamReconnecting();
  }

  /** A held response's turn came: delivered, settling its request. */
  release(response: AcpResponse, answers: JsonRpcId | undefined): void {
    this.#deliver(response, false, answers);
  }

  frame(frame: SseFrame, stream: string): void {
    const parsed = parseEnvelope(frame.data);
    if (!parsed.ok) {
      this.#holds.noteFrame(undefined);
      const eventId = frame.id === undefined ? {} : { eventId: frame.id };
      this.parseErrors.next({ source: "stream", stream, ...eventId, raw: frame.data, error: parsed.error });
      return;
    }
    this.#holds.noteFrame(sessionOf((parsed.envelope as { params?: unknown }).params));
    this.#route(parsed.envelope, true, undefined);
  }

  /**
   * A POST body; `sent` is the envelope that POST carried. A response in the body of a
   * request's POST answers that request when it carries the request's id, or `"id": null`
   * (a server answers a request it could not parse so). A response with any other id is
   * not taken for anything (the request's sender fails the request); see `BodyVerdict`.
   */
  body(text: string, sent?: SentEnvelope): BodyVerdict {
    const parsed = parseEnvelope(text);
    if (!parsed.ok) {
      this.parseErrors.next({ source: "response-body", raw: text, error: parsed.error });
      return "unparseable";
    }
    const { envelope } = parsed;
    if (!isResponse(envelope)) {
      this.#route(envelope, false, sent);
      return "other";
    }
    const request = requestIdOf(sent);
    if (request !== undefined && envelope.id !== null && envelope.id !== request) return "mismatched";
    this.#route(envelope, false, sent);
    return "answer";
  }

  /**
   * A stream or socket message over `maxMessageBytes` was dropped: reported, and when its head
   * shows it answers a request of ours, that request fails with the error (else it would wait on).
   */
  tooLarge(
    source: AcpParseError["source"],
    raw: string,
    bytes: number,
    limit: number,
    stream?: string,
  ): AcpMessageTooLargeError {
    const error = new AcpMessageTooLargeError(source, bytes, limit);
    const where = stream === undefined ? {} : { stream };
    this.parseErrors.next({
      source,
      ...where,
      raw: raw.slice(0, TOO_LARGE_RAW_CHARS),
      error: error.message,
      tooLarge: error,
    });
    // A POST body's request is failed by its sender, which knows which request it answers.
    const answers = source === "response-body" ? undefined : answeredIdOf(raw);
    if (answers !== undefined) this.#options.correlator.reject(answers, error);
    return error;
  }

  /** A stream read (one chunk, or one socket message) has been fully dispatched. */
  readDone(): void {
    this.#holds.readDone();
  }

  /** Events were lost for good (a reported gap): a copy being waited for may have been among them. */
  eventsLost(): void {
    this.#holds.eventsLost();
  }

  /**
   * Delivers held responses now (a connection being rebuilt): they are real answers, and the
   * stream their copies would come on is going away.
   */
  releaseHeld(): void {
    this.#holds.releaseAll();
  }

  /** Delivers held responses (they are real answers) and ends both streams. */
  close(): void {
    this.#holds.releaseAll();
    this.envelopes.complete();
    this.parseErrors.complete();
  }

  #route(envelope: AcpEnvelope, fromStream: boolean, sent: SentEnvelope | undefined): void {
    if (!isResponse(envelope)) {
      // Checked here rather than by a subscriber of its own: this runs for every envelope.
      if (envelope.method === "$/cancel_request" && !("id" in envelope)) {
        this.#owner.agentWithdrew((envelope.params as { requestId?: unknown } | undefined)?.requestId);
      }
      this.envelopes.next(envelope);
      if (isRequest(envelope)) this.#owner.agentRequest(envelope);
      else this.delivered?.observe(envelope, fromStream);
      return;
    }
    const answers = answeredBy(sent, envelope.id);
    // The id itself is the key (a Set and a Map keep `"8"` and `8` apart as the wire does): no string
    // is built per response, and none is kept in the delivered memory for thousands of responses.
    const key = answers ?? envelope.id;
    if (this.#delivered.has(key)) {
      if (fromStream) this.#echoSeen = true;
      return;
    }
    if (fromStream) {
      // The stream copy marks the position; the body copy, when held, may carry more detail.
      const held = this.#holds.take(key);
      if (held) this.#deliver(held.response, false, held.answers);
      else this.#deliver(envelope, true, undefined);
      return;
    }
    const echo = this.#options.responseEcho;
    if ((echo === true || (echo === "auto" && this.#echoSeen)) && this.#owner.streamStarted()) {
      this.#holds.hold(key, envelope, answers, echo === true ? "copy-promised" : "copy-learned");
      return;
    }
    // No copy will come, but the session's updates sent before this response may still be
    // in flight on the stream (the body can overtake them): deliver once that session has been
    // quiet since the response came. A response that concerns no session has nothing to wait for.
    const session = sessionOf(sent?.params) ?? sessionOf((envelope as { result?: unknown }).result);
    if (session !== undefined && this.#owner.streamStarted()) {
      this.#holds.hold(key, envelope, answers, "quiet", session, quietWindowOf(sent?.method));
      return;
    }
    this.#deliver(envelope, false, answers);
  }

  /** Delivers once; `answers` settles that request with this response (its own id may be null). */
  #deliver(response: AcpResponse, fromStream: boolean, answers: JsonRpcId | undefined): void {
    const id = answers ?? response.id;
    // A null id names no request: remembering it would drop the next, unrelated one.
    if (id !== null) this.#delivered.add(id);
    this.envelopes.next(response);
    this.#options.correlator.settle(answers === undefined ? response : { ...response, id: answers }, fromStream);
  }
}

/** The id of the request `sent` when the response in its POST body carries `null` instead. */
function answeredBy(sent: SentEnvelope | undefined, carried: JsonRpcId): JsonRpcId | undefined {
  return carried === null ? requestIdOf(sent) : undefined;
}

/** The id of `sent` when it is a request (a method and an id); undefined for notifications and answers. */
export function requestIdOf(sent: SentEnvelope | undefined): string | number | undefined {
  if (typeof sent?.method !== "string") return undefined;
  const id = sent.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * How raw text reaches the inbound: a stream frame over the size limit becomes a parse
 * error, and a batch (in a frame or a POST body) is taken member by member.
 */

/** A stream or WebSocket frame; a batch's members each go under the frame's event id. */
export function takeFrame(
  inbound: Inbound,
  frame: SseFrame,
  stream: string,
  limit: number,
  source: Extract<AcpParseError["source"], "stream" | "websocket">,
): void {
  const bytes = oversize(frame.data, limit);
  if (bytes !== undefined) {
    inbound.tooLarge(source, frame.data, bytes, limit, stream);
    return;
  }
  const members = splitBatch(frame.data);
  if (!members) return inbound.frame(frame, stream);
  for (const data of members) inbound.frame({ ...frame, data }, stream);
}

/** A POST body answering `sent`; a batch is that request's answer when one of its members is. */
export function takeBody(inbound: Inbound, text: string, sent: SentEnvelope): BodyVerdict {
  const members = splitBatch(text);
  if (!members) return inbound.body(text, sent);
  const verdicts = members.map((member) => inbound.body(member, sent));
  return VERDICT_RANK.find((verdict) => verdicts.includes(verdict)) ?? "unparseable";
}

/**
 * What a transport hands the JSON-RPC core: the one interface between the two. Both transports
 * deliver text frames of a named stream (`connection`, or a session id in the RFD profile; a
 * WebSocket message is one frame of `connection`) and say when a read's frames have all been
 * handed over, which the ordering holds count. A message over the size limit comes as its head.
 * (POST answer bodies go from the outbox to `takeBody`: they answer one known request.)
 */
export interface FrameSink {
  frame(frame: SseFrame, stream: string): void;
  readDone(): void;
  tooLarge(bytes: number, head: string, stream: string): void;
}

/** The core's side of `FrameSink`: the size rule and the batch split (`takeFrame`), then the inbound. */
export class FrameIntake implements FrameSink {
  readonly #inbound: Inbound;
  readonly #limit: number;
  readonly #source: "stream" | "websocket";

  constructor(inbound: Inbound, limit: number, source: "stream" | "websocket") {
    this.#inbound = inbound;
    this.#limit = limit;
    this.#source = source;
  }

  frame(frame: SseFrame, stream: string): void {
    takeFrame(this.#inbound, frame, stream, this.#limit, this.#source);
  }

  readDone(): void {
    this.#inbound.readDone();
  }

  tooLarge(bytes: number, head: string, stream: string): void {
    this.#inbound.tooLarge(this.#source, head, bytes, this.#limit, stream);
  }
}

/** What a batch was, from its members: its answer if any member was, else the most telling failure. */
const VERDICT_RANK: readonly BodyVerdict[] = ["answer", "mismatched", "other", "unparseable"];

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
  // This map and the two below are made on first use: an idle connection holds nothing and may
  // never see a session's frame, and each empty Map or Set costs it ~150 bytes.
  #held: Map<JsonRpcId, Held> | undefined;
  /** Each session's frames on any stream (bounded: the oldest entries go first). */
  #sessions: Map<string, SessionTraffic> | undefined;
  /** Sessions with frames in the stream read being dispatched now. */
  #inRead: Set<string> | undefined;
  #lastFrameAt = 0;
  /** The session of the last frame, and the time it was recorded at: a repeat changes nothing. */
  #lastSession: string | undefined;
  #lastSessionAt = 0;
  /** The clock as read for the frames of one synchronous run (see #frameClock). */
  #clock: number | undefined;
  #clockUses = 0;
  /** Made with the first frame: an idle connection has none. */
  #forgetClock: (() => void) | undefined;

  constructor(options: ResponseHoldsOptions) {
    this.#options = options;
  }

  /** A frame arrived (for `session`, when its params name one). */
  noteFrame(session: string | undefined): void {
    const now = (this.#lastFrameAt = this.#frameClock());
    if (session === undefined || (session === this.#lastSession && now === this.#lastSessionAt)) return;
    this.#lastSession = session;
    this.#lastSessionAt = now;
    (this.#inRead ??= new Set()).add(session);
    const sessions = (this.#sessions ??= new Map());
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
    const inRead = this.#inRead;
    if (inRead === undefined || inRead.size === 0) return;
    for (const session of inRead) {
      const traffic = this.#sessions?.get(session);
      if (traffic) traffic.reads++;
    }
    // Holds of these sessions may now need a shorter window than their timers were set for.
    if (this.#held !== undefined && this.#held.size > 0) {
      for (const [key, held] of [...this.#held]) {
        const inThisRead = inRead.has(held.session ?? "");
        if (held.kind === "quiet" && held.timer !== undefined && inThisRead) this.#recheck(key, held);
      }
    }
    inRead.clear();
  }

  /**
   * The time of a frame. The frames of one chunk arrive in one synchronous run, microseconds
   * apart: the clock is read once for up to CLOCK_REUSE of them and forgotten when the run
   * ends, instead of once per frame (the quiet periods measured with it are 25 ms and up).
   */
  #frameClock(): number {
    if (this.#clock !== undefined && ++this.#clockUses < CLOCK_REUSE) return this.#clock;
    if (this.#clock === undefined) queueMicrotask((this.#forgetClock ??= () => (this.#clock = undefined)));
    this.#clockUses = 0;
    return (this.#clock = Date.now());
  }

  /** `quietMs`: a `quiet` hold's window before its session's frames came after it (default QUIET_MS). */
  hold(
    key: JsonRpcId,
    response: AcpResponse,
    answers: JsonRpcId | undefined,
    kind: HoldKind,
    session?: string,
    quietMs = QUIET_MS,
  ): void {
    const readsAtArrival = session === undefined ? 0 : (this.#sessions?.get(session)?.reads ?? 0);
    const since = Date.now();
    const held: Held = {
      response,
      answers,
      kind,
      session,
      since,
      quietMs,
      readsAtArrival,
      lostAt: 0,
      timer: undefined,
    };
    (this.#held ??= new Map()).set(key, held);
    // Always on a timer, even with nothing to wait for: frames already read get their turn first.
    held.timer = setTimeout(() => this.#check(key, held), this.#waitFor(held, held.since));
  }

  /** Takes the response held under `key` off hold (its stream copy arrived); undefined if none. */
  take(key: JsonRpcId): { response: AcpResponse; answers: JsonRpcId | undefined } | undefined {
    const held = this.#held?.get(key);
    if (!held) return undefined;
    clearTimeout(held.timer);
    this.#held?.delete(key);
    return held;
  }

  /** Releases everything held, oldest first (they are real answers). */
  releaseAll(): void {
    if (this.#held === undefined) return;
    for (const key of [...this.#held.keys()]) {
      const held = this.take(key);
      if (held) this.#options.release(held.response, held.answers);
    }
  }

  /** Events were lost for good: a promised copy may have been among them. */
  eventsLost(): void {
    for (const [key, held] of [...(this.#held ?? [])]) {
      held.lostAt = Date.now();
      this.#recheck(key, held);
    }
  }

  #recheck(key: JsonRpcId, held: Held): void {
    if (this.#held?.get(key) !== held) return;
    clearTimeout(held.timer);
    this.#check(key, held);
  }

  #check(key: JsonRpcId, held: Held): void {
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
  #confirm(key: JsonRpcId, held: Held): void {
    const traffic = held.session === undefined ? undefined : this.#sessions?.get(held.session);
    const frameAt = traffic?.frameAt;
    const reads = traffic?.reads;
    held.timer = undefined;
    afterPendingIo(() => {
      if (this.#held?.get(key) !== held) return;
      const now = held.session === undefined ? undefined : this.#sessions?.get(held.session);
      const moved = now?.frameAt !== frameAt || now?.reads !== reads;
      if (moved) this.#check(key, held);
      else this.#release(key, held);
    });
  }

  #release(key: JsonRpcId, held: Held): void {
    this.#held?.delete(key);
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
    const traffic = held.session === undefined ? undefined : this.#sessions?.get(held.session);
    // Measured from the arrival: frames before it (a previous turn's) say nothing about this one.
    const last = Math.max(held.since, traffic?.frameAt ?? 0);
    const readAfter = traffic !== undefined && traffic.reads > held.readsAtArrival;
    const window = readAfter ? Math.min(QUIET_MS, held.quietMs) : held.quietMs;
    return Math.max(0, window - (now - last));
  }
}

/**
 * A set that forgets its oldest keys past a fixed size: dedupe memory that stays
 * bounded however long a connection lives.
 */
export class BoundedSet<K> {
  readonly #keys = new Set<K>();
  readonly #limit: number;
  // Insertion order, used as a ring once full: the oldest key is found by index. (Asking
  // the set for its first key takes a fresh iterator per add, which also walks past the
  // entries deleted before it: about 1 µs per delivered response, against 0.4 µs now.)
  // It grows with use, so an idle connection does not pay for the full size.
  readonly #order: K[] = [];
  #oldest = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  has(key: K): boolean {
    return this.#keys.has(key);
  }

  add(key: K): void {
    if (this.#keys.has(key) || this.#limit <= 0) return;
    this.#keys.add(key);
    if (this.#order.length < this.#limit) {
      this.#order.push(key);
      return;
    }
    this.#keys.delete(this.#order[this.#oldest] as K);
    this.#order[this.#oldest] = key;
    this.#oldest = (this.#oldest + 1) % this.#limit;
  }

  get size(): number {
    return this.#keys.size;
  }
}
