import { Subject } from "rxjs";
import { BoundedSet } from "./bounded-set.js";
import {
  idKey,
  isRequest,
  isResponse,
  parseEnvelope,
  type AcpEnvelope,
  type AcpRequest,
  type AcpResponse,
  type JsonRpcId,
} from "./envelope.js";
import { AcpMessageTooLargeError } from "./errors/message-too-large-error.js";
import type { RpcCorrelator } from "./rpc-correlator.js";
import type { SseFrame } from "./sse-stream.js";
import { sessionOf } from "./session-of.js";

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

/** How much of an oversized message `AcpParseError.raw` keeps. */
const TOO_LARGE_RAW_CHARS = 1024;

/**
 * Whether the server also puts every response it returns in a POST body on the event
 * stream. `true`: hold each inline response until its stream copy shows where it
 * belongs among the notifications. `"auto"` learns it from the first echo seen.
 */
export type ResponseEcho = boolean | "auto";

export interface InboundOptions {
  correlator: RpcCorrelator;
  responseEcho: ResponseEcho;
  /** How long an inline response waits for its stream copy while the stream is quiet. */
  echoGraceMs: number;
  /** A stream exists (open or coming back): a copy or earlier notifications can still arrive. */
  streamStarted(): boolean;
  /** The stream is connected right now. */
  streamOpen(): boolean;
  onAgentRequest(request: AcpRequest): void;
}

/** The envelope a POST carried: a request's body answers that request (its params name the session). */
export interface SentEnvelope {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

const DELIVERED_MEMORY = 4096;
const SESSION_MEMORY = 1024;
const MAX_HOLD_MS = 30_000;
/**
 * Without stream copies to order by, an inline response for a session waits until that
 * session's updates have been quiet this long (bounded by QUIET_MAX_MS): servers write a
 * turn's updates to the stream before they answer its POST, but the stream's bytes can
 * still be in flight when the POST body arrives. Other sessions' traffic is irrelevant
 * to that order, so it never delays the response.
 */
const QUIET_MS = 25;
const QUIET_MAX_MS = 2000;

interface Held {
  response: AcpResponse;
  /** The request the response answers, when that differs from the id it carries. */
  answers: JsonRpcId | undefined;
  since: number;
  timer: ReturnType<typeof setTimeout>;
}

interface HoldRule {
  firstCheckMs: number;
  quietMs: number;
  waitWhileInactive: boolean;
  maxMs?: number;
  /** Quiet means "no frame of this session"; undefined: no frame at all. */
  session?: string | undefined;
}

/**
 * Merges the two ways envelopes arrive (stream frames and POST bodies) into one
 * ordered, de-duplicated `envelopes`. Each response is delivered once; subscribers
 * see it before the request's promise settles, and, on servers that echo responses,
 * after every notification the agent sent ahead of it.
 */
export class Inbound {
  readonly envelopes = new Subject<AcpEnvelope>();
  readonly parseErrors = new Subject<AcpParseError>();
  readonly #options: InboundOptions;
  readonly #delivered = new BoundedSet(DELIVERED_MEMORY);
  readonly #held = new Map<string, Held>();
  /** When each session last had a frame on any stream (bounded: the oldest entries go first). */
  readonly #sessionFrameAt = new Map<string, number>();
  #echoSeen = false;
  #lastFrameAt = 0;

  constructor(options: InboundOptions) {
    this.#options = options;
  }

  frame(frame: SseFrame, stream: string): void {
    const now = Date.now();
    this.#lastFrameAt = now;
    const parsed = parseEnvelope(frame.data);
    if (!parsed.ok) {
      const eventId = frame.id === undefined ? {} : { eventId: frame.id };
      this.parseErrors.next({ source: "stream", stream, ...eventId, raw: frame.data, error: parsed.error });
      return;
    }
    const session = sessionOf((parsed.envelope as { params?: unknown }).params);
    if (session !== undefined) this.#noteSessionFrame(session, now);
    this.#route(parsed.envelope, true, undefined);
  }

  /**
   * A POST body; `sent` is the envelope that POST carried. A response in the body of a
   * request's POST is that request's answer whatever id it carries (a server answers an
   * unparseable request with `"id": null`). Returns false when it held no usable envelope.
   */
  body(text: string, sent?: SentEnvelope): boolean {
    const parsed = parseEnvelope(text);
    if (!parsed.ok) {
      this.parseErrors.next({ source: "response-body", raw: text, error: parsed.error });
      return false;
    }
    this.#route(parsed.envelope, false, sent);
    return true;
  }

  /** A message over `maxMessageBytes` was dropped: reported, nothing else changes. */
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
    return error;
  }

  /** Delivers held responses (they are real answers) and ends both streams. */
  close(): void {
    for (const [key, held] of [...this.#held]) {
      clearTimeout(held.timer);
      this.#held.delete(key);
      this.#deliver(held.response, false, held.answers);
    }
    this.envelopes.complete();
    this.parseErrors.complete();
  }

  #route(envelope: AcpEnvelope, fromStream: boolean, sent: SentEnvelope | undefined): void {
    if (!isResponse(envelope)) {
      this.envelopes.next(envelope);
      if (isRequest(envelope)) this.#options.onAgentRequest(envelope);
      return;
    }
    const answers = answeredBy(sent, envelope.id);
    const key = idKey(answers ?? envelope.id);
    if (this.#delivered.has(key)) {
      if (fromStream) this.#echoSeen = true;
      return;
    }
    if (fromStream) {
      const held = this.#held.get(key);
      if (held) {
        // The stream copy marks the position; the body copy may carry more detail.
        clearTimeout(held.timer);
        this.#held.delete(key);
        this.#deliver(held.response, false, held.answers);
        return;
      }
      this.#deliver(envelope, true, undefined);
      return;
    }
    if (this.#expectEcho()) {
      // The stream copy normally follows within milliseconds; keep waiting while the
      // stream is busy or reconnecting, when the copy is most likely still on its way.
      const grace = this.#options.echoGraceMs;
      this.#hold(key, envelope, answers, { firstCheckMs: grace, quietMs: grace, waitWhileInactive: true });
      return;
    }
    // No copy will come, but the session's updates sent before this response may still be
    // in flight on the stream (the body can overtake them): deliver once that session is
    // quiet. A response that concerns no session has nothing to wait for.
    const session = sessionOf(sent?.params) ?? sessionOf((envelope as { result?: unknown }).result);
    if (session !== undefined && this.#options.streamStarted()) {
      const rule = { firstCheckMs: 0, quietMs: QUIET_MS, waitWhileInactive: false, maxMs: QUIET_MAX_MS, session };
      this.#hold(key, envelope, answers, rule);
      return;
    }
    this.#deliver(envelope, false, answers);
  }

  /** Delivers once; `answers` settles that request with this response (its own id may be null). */
  #deliver(response: AcpResponse, fromStream: boolean, answers: JsonRpcId | undefined): void {
    const id = answers ?? response.id;
    // A null id names no request: remembering it would drop the next, unrelated one.
    if (id !== null) this.#delivered.add(idKey(id));
    this.envelopes.next(response);
    this.#options.correlator.settle(answers === undefined ? response : { ...response, id: answers }, fromStream);
  }

  #noteSessionFrame(session: string, now: number): void {
    const frames = this.#sessionFrameAt;
    if (!frames.has(session) && frames.size >= SESSION_MEMORY) {
      const oldest = frames.keys().next().value;
      if (oldest !== undefined) frames.delete(oldest);
    }
    frames.set(session, now);
  }

  #expectEcho(): boolean {
    const echo = this.#options.responseEcho;
    return (echo === true || (echo === "auto" && this.#echoSeen)) && this.#options.streamStarted();
  }

  #hold(key: string, response: AcpResponse, answers: JsonRpcId | undefined, rule: HoldRule): void {
    const since = Date.now();
    const maxMs = rule.maxMs ?? MAX_HOLD_MS;
    const lastFrameAt = () =>
      rule.session === undefined ? this.#lastFrameAt : (this.#sessionFrameAt.get(rule.session) ?? 0);
    const check = () => {
      const now = Date.now();
      const last = lastFrameAt();
      const busy = now - last < rule.quietMs;
      const inactive = rule.waitWhileInactive && !this.#options.streamOpen();
      if ((busy || inactive) && now - since < maxMs) {
        // While the stream is down, look again after a quiet period, not in a tight loop.
        entry.timer = setTimeout(check, inactive ? rule.quietMs : Math.max(1, rule.quietMs - (now - last)));
        return;
      }
      this.#held.delete(key);
      this.#deliver(response, false, answers);
    };
    const entry: Held = { response, answers, since, timer: setTimeout(check, rule.firstCheckMs) };
    this.#held.set(key, entry);
  }
}

/** The id of the request `sent` when the response in its POST body carries another one. */
function answeredBy(sent: SentEnvelope | undefined, carried: JsonRpcId): JsonRpcId | undefined {
  if (typeof sent?.method !== "string") return undefined;
  const id = sent.id;
  return (typeof id === "string" || typeof id === "number") && id !== carried ? id : undefined;
}
