// Renders the transcript model into a container, touching only the items whose `rev` changed.
import { h } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { renderToolCall } from "./tool-call-view.js";
import type { Item, Transcript } from "./transcript-model.js";

export class TranscriptView {
  readonly #root: HTMLElement;
  readonly #rendered = new Map<string, { rev: number; element: HTMLElement }>();

  constructor(root: HTMLElement) {
    this.#root = root;
  }

  render(transcript: Transcript): void {
    if (transcript.items.length === 0) {
      this.#root.replaceChildren(h("div", { class: "transcript-empty" }, h("b", {}, "No messages yet"),
        "Send a prompt below: the plan, the agent's thinking, its tool calls and its answer stream in here."));
      return;
    }
    this.#root.querySelector(".transcript-empty")?.remove();
    // Follow the stream only when the reader is already at the bottom.
    const scroller = this.#root.parentElement ?? this.#root;
    const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
    for (const item of transcript.items) {
      const seen = this.#rendered.get(item.id);
      if (seen?.rev === item.rev) continue;
      const element = seen?.element ?? h("div", { "data-id": item.id });
      this.#fill(item, element);
      if (!seen) this.#root.append(element);
      this.#rendered.set(item.id, { rev: item.rev, element });
    }
    if (atBottom) scroller.scrollTop = scroller.scrollHeight;
  }

  #fill(item: Item, element: HTMLElement): void {
    switch (item.type) {
      case "user":
        element.className = "item user";
        element.replaceChildren(h("div", { class: "bubble" }, item.text));
        break;
      case "message":
        element.className = "item message markdown";
        element.innerHTML = renderMarkdown(item.text);
        break;
      case "thought": {
        const open = element.querySelector("details")?.open ?? false;
        element.className = "item thought";
        element.replaceChildren(
          h("details", { open }, h("summary", {}, "Thinking…"), h("p", { class: "thought-text" }, item.text)),
        );
        break;
      }
      case "tool":
        renderToolCall(item, element);
        break;
      case "plan":
        element.className = "item plan";
        element.replaceChildren(
          h("div", { class: "plan-title" }, "Plan"),
          h("ol", {}, ...item.entries.map((entry) =>
            h("li", { class: `plan-${entry.status ?? "pending"}`, "data-priority": entry.priority }, entry.content))),
        );
        break;
      case "notice":
        element.className = `item notice notice-${item.tone}`;
        element.textContent = item.text;
        break;
    }
  }
}
