import { splitBatch } from "./batch.js";
import type { AcpParseError, BodyVerdict, Inbound, SentEnvelope } from "./inbound.js";
import { oversize } from "./message-size.js";
import type { SseFrame } from "../internal/sse.js";

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

/** What a batch was, from its members: its answer if any member was, else the most telling failure. */
const VERDICT_RANK: readonly BodyVerdict[] = ["answer", "mismatched", "other", "unparseable"];
