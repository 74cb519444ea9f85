import { Subject } from "rxjs";
import { BoundedSet } from "./bounded-set.js";
import { idKey, isRequest, isResponse, parseEnvelope, type AcpEnvelope, type AcpRequest, type AcpResponse } from "./envelope.js";
import type { RpcCorrelator } from "./rpc-correlator.js";
import type { SseFrame } from "./sse-stream.js";

/** A frame or body that was not a JSON-RPC envelope; the stream it came on goes on. */
export interface AcpParseError {
  source: "stream" | "response-body";
  /** The stream's name (`connection` or a session id) for stream frames. */
  stream?: string;
  eventId?: string;
  raw: string;
  error: string;
}

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

const DELIVERED_MEMORY = 4096;
const MAX_HOLD_MS = 30_000;
/**
 * Without stream copies to order by, an inline response waits until the stream has been
 * quiet this long (bounded by QUIET_MAX_MS): servers write a turn's updates to the stream
 * before they answer its POST, but the stream's bytes can still be in flight when the POST
 * body arrives.
 */
const QUIET_MS = 25;
const QUIET_MAX_MS = 2000;

interface Held {
  response: AcpResponse;
  since: number;
  timer: ReturnType<typeof setTimeout>;
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
  #echoSeen = false;
  #lastFrameAt = 0;

  constructor(options: InboundOptions) {
    this.#options = options;
  }

  frame(frame: SseFrame, stream: string): void {
    this.#lastFrameAt = Date.now();
    const parsed = parseEnvelope(frame.data);
    if (!parsed.ok) {
      this.parseErrors.next({ source: "stream", stream, ...(frame.id === undefined ? {} : { eventId: frame.id }), raw: frame.data, error: parsed.error });
      return;
    }
    this.#route(parsed.envelope, true);
  }

  /** A POST body. Returns false when it held no usable envelope. */
  body(text: string): boolean {
    const parsed = parseEnvelope(text);
    if (!parsed.ok) {
      this.parseErrors.next({ source: "response-body", raw: text, error: parsed.error });
      return false;
    }
    this.#route(parsed.envelope, false);
    return true;
  }

  /** Delivers held responses (they are real answers) and ends both streams. */
  close(): void {
    for (const [key, held] of [...this.#held]) {
      clearTimeout(held.timer);
      this.#held.delete(key);
      this.#deliver(held.response, false);
    }
    this.envelopes.complete();
    this.parseErrors.complete();
  }

  #route(envelope: AcpEnvelope, fromStream: boolean): void {
    if (!isResponse(envelope)) {
      this.envelopes.next(envelope);
      if (isRequest(envelope)) this.#options.onAgentRequest(envelope);
      return;
    }
    const key = idKey(envelope.id);
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
        this.#deliver(held.response, false);
        return;
      }
      this.#deliver(envelope, true);
      return;
    }
    if (this.#expectEcho()) {
      // The stream copy normally follows within milliseconds; keep waiting while the
      // stream is busy or reconnecting, when the copy is most likely still on its way.
      this.#hold(key, envelope, { firstCheckMs: this.#options.echoGraceMs, quietMs: this.#options.echoGraceMs, waitWhileInactive: true });
      return;
    }
    if (this.#options.streamStarted()) {
      // No copy will come, but notifications sent before this response may still be in
      // flight on the stream (the body can overtake them): deliver once the stream is quiet.
      this.#hold(key, envelope, { firstCheckMs: 0, quietMs: QUIET_MS, waitWhileInactive: false, maxMs: QUIET_MAX_MS });
      return;
    }
    this.#deliver(envelope, false);
  }

  #deliver(response: AcpResponse, fromStream: boolean): void {
    this.#delivered.add(idKey(response.id));
    this.envelopes.next(response);
    this.#options.correlator.settle(response, fromStream);
  }

  #expectEcho(): boolean {
    const echo = this.#options.responseEcho;
    return (echo === true || (echo === "auto" && this.#echoSeen)) && this.#options.streamStarted();
  }

  #hold(key: string, response: AcpResponse, rule: { firstCheckMs: number; quietMs: number; waitWhileInactive: boolean; maxMs?: number }): void {
    const since = Date.now();
    const maxMs = rule.maxMs ?? MAX_HOLD_MS;
    const check = () => {
      const now = Date.now();
      const busy = now - this.#lastFrameAt < rule.quietMs;
      const inactive = rule.waitWhileInactive && !this.#options.streamOpen();
      if ((busy || inactive) && now - since < maxMs) {
        // While the stream is down, look again after a quiet period, not in a tight loop.
        entry.timer = setTimeout(check, inactive ? rule.quietMs : Math.max(1, rule.quietMs - (now - this.#lastFrameAt)));
        return;
      }
      this.#held.delete(key);
      this.#deliver(response, false);
    };
    const entry: Held = { response, since, timer: setTimeout(check, rule.firstCheckMs) };
    this.#held.set(key, entry);
  }
}
