import type { Sender } from "./schemas.js";

/** What identifies one envelope on one connection, for `eventIdentity`. */
export interface IdentitySource {
  connectionId: string;
  sender: Sender;
  payload: { id?: unknown; method?: unknown };
  /** The SSE `id:` the envelope arrived with, when it came on a stream. */
  streamEventId?: string;
  /** Which stream of the connection (per-session streams number their events separately). */
  stream?: string;
  /** A per-connection counter, for envelopes that have neither a stream id nor a JSON-RPC id. */
  sequence?: number;
}

/**
 * The store key that makes "written once" hold across replays: a stream event is the same event
 * when its connection, stream and SSE id are (a `Last-Event-ID` replay repeats exactly those); a
 * request or response is the same when its direction, kind and JSON-RPC id on that connection are.
 * Content is never used: an agent may legitimately send the same chunk twice.
 */
export function eventIdentity(source: IdentitySource): string {
  const { connectionId, payload } = source;
  if (source.streamEventId !== undefined && source.streamEventId !== "") {
    return `sse:${connectionId}:${source.stream ?? ""}:${source.streamEventId}`;
  }
  if (payload.id !== undefined) {
    const kind = typeof payload.method === "string" ? "request" : "response";
    return `${source.sender}:${kind}:${connectionId}:${typeof payload.id}:${String(payload.id)}`;
  }
  if (source.sequence === undefined) {
    throw new TypeError("eventIdentity: a notification without a stream id needs a sequence number");
  }
  return `seq:${connectionId}:${source.sender}:${source.sequence}`;
}
