// The connect form: server URL, token and agent. `?server=URL&agent=NAME` prefill it; a token may
// come in the fragment (`#token=…`, never sent to any server) and is removed from the address bar.
// What the tab connected with last is kept for it (tab-memory.ts), so a reload can connect again.
import { h } from "./dom.js";
import { rememberedTarget, rememberTarget } from "./tab-memory.js";

export interface ConnectTarget {
  baseUrl: string;
  token: string;
  agent: string;
}

export function prefilledTarget(): ConnectTarget {
  const params = new URLSearchParams(location.search);
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const remembered = rememberedTarget();
  const baseUrl = params.get("server") ?? remembered?.baseUrl ?? "http://127.0.0.1:2468";
  const agent = params.get("agent") ?? remembered?.agent ?? "mock";
  const fromFragment = fragment.get("token");
  if (fromFragment !== null) {
    // Out of the address bar (and so out of history and bookmarks), but kept for this tab.
    history.replaceState(null, "", location.pathname + location.search);
    rememberTarget({ baseUrl, agent, token: fromFragment });
    return { baseUrl, agent, token: fromFragment };
  }
  // A remembered token goes only to the server it was given for.
  const token = remembered && remembered.baseUrl === baseUrl ? remembered.token : "";
  return { baseUrl, agent, token };
}

export function connectView(
  target: ConnectTarget,
  error: string | undefined,
  onSubmit: (t: ConnectTarget) => void,
): HTMLElement {
  const field = (label: string, input: HTMLInputElement): HTMLElement => h("label", {}, h("span", {}, label), input);
  const baseUrl = h("input", { name: "baseUrl", value: target.baseUrl, required: true, size: 32 });
  const token = h("input", {
    name: "token", type: "password", value: target.token, placeholder: "none", autocomplete: "off",
  });
  const agent = h("input", { name: "agent", value: target.agent, required: true });
  const form = h(
    "form",
    { id: "connect", class: "card connect" },
    h("h2", {}, "Connect to a sandbox"),
    h("p", { class: "muted" }, "A sandbox-agent server that allows this page's origin (CORS)."),
    field("Server URL", baseUrl),
    field("Token", token),
    field("Agent", agent),
    error ? h("p", { class: "error", id: "connect-error" }, error) : null,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Connect")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = { baseUrl: baseUrl.value.trim().replace(/\/+$/, ""), token: token.value, agent: agent.value.trim() };
    rememberTarget(next);
    onSubmit(next);
  });
  return form;
}
