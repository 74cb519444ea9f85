// Renders the SDK's transcript (`session(id).transcript$`) into a container. Snapshots share every
// entry that did not change, so an entry whose object is the one rendered last time is skipped.
import type { Transcript, TranscriptEntry } from "sandbox-agent-rx";
import { h } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { renderToolCall } from "./tool-call-view.js";

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
      // The usual end says nothing; anything else (cancelled, max_tokens, refusal) is worth a line.
      return entry.stopReason === "end_turn" ? undefined : { tone: "info", text: `Turn ended: ${entry.stopReason}` };
    case "permission": {
      const title = entry.toolCall.title ?? entry.toolCallId;
      const answer = entry.status === "selected"
        ? `answered ${entry.options.find((o) => o.optionId === entry.optionId)?.name ?? entry.optionId}`
        : entry.status;
      return { tone: entry.status === "pending" ? "warn" : "info", text: `Permission for “${title}”: ${answer}` };
    }
    case "mode-change":
      return { tone: "info", text: `Mode: ${entry.modeId}` };
    case "model-change":
      return { tone: "info", text: `Model: ${entry.modelId}` };
    default:
      return undefined;
  }
}

export class TranscriptView {
  readonly #root: HTMLElement;
  readonly #rendered = new Map<string, { entry: TranscriptEntry; element: HTMLElement }>();

  constructor(root: HTMLElement) {
    this.#root = root;
  }

  render(transcript: Transcript): void {
    const visible = transcript.entries.filter(shown);
    if (visible.length === 0) {
      this.#root.replaceChildren(h("div", { class: "transcript-empty" }, h("b", {}, "No messages yet"),
        "Send a prompt below: the plan, the agent's thinking, its tool calls and its answer stream in here."));
      this.#rendered.clear();
      return;
    }
    this.#root.querySelector(".transcript-empty")?.remove();
    // Follow the stream only when the reader is already at the bottom.
    const scroller = this.#root.parentElement ?? this.#root;
    const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
    for (const entry of visible) {
      const seen = this.#rendered.get(entry.id);
      if (seen?.entry === entry) continue;
      const element = seen?.element ?? h("div", { "data-id": entry.id });
      this.#fill(entry, element);
      if (!seen) this.#root.append(element);
      this.#rendered.set(entry.id, { entry, element });
    }
    if (atBottom) scroller.scrollTop = scroller.scrollHeight;
  }

  #fill(entry: TranscriptEntry, element: HTMLElement): void {
    switch (entry.kind) {
      case "user-message":
        element.className = entry.replayed ? "item user replayed" : "item user";
        element.replaceChildren(h("div", { class: "bubble" }, entry.text));
        return;
      case "agent-message":
        element.className = "item message markdown";
        element.innerHTML = renderMarkdown(entry.text);
        return;
      case "thought": {
        const open = element.querySelector("details")?.open ?? false;
        element.className = "item thought";
        element.replaceChildren(
          h("details", { open }, h("summary", {}, "Thinking…"), h("p", { class: "thought-text" }, entry.text)),
        );
        return;
      }
      case "tool-call":
        renderToolCall(entry, element);
        return;
      case "plan":
        element.className = "item plan";
        element.replaceChildren(
          h("div", { class: "plan-title" }, "Plan"),
          h("ol", {}, ...entry.entries.map((step) =>
            h("li", { class: `plan-${step.status ?? "pending"}`, "data-priority": step.priority }, step.content))),
        );
        return;
      default: {
        const notice = noticeOf(entry);
        if (!notice) return;
        element.className = `item notice notice-${notice.tone}`;
        element.textContent = notice.text;
      }
    }
  }
}

const NOT_SHOWN = new Set(["available-commands", "config-change", "session-info", "raw"]);

/** Entries this page shows (commands and raw option lists are in the pickers, not the transcript). */
function shown(entry: TranscriptEntry): boolean {
  if (NOT_SHOWN.has(entry.kind)) return false;
  return entry.kind !== "turn-end" || entry.stopReason !== "end_turn";
}
