// The connect form: server URL, token and agent. `?server=URL&agent=NAME` prefill it; a token may
// come in the fragment (`#token=…`, never sent to any server) and is removed from the address bar.
import { h } from "./dom.js";

export interface ConnectTarget {
  baseUrl: string;
  token: string;
  agent: string;
}

export function prefilledTarget(): ConnectTarget {
  const params = new URLSearchParams(location.search);
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = fragment.get("token") ?? "";
  if (token) history.replaceState(null, "", location.pathname + location.search);
  return {
    baseUrl: params.get("server") ?? "http://127.0.0.1:2468",
    agent: params.get("agent") ?? "mock",
    token,
  };
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
    onSubmit({ baseUrl: baseUrl.value.trim().replace(/\/+$/, ""), token: token.value, agent: agent.value.trim() });
  });
  return form;
}
