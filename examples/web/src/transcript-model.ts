// The transcript as a pure reduction of session events: chunks of one message coalesce into one
// item, tool calls merge their updates by id, the plan keeps its latest entries. Every change bumps
// the item's `rev`, so the view re-renders only what changed.
import type { PlanEntry, SandboxEvent } from "sandbox-agent-rx";

export interface ToolItem {
  type: "tool";
  id: string;
  rev: number;
  title: string;
  kind: string;
  status: string;
  content: unknown[];
  locations: string[];
}

export type Item =
  | { type: "user" | "message" | "thought"; id: string; rev: number; text: string }
  | ToolItem
  | { type: "plan"; id: string; rev: number; entries: PlanEntry[] }
  | { type: "notice"; id: string; rev: number; text: string; tone: "info" | "warn" | "error" };

export interface Transcript {
  items: Item[];
  /** Index of each item by id; shared by successive states, which is safe because items are only appended. */
  index: Map<string, number>;
  /** Incremented by each user prompt: a new turn starts new message, thought and plan items. */
  turn: number;
  seq: number;
}

/** What the page itself adds to the transcript besides the session's events. */
export type LocalEntry =
  | { kind: "user-prompt"; text: string }
  | { kind: "notice"; text: string; tone: "info" | "warn" | "error" };

export const emptyTranscript = (): Transcript => ({ items: [], index: new Map(), turn: 0, seq: 0 });

function put(t: Transcript, item: Item): Transcript {
  const at = t.index.get(item.id);
  const items = t.items.slice();
  if (at === undefined) {
    t.index.set(item.id, items.length);
    items.push(item);
  } else {
    items[at] = item;
  }
  return { ...t, items };
}

function appendText(t: Transcript, type: "user" | "message" | "thought", text: string): Transcript {
  const last = t.items.at(-1);
  if (last && last.type === type) return put(t, { ...last, text: last.text + text, rev: last.rev + 1 });
  const seq = t.seq + 1;
  return put({ ...t, seq }, { type, id: `${type}-${seq}`, rev: 0, text });
}

function mergeTool(t: Transcript, update: Record<string, unknown> & { toolCallId: string }): Transcript {
  const at = t.index.get(`tool-${update.toolCallId}`);
  const previous = at === undefined ? undefined : (t.items[at] as ToolItem);
  const str = (value: unknown, fallback: string): string => (typeof value === "string" && value ? value : fallback);
  const locations = Array.isArray(update.locations)
    ? update.locations.map((l: { path?: unknown }) => String(l.path ?? ""))
    : undefined;
  return put(t, {
    type: "tool",
    id: `tool-${update.toolCallId}`,
    rev: (previous?.rev ?? -1) + 1,
    title: str(update.title, previous?.title ?? update.toolCallId),
    kind: str(update.kind, previous?.kind ?? "other"),
    status: str(update.status, previous?.status ?? "pending"),
    content: Array.isArray(update.content) ? update.content : (previous?.content ?? []),
    locations: locations ?? previous?.locations ?? [],
  });
}

function notice(t: Transcript, text: string, tone: "info" | "warn" | "error"): Transcript {
  const seq = t.seq + 1;
  return put({ ...t, seq }, { type: "notice", id: `notice-${seq}`, rev: 0, text, tone });
}

/** One step of the reduction. */
export function reduce(t: Transcript, entry: SandboxEvent | LocalEntry): Transcript {
  switch (entry.kind) {
    case "user-prompt": {
      const seq = t.seq + 1;
      return put({ ...t, seq, turn: t.turn + 1 }, { type: "user", id: `user-${seq}`, rev: 0, text: entry.text });
    }
    case "notice":
      return notice(t, entry.text, entry.tone);
    case "events-lost":
      return notice(t, `Events ${entry.firstMissing}–${entry.lastMissing} were lost while reconnecting.`, "warn");
    case "session-ended":
      return notice(t, `Session ended: ${entry.reason}${entry.message ? ` (${entry.message})` : ""}`, "error");
    case "agent-exited":
      return notice(t, `The agent process exited (code ${String(entry.exitCode)}).`, "error");
    case "update":
      break;
    default:
      return t;
  }
  const update = entry.update;
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      return appendText(t, "message", update.content.text ?? "");
    case "agent_thought_chunk":
      return appendText(t, "thought", update.content.text ?? "");
    case "user_message_chunk":
      return appendText(t, "user", update.content.text ?? "");
    case "tool_call":
    case "tool_call_update":
      return mergeTool(t, update);
    case "plan": {
      const id = `plan-${t.turn}`;
      const at = t.index.get(id);
      const rev = at === undefined ? 0 : t.items[at]!.rev + 1;
      return put(t, { type: "plan", id, rev, entries: update.entries });
    }
    default:
      return t;
  }
}
