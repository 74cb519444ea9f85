/**
 * One line of replay text per envelope (or per run of message chunks, which are merged), readable
 * by an agent and much shorter than the JSON-RPC envelope it came from.
 */
export interface ReplaySource {
  eventIndex: number;
  createdAt: number;
  sender: "client" | "agent";
  payload: unknown;
}

export interface ReplayLine {
  text: string;
  first: ReplaySource;
  last: ReplaySource;
  events: number;
}

const OTHER_MAX = 400;
const CHUNK_LABELS: Record<string, string> = {
  agent_message_chunk: "agent",
  agent_thought_chunk: "agent thought",
  user_message_chunk: "user",
};

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function blocksText(blocks: unknown): string {
  if (!Array.isArray(blocks)) return "";
  return blocks.map((block) => str(obj(block)?.text) ?? `[${str(obj(block)?.type) ?? "content"}]`).join("\n");
}

/** The merge key of a chunk (consecutive chunks of one kind become one line), or undefined. */
function chunkKind(payload: Obj): { label: string; text: string } | undefined {
  if (payload.method !== "session/update") return undefined;
  const update = obj(obj(payload.params)?.update);
  const kind = str(update?.sessionUpdate);
  const label = kind === undefined ? undefined : CHUNK_LABELS[kind];
  if (!label) return undefined;
  return { label, text: str(obj(update?.content)?.text) ?? "" };
}

function describe(event: ReplaySource): string | undefined {
  const payload = obj(event.payload) ?? {};
  const method = str(payload.method);
  const params = obj(payload.params);
  if (method === "session/prompt") return `user: ${blocksText(params?.prompt)}`;
  if (method === "session/update") {
    const update = obj(params?.update) ?? {};
    const kind = str(update.sessionUpdate);
    const tool = str(update.title) ?? str(update.toolCallId) ?? "";
    if (kind === "tool_call") return `tool call: ${tool} (${str(update.status) ?? "pending"})`;
    if (kind === "tool_call_update") {
      return `tool call ${str(update.toolCallId) ?? ""}: ${str(update.status) ?? "updated"}`;
    }
    if (kind === "plan" && Array.isArray(update.entries)) {
      const entries = update.entries.map((entry) => {
        const item = obj(entry);
        return `${str(item?.content) ?? ""} [${str(item?.status) ?? ""}]`;
      });
      return `plan: ${entries.join("; ")}`;
    }
    if (kind === "available_commands_update" || kind === "current_mode_update") return undefined;
  }
  // The client's note that a load began (its replay follows as the agent's updates).
  if (method === "session/load") return undefined;
  const result = obj(payload.result);
  if (str(result?.stopReason)) return `(turn ended: ${str(result?.stopReason)})`;
  // Other requests and responses (initialize, session/new, ...) say nothing about the conversation.
  if (method === undefined || payload.id !== undefined) return undefined;
  const json = JSON.stringify(payload);
  return `${event.sender} ${method}: ${json.length > OTHER_MAX ? `${json.slice(0, OTHER_MAX)}…` : json}`;
}

/** The lines of a history, oldest first. */
export function replayLines(events: readonly ReplaySource[]): ReplayLine[] {
  const lines: ReplayLine[] = [];
  let open: { label: string; line: ReplayLine } | undefined;
  for (const event of events) {
    const chunk = chunkKind(obj(event.payload) ?? {});
    if (chunk && open?.label === chunk.label) {
      open.line.text += chunk.text;
      open.line.last = event;
      open.line.events += 1;
      continue;
    }
    open = undefined;
    const text = chunk ? `${chunk.label}: ${chunk.text}` : describe(event);
    const line: ReplayLine = { text: text ?? "", first: event, last: event, events: 1 };
    if (text === undefined) continue;
    lines.push(line);
    if (chunk) open = { label: chunk.label, line };
  }
  return lines;
}
