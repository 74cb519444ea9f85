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
import { answeredIdOf } from "./oversize-answer.js";
import type { RpcCorrelator } from "./rpc-correlator.js";
import { quietWindowOf, ResponseHolds } from "./response-holds.js";
import type { SseFrame } from "../internal/sse.js";
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
  /** A stream exists (open or coming back): a copy or earlier notifications can still arrive. */
  streamStarted(): boolean;
  /** The stream is connected right now. */
  streamOpen(): boolean;
  /** The stream dropped and is being reopened. */
  streamReconnecting(): boolean;
  onAgentRequest(request: AcpRequest): void;
  /** A `$/cancel_request` notification arrived (called before subscribers see it). */
  onCancelRequest(requestId: unknown): void;
}

/** The envelope a POST carried: a request's body answers that request (its params name the session). */
export interface SentEnvelope {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

const DELIVERED_MEMORY = 4096;
const ECHO_GRACE_MS = 1500;

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
  readonly #holds: ResponseHolds;
  #echoSeen = false;

  constructor(options: InboundOptions) {
    this.#options = options;
    this.#holds = new ResponseHolds({
      echoGraceMs: options.echoGraceMs ?? ECHO_GRACE_MS,
      streamStarted: options.streamStarted,
      streamOpen: options.streamOpen,
      streamReconnecting: options.streamReconnecting,
      release: (response, answers) => this.#deliver(response, false, answers),
    });
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
        this.#options.onCancelRequest((envelope.params as { requestId?: unknown } | undefined)?.requestId);
      }
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
      // The stream copy marks the position; the body copy, when held, may carry more detail.
      const held = this.#holds.take(key);
      if (held) this.#deliver(held.response, false, held.answers);
      else this.#deliver(envelope, true, undefined);
      return;
    }
    const echo = this.#options.responseEcho;
    if ((echo === true || (echo === "auto" && this.#echoSeen)) && this.#options.streamStarted()) {
      this.#holds.hold(key, envelope, answers, echo === true ? "copy-promised" : "copy-learned");
      return;
    }
    // No copy will come, but the session's updates sent before this response may still be
    // in flight on the stream (the body can overtake them): deliver once that session has been
    // quiet since the response came. A response that concerns no session has nothing to wait for.
    const session = sessionOf(sent?.params) ?? sessionOf((envelope as { result?: unknown }).result);
    if (session !== undefined && this.#options.streamStarted()) {
      this.#holds.hold(key, envelope, answers, "quiet", session, quietWindowOf(sent?.method));
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
