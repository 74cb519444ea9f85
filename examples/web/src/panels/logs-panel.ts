// Process logs: the server's processes with their status, and the followed log (logs$) of the one
// selected; a command line to spawn a new one. Following stops when the panel goes away.
import type { Subscription } from "rxjs";
import type { ProcessInfo, SandboxAgentClient } from "sandbox-agent-rx";
import { errorText, h } from "../dom.js";

export function logsPanel(client: SandboxAgentClient, owner: Subscription): HTMLElement {
  const list = h("ul", { class: "process-list", id: "process-list" });
  const output = h("pre", { class: "log-output", id: "log-output" });
  const command = h("input", { placeholder: "command, e.g. ls -la", "aria-label": "Command", class: "path-input" });
  const form = h("form", { class: "panel-bar" }, command, h("button", { type: "submit" }, "Run"),
    h("button", { type: "button", onclick: () => void refresh() }, "Refresh"));
  let following: Subscription | undefined;
  owner.add(() => following?.unsubscribe());

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const [cmd, ...args] = command.value.trim().split(/\s+/);
    if (!cmd) return;
    client.processes
      .spawn({ command: cmd, args })
      .then((info) => refresh().then(() => follow(info)))
      .catch((error: unknown) => (output.textContent = errorText(error)));
  });

  function follow(info: ProcessInfo): void {
    following?.unsubscribe();
    output.textContent = "";
    for (const item of list.querySelectorAll("li")) item.classList.toggle("selected", item.dataset.id === info.id);
    following = client.processes.logs$(info.id).subscribe({
      next: (entry) => {
        const line = h("span", { class: `log-${entry.stream}` }, entry.text);
        output.append(line);
        output.scrollTop = output.scrollHeight;
      },
      error: (error: unknown) => output.append(h("span", { class: "log-stderr" }, `\n${errorText(error)}`)),
      complete: () => {
        output.append(h("span", { class: "muted" }, "\n— exited —"));
        void refresh();
      },
    });
  }

  async function refresh(): Promise<void> {
    try {
      const processes = await client.processes.list({}, { timeoutMs: 10_000 });
      const selected = list.querySelector<HTMLElement>("li.selected")?.dataset.id;
      list.replaceChildren(...processes.map((p) => h(
        "li",
        { "data-id": p.id, class: p.id === selected ? "selected" : "", onclick: () => follow(p) },
        h("span", { class: "mono" }, p.id),
        h("span", { class: "process-command" }, [p.command, ...p.args].join(" ")),
        h("span", { class: `pill status-${p.status === "running" ? "in_progress" : "completed"}` },
          p.status === "exited" ? `exit ${String(p.exitCode ?? "signal")}` : p.status),
      )));
      if (processes.length === 0) list.replaceChildren(h("li", { class: "muted" }, "No processes."));
    } catch (error) {
      list.replaceChildren(h("li", { class: "error" }, errorText(error)));
    }
  }
  requestAnimationFrame(() => void refresh());
  return h("div", { class: "panel logs-panel" }, form, list, output);
}
