// The transcript's side of the session's stored history: how the client stores what only it knows
// (a permission's answer, a question's answer) with the history, and how a stored envelope reads
// back as the event or note it was when live, so a reopened session gives the transcript it had.
// The turn's end and its usage are the prompt's stored response; `usageOf` reads that usage live
// and stored alike.
import { envelopeToEvent, type SandboxEvent } from "../events/events.js";
import { isPlainObject, type PlainObject } from "../metadata.js";
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

/**
 * What `readStored` gives for a stored `session/load` (or the v2 draft's `session/resume` with
 * `replayFrom`): the agent's output until the next prompt (v2: until its next state) is its replay.
 */
export const REPLAY_FOLLOWS: unique symbol = Symbol("a session/load: its replay follows");

const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

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
