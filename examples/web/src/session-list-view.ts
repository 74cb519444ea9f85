// The session list: what listSessions() reports (title, agent, times, event count, ended), and a
// form for a new session with a title kept as metadata.
import type { SessionListing } from "sandbox-agent-rx";
import { ago, h } from "./dom.js";

export interface SessionListActions {
  open(sessionId: string): void;
  create(title: string): void;
  refresh(): void;
}

export function sessionListView(sessions: SessionListing[] | string, actions: SessionListActions): HTMLElement {
  const title = h("input", { name: "title", placeholder: "New session title", value: "" });
  const form = h(
    "form",
    { id: "new-session", class: "new-session" },
    title,
    h("button", { type: "submit", class: "primary" }, "New session"),
    h("button", { type: "button", onclick: () => actions.refresh() }, "Refresh"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    actions.create(title.value.trim() || "Untitled session");
  });
  let body: HTMLElement;
  if (typeof sessions === "string") body = h("p", { class: "error" }, sessions);
  else if (sessions.length === 0) body = h("p", { class: "muted empty" }, "No sessions yet. Start one above.");
  else body = table(sessions, actions);
  return h("section", { class: "card sessions" }, h("h2", {}, "Sessions"), form, body);
}

type Column = [label: string, value: (s: SessionListing) => string, cls?: string];

const COLUMNS: Column[] = [
  ["Agent", (s) => s.agent ?? ""],
  ["Folder", (s) => s.cwd ?? "", "mono"],
  ["Model", (s) => s.model ?? (typeof s.metadata.model === "string" ? s.metadata.model : "")],
  ["Created", (s) => ago(s.createdAt)],
  ["Updated", (s) => ago(s.updatedAt)],
  ["Events", (s) => (s.eventCount === undefined ? "" : String(s.eventCount)), "num"],
];

/** The name to show: the caller's metadata title, the one this page remembers, the agent's, the id. */
export function sessionTitle(s: SessionListing): string {
  const fromMetadata = typeof s.metadata.title === "string" ? s.metadata.title : undefined;
  return fromMetadata ?? rememberedTitle(s.sessionId) ?? s.title ?? s.sessionId;
}

// A server that keeps no metadata (the released 0.4.x) forgets the titles given to newSession.
const TITLES = "sandbox-agent-rx:titles";
export function rememberTitle(sessionId: string, title: string): void {
  const titles = JSON.parse(sessionStorage.getItem(TITLES) ?? "{}") as Record<string, string>;
  sessionStorage.setItem(TITLES, JSON.stringify({ ...titles, [sessionId]: title }));
}
function rememberedTitle(sessionId: string): string | undefined {
  return (JSON.parse(sessionStorage.getItem(TITLES) ?? "{}") as Record<string, string>)[sessionId];
}

function table(sessions: SessionListing[], actions: SessionListActions): HTMLElement {
  const sorted = [...sessions].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
  // Only the columns the server filled in for at least one session.
  const columns = COLUMNS.filter(([, value]) => sorted.some((s) => value(s) !== ""));
  const rows = sorted.map((s) => h(
    "tr",
    { "data-session": s.sessionId, tabindex: 0, onclick: () => actions.open(s.sessionId) },
    h("td", {}, h("div", { class: "session-name" }, sessionTitle(s)), h("div", { class: "muted mono" }, s.sessionId,
      // The agent's own title (often its first prompt) when it differs from the caller's.
      s.title && s.title !== sessionTitle(s) ? ` · ${s.title}` : "")),
    ...columns.map(([, value, cls]) => h("td", { class: cls }, value(s))),
    h("td", {}, h("span", { class: `pill status-${s.ended ? "failed" : "completed"}` }, s.ended ? "ended" : "live")),
  ));
  const head = ["Session", ...columns.map(([label]) => label), ""].map((label) => h("th", {}, label));
  return h("table", { class: "session-table" }, h("thead", {}, h("tr", {}, ...head)), h("tbody", {}, ...rows));
}
