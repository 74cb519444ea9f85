// The side panels as tabs. Each panel is built the first time its tab opens and lives as long as
// the session page (the owner subscription tears them all down).
import type { Subscription } from "rxjs";
import type { SandboxAgentClient } from "sandbox-agent-rx";
import { h } from "../dom.js";
import type { ServerAccess } from "../page-exit-kill.js";
import { filesPanel } from "./files-panel.js";
import { logsPanel } from "./logs-panel.js";
import { terminalPanel } from "./terminal-panel.js";

type Build = () => HTMLElement;

export function panels(client: SandboxAgentClient, server: ServerAccess, owner: Subscription): HTMLElement {
  const tabs: Array<[string, Build]> = [
    ["Terminal", () => terminalPanel(client, server, owner)],
    ["Files", () => filesPanel(client)],
    ["Logs", () => logsPanel(client, owner)],
  ];
  const body = h("div", { class: "panel-body" });
  const built = new Map<string, HTMLElement>();
  const bar = h("nav", { class: "tabs", role: "tablist" });
  const select = (name: string, build: Build): void => {
    for (const button of bar.querySelectorAll("button")) button.classList.toggle("active", button.dataset.tab === name);
    for (const [key, panel] of built) panel.hidden = key !== name;
    if (!built.has(name)) {
      const panel = build();
      built.set(name, panel);
      body.append(panel);
    }
  };
  for (const [name, build] of tabs) {
    const onclick = (): void => select(name, build);
    bar.append(h("button", { type: "button", role: "tab", "data-tab": name, onclick }, name));
  }
  const aside = h("aside", { class: "panels" }, bar, body);
  select(tabs[0]![0], tabs[0]![1]);
  return aside;
}
