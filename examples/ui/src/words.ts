// How the app words what the protocol says in codes: stop reasons, permission answers, tool
// statuses, usage, paths. Pure functions of transcript entries, so Node specs can read them.
import type { ToolCallEntry, Transcript, TranscriptEntry } from "sandbox-agent-rx";

type TokenUsage = NonNullable<Transcript["usage"]>;

const STOP_REASONS: Record<string, string> = {
  end_turn: "Done",
  cancelled: "Cancelled",
  max_tokens: "Stopped: the answer reached its token limit",
  max_turn_requests: "Stopped: too many steps in one turn",
  refusal: "The agent refused to go on",
};

/** A turn's stop reason in words ("Done", "Cancelled", …); an unknown one as it came. */
export function stopReasonText(reason: string): string {
  return STOP_REASONS[reason] ?? `Stopped (${reason})`;
}

export interface Notice {
  tone: "info" | "warn" | "error";
  text: string;
}

/** What an entry that is not a message, a tool call or a plan says, as a one-line notice (or nothing). */
export function noticeOf(entry: TranscriptEntry): Notice | undefined {
  switch (entry.kind) {
    case "events-lost":
      return { tone: "warn", text: `Events ${entry.firstMissing}–${entry.lastMissing} were lost while reconnecting.` };
    case "session-ended": {
      const { reason, message } = entry.ended;
      return { tone: "error", text: `Session ended: ${reason}${message ? ` (${message})` : ""}` };
    }
    case "agent-error":
      return { tone: "error", text: entry.message };
    case "turn-end":
      // The usual end says nothing here (the status line says "Done"); anything else is worth a line.
      return entry.stopReason === "end_turn" ? undefined : { tone: "info", text: stopReasonText(entry.stopReason) };
    case "permission": {
      const title = shortTitle(entry.toolCall.title ?? entry.toolCallId);
      switch (entry.status) {
        case "pending":
          return { tone: "warn", text: `${title}: waiting for your answer` };
        case "selected": {
          // The option's own name ("Allow", "Always allow"), never its kind code.
          const name = entry.options.find((o) => o.optionId === entry.optionId)?.name ?? entry.optionId;
          return { tone: "info", text: `${title}: you answered “${name}”` };
        }
        case "cancelled":
          return { tone: "info", text: `${title}: not answered (cancelled)` };
        default:
          return { tone: "info", text: `${title}: the agent withdrew the request` };
      }
    }
    case "notice": {
      // The agent's own severity picks the tone; a custom one reads as information.
      const tone = entry.severity === "error" ? "error" : entry.severity === "warning" ? "warn" : "info";
      return { tone, text: entry.description ? `${entry.title}: ${entry.description}` : entry.title };
    }
    case "compaction":
      return { tone: entry.status === "failed" ? "warn" : "info", text: compactionText(entry) };
    case "mode-change":
      return { tone: "info", text: `Mode: ${entry.modeId}` };
    case "model-change":
      return { tone: "info", text: `Model: ${entry.modelId}` };
    default:
      return undefined;
  }
}

/** A compaction as one line: what the agent did to its context, and the summary it kept once there is one. */
function compactionText(entry: Extract<TranscriptEntry, { kind: "compaction" }>): string {
  switch (entry.status) {
    case "in_progress":
      return "Compacting the conversation…";
    case "failed":
      return `Compaction failed${entry.error ? `: ${entry.error}` : ""}`;
    case "cancelled":
      return "Compaction cancelled";
    default:
      return entry.text ? `Conversation compacted. Kept: ${entry.text}` : "Conversation compacted";
  }
}

/** Entry kinds the transcript does not show (commands and option lists are in the pickers). */
const NOT_SHOWN = new Set(["available-commands", "config-change", "session-info", "raw"]);

/** Whether the transcript shows this entry as a row. */
export function shown(entry: TranscriptEntry): boolean {
  if (NOT_SHOWN.has(entry.kind)) return false;
  return entry.kind !== "turn-end" || entry.stopReason !== "end_turn";
}

/** A path as the user thinks of it: relative to the session's folder when inside it. */
export function relativePath(path: string, cwd: string | undefined): string {
  if (!cwd || cwd === "/") return path;
  const base = cwd.replace(/\/+$/, "");
  if (path === base) return ".";
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
}

/** Every occurrence of the session's folder in a title made relative, then cut to one short line. */
export function shortTitle(title: string, cwd?: string, max = 90): string {
  const base = cwd && cwd !== "/" ? cwd.replace(/\/+$/, "") : undefined;
  let text = base ? title.split(`${base}/`).join("").split(base).join(".") : title;
  text = text.split("\n")[0]!.trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What a tool card's status pill says; a tool left unfinished by a cancelled turn says "cancelled". */
export function toolStatus(tool: ToolCallEntry, cancelled: boolean): string {
  if (cancelled && tool.status !== "completed") return "cancelled";
  return tool.status.replace("_", " ");
}

/**
 * The ids of tool calls that a cancelled turn left unfinished (the agent marks them failed or never
 * finishes them; to the user they were cancelled).
 */
export function cancelledTools(transcript: Transcript): ReadonlySet<string> {
  const out = new Set<string>();
  let open: string[] = [];
  for (let i = 0; i < transcript.size; i++) {
    const entry = transcript.at(i)!;
    if (entry.kind === "user-message" && !entry.replayed) open = [];
    else if (entry.kind === "tool-call") open.push(entry.id);
    else if (entry.kind === "turn-end") {
      if (entry.stopReason === "cancelled") for (const id of open) out.add(id);
      open = [];
    }
  }
  return out;
}

const count = (n: number): string => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n.toLocaleString("en-US"));

/** Usage in one line ("1,234 tokens · context 12k / 200k · 0.01 USD"), or nothing when none was reported. */
export function usageText(usage: TokenUsage | undefined): string {
  if (!usage) return "";
  const parts: string[] = [];
  const total = usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  if (total > 0) parts.push(`${count(total)} tokens`);
  if (usage.contextUsed !== undefined && usage.contextSize) {
    parts.push(`context ${count(usage.contextUsed)} / ${count(usage.contextSize)}`);
  }
  if (usage.cost) parts.push(`${usage.cost.amount.toFixed(2)} ${usage.cost.currency}`);
  return parts.join(" · ");
}

export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** A short relative time ("3 min ago") for list metadata. */
export function ago(time: string | number | undefined | null, now = Date.now()): string {
  if (time === undefined || time === null) return "";
  const ms = now - new Date(time).getTime();
  if (!Number.isFinite(ms)) return "";
  if (ms < 60_000) return "just now";
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h ago`;
  return new Date(time).toLocaleDateString();
}
