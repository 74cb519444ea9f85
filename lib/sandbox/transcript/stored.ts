// The transcript's side of the session's stored history: how the client stores what only it knows
// (a permission's answer, a question's answer) with the history, and how a stored envelope reads
// back as the event or note it was when live, so a reopened session gives the transcript it had.
// The turn's end and its usage are the prompt's stored response; `usageOf` reads that usage live
// and stored alike.
import { envelopeToEvent, type SandboxEvent } from "../events/events.js";
import { isPlainObject, numberOf, type PlainObject } from "../metadata.js";
import type { HistoryEvent } from "../persistence/history.js";
import type { TokenUsage, TranscriptBlock, TranscriptNote, TranscriptSource } from "./model.js";

/** The `_meta` keys of a stored answer: a permission's, a question's. */
const PERMISSION_NOTE = "sandbox-agent-rx/permission";
const INPUT_NOTE = "sandbox-agent-rx/input";

/**
 * How the client stores a permission answer with the session's history (a client-sent response whose
 * `_meta` names the tool call), so a reopened session shows how each request was answered.
 */
export function permissionAnswerPayload(note: Extract<TranscriptNote, { kind: "permission-answered" }>): PlainObject {
  const { toolCallId, outcome, optionId } = note;
  const answer = outcome === "selected" ? { outcome, optionId } : { outcome: "cancelled" };
  return {
    jsonrpc: "2.0",
    result: { outcome: answer },
    _meta: { [PERMISSION_NOTE]: { toolCallId, outcome, ...(optionId !== undefined ? { optionId } : {}) } },
  };
}

/**
 * How the client stores the answer to a question with the session's history (a client-sent response
 * whose `_meta` names the request; the form's values are not kept), so a reopened session shows it.
 */
export function inputAnswerPayload(note: Extract<TranscriptNote, { kind: "input-answered" }>): PlainObject {
  const { requestId, action } = note;
  const result = { action: action === "withdrawn" ? "cancel" : action };
  return { jsonrpc: "2.0", result, _meta: { [INPUT_NOTE]: { requestId, action } } };
}

/** The `_meta` key of a stored message chunk: the stored id of the event that began its message. */
const MESSAGE_NOTE = "sandbox-agent-rx/message";
const MESSAGE_CHUNKS = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

/**
 * Which message each recorded chunk without a `messageId` belongs to, stamped on the chunk as it is
 * recorded: the stored id of the chunk that began the message. A view that starts in the middle of a
 * message (its first chunks evicted by a bounded store) still names it by its first chunk, so the
 * message's id does not depend on what the store still holds (`TranscriptBuilder` reads the stamp).
 *
 * A message runs while the session's recorded events are chunks of one kind; anything else recorded
 * for the session ends it (a prompt, a tool call, an answer), except what never makes an entry
 * (`usage_update`, an empty or contentless chunk). The builder reads a stamp only to name a new entry;
 * where chunks coalesce does not depend on it.
 */
export class MessageStamps {
  /** Per agent session: the chunk kind of the message running and the id of its first chunk. */
  readonly #open = new Map<string, { kind: string; start: string }>();

  /** `payload`, to be recorded under `id` for the agent session `sessionId`: stamped when it is a chunk. */
  stamp(sessionId: string, id: string, sender: "agent" | "client", payload: unknown): unknown {
    const start = this.#follow(sessionId, id, sender, payload);
    if (start === undefined) return payload;
    const envelope = payload as PlainObject & { params: PlainObject & { update: PlainObject } };
    const { params } = envelope;
    const meta = { ...(isPlainObject(params.update._meta) ? params.update._meta : {}), [MESSAGE_NOTE]: start };
    return { ...envelope, params: { ...params, update: { ...params.update, _meta: meta } } };
  }

  /**
   * One stored event of a session taken over from stored history (a reloaded page), oldest first: a
   * message the earlier client was recording when it stopped goes on under the same stamp.
   */
  followStored(sessionId: string, event: { id: string; sender: string; payload: unknown }): void {
    this.#follow(sessionId, event.id, event.sender, event.payload, true);
  }

  /** Moves the session's running message on by one event; the stamp of a chunk, else undefined. */
  #follow(sessionId: string, id: string, sender: string, payload: unknown, stored = false): string | undefined {
    const envelope = isPlainObject(payload) ? payload : {};
    const params = isPlainObject(envelope.params) ? envelope.params : undefined;
    const update = sender === "agent" && envelope.method === "session/update" && isPlainObject(params?.update)
      ? params.update
      : undefined;
    const kind = update?.sessionUpdate;
    if (update === undefined || typeof kind !== "string" || !(MESSAGE_CHUNKS.has(kind) || kind === "usage_update")) {
      this.#open.delete(sessionId);
      return undefined;
    }
    const content = update.content;
    const empty = !isPlainObject(content) || (content.type === "text" && (content.text ?? "") === "");
    if (kind === "usage_update" || (update.messageId === undefined && empty)) return undefined;
    if (update.messageId !== undefined) {
      this.#open.delete(sessionId);
      return undefined;
    }
    // A stored chunk says which message it was part of (one stored before stamps: none, so none goes on).
    const open = this.#open.get(sessionId);
    const start = stored ? messageStamp(update) : open?.kind === kind ? open.start : id;
    if (start === undefined) this.#open.delete(sessionId);
    else this.#open.set(sessionId, { kind, start });
    return start;
  }

  /** The session is no longer recorded (or ended): its running message ends. */
  forget(sessionId: string): void {
    this.#open.delete(sessionId);
  }
}

/** The stamp `MessageStamps` put on a stored chunk, when it has one (older stored chunks have none). */
export function messageStamp(update: PlainObject): string | undefined {
  const meta = isPlainObject(update._meta) ? update._meta[MESSAGE_NOTE] : undefined;
  return typeof meta === "string" ? meta : undefined;
}

/**
 * What `readStored` gives for a stored `session/load` (or the v2 draft's `session/resume` with
 * `replayFrom`): the agent's output until the next prompt (v2: until its next state) is its replay.
 */
export const REPLAY_FOLLOWS: unique symbol = Symbol("a session/load: its replay follows");

const num = numberOf;

/** A stored envelope, told from a live event or a note by its shape. */
export function isHistoryEvent(source: TranscriptSource): source is HistoryEvent {
  return !("kind" in source) && "payload" in source && "sender" in source;
}

/**
 * A stored envelope as the event or note it was when live, `REPLAY_FOLLOWS` for a `session/load`, or
 * undefined: nothing for the transcript.
 */
export function readStored(event: HistoryEvent): SandboxEvent | TranscriptNote | typeof REPLAY_FOLLOWS | undefined {
  const payload = event.payload as PlainObject;
  const params = isPlainObject(payload.params) ? payload.params : {};
  const sessionId = event.sessionId;
  if (event.sender === "client") {
    if (payload.method === "session/prompt" && Array.isArray(params.prompt)) {
      return { kind: "prompt-sent", sessionId, prompt: params.prompt.filter(isPlainObject) as TranscriptBlock[] };
    }
    if (payload.method === "session/load") return REPLAY_FOLLOWS;
    // The v2 draft's load: a resume that asks for a replay (`replayFrom` given and not null).
    if (payload.method === "session/resume" && isPlainObject(params.replayFrom)) return REPLAY_FOLLOWS;
    const note = isPlainObject(payload._meta) ? payload._meta[PERMISSION_NOTE] : undefined;
    if (isPlainObject(note) && typeof note.toolCallId === "string") return permissionNote(sessionId, note);
    const answered = isPlainObject(payload._meta) ? payload._meta[INPUT_NOTE] : undefined;
    if (isPlainObject(answered) && typeof answered.requestId === "string") return inputNote(sessionId, answered);
    return undefined;
  }
  if (payload.method === undefined) {
    // A response: the stored end of a turn (or its failure).
    if (isPlainObject(payload.result) && typeof payload.result.stopReason === "string") {
      const usage = usageOf(payload.result.usage);
      return { kind: "turn-ended", sessionId, stopReason: payload.result.stopReason, ...(usage ? { usage } : {}) };
    }
    if (isPlainObject(payload.error)) {
      const code = num(payload.error.code);
      const message = String(payload.error.message ?? "error");
      return { kind: "turn-failed", sessionId, message, ...(code !== undefined ? { code } : {}) };
    }
    return undefined;
  }
  return envelopeToEvent(payload as Parameters<typeof envelopeToEvent>[0]);
}

function permissionNote(sessionId: string, note: PlainObject): TranscriptNote {
  const outcome = note.outcome === "selected" || note.outcome === "withdrawn" ? note.outcome : "cancelled";
  return {
    kind: "permission-answered",
    sessionId,
    toolCallId: String(note.toolCallId),
    outcome,
    ...(typeof note.optionId === "string" ? { optionId: note.optionId } : {}),
  };
}

function inputNote(sessionId: string, note: PlainObject): TranscriptNote {
  const known = ["accept", "decline", "cancel", "withdrawn"] as const;
  const action = known.find((a) => a === note.action) ?? "cancel";
  return { kind: "input-answered", sessionId, requestId: String(note.requestId), action };
}

/** ACP's prompt result `usage` (unstable) as token usage. */
export function usageOf(value: unknown): TokenUsage | undefined {
  if (!isPlainObject(value)) return undefined;
  const usage: TokenUsage = {};
  const keys = [
    "inputTokens",
    "outputTokens",
    "totalTokens",
    "thoughtTokens",
    "cachedReadTokens",
    "cachedWriteTokens",
  ] as const;
  for (const key of keys) {
    const n = num(value[key]);
    if (n !== undefined) usage[key] = n;
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}
