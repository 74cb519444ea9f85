// One tool call: kind, title, status pill, and its content (text, diffs, file locations), updated in place.
import { h } from "./dom.js";
import type { ToolCallEntry } from "sandbox-agent-rx";

const looksLikeDiff = (text: string): boolean => /^(--- |\+\+\+ |@@ )/m.test(text);

/** Unified diff text, one line per row, coloured by its first character. */
function diffView(text: string): HTMLElement {
  const rows = text.split("\n").map((line) => {
    const tone = /^(\+\+\+|---) /.test(line) ? "meta"
      : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
    return h("div", { class: `diff-${tone}` }, line || " ");
  });
  return h("pre", { class: "diff" }, ...rows);
}

/** ACP `diff` content ({ path, oldText, newText }): removed lines, then added ones (no LCS; enough here). */
function structuredDiff(path: string, oldText: string | null, newText: string): HTMLElement {
  const lines = [`--- ${oldText === null ? "/dev/null" : `a/${path}`}`, `+++ b/${path}`];
  const before = oldText === null ? [] : oldText.split("\n");
  const after = newText.split("\n");
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  for (const line of before.slice(head)) lines.push(`-${line}`);
  for (const line of after.slice(head)) lines.push(`+${line}`);
  return diffView(lines.join("\n"));
}

function contentView(block: unknown): HTMLElement | undefined {
  if (typeof block !== "object" || block === null) return undefined;
  const item = block as { type?: string; content?: { text?: string }; path?: string; oldText?: string | null;
    newText?: string; terminalId?: string };
  if (item.type === "diff" && typeof item.newText === "string") {
    return structuredDiff(item.path ?? "", item.oldText ?? null, item.newText);
  }
  if (item.type === "terminal") return h("p", { class: "muted" }, `Terminal ${item.terminalId ?? ""}`);
  const text = item.content?.text;
  if (typeof text !== "string") return undefined;
  return looksLikeDiff(text) ? diffView(text) : h("pre", { class: "tool-output" }, text);
}

export function renderToolCall(item: ToolCallEntry, into: HTMLElement): void {
  const wasOpen = into.querySelector("details")?.open ?? item.status !== "completed";
  const body = item.content.map(contentView).filter((el): el is HTMLElement => el !== undefined);
  const locations = item.locations.length
    ? h("ul", { class: "locations" }, ...item.locations.map((l) => h("li", {}, l.line ? `${l.path}:${l.line}` : l.path)))
    : null;
  into.className = "item tool";
  into.dataset.status = item.status;
  into.dataset.title = item.title;
  const summary = h(
    "summary",
    {},
    h("span", { class: `tool-kind kind-${item.toolKind}` }, item.toolKind),
    h("span", { class: "tool-title" }, item.title),
    h("span", { class: `pill status-${item.status}` }, item.status.replace("_", " ")),
  );
  const open = wasOpen && (body.length > 0 || locations !== null);
  const details = h("details", { open }, summary, locations, ...body);
  into.replaceChildren(details);
}
