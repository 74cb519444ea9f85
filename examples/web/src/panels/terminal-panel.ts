// The terminal panel: xterm.js over client.processes.terminal(). A bash under a PTY is spawned on
// first open; keystrokes go to Terminal.send, PTY bytes from output$ go straight to xterm.
import type { Terminal as XTerm } from "@xterm/xterm";
import type { SandboxAgentClient, Terminal } from "sandbox-agent-rx";
import type { Subscription } from "rxjs";
import { errorText, h } from "../dom.js";
import { preparedKill, type ServerAccess } from "../page-exit-kill.js";
import { shellTag } from "../shell-reaper.js";

const COLS = 80;
const ROWS = 24;

export function terminalPanel(client: SandboxAgentClient, server: ServerAccess, owner: Subscription): HTMLElement {
  const screen = h("div", { class: "xterm-host", id: "terminal" });
  const status = h("span", { class: "muted", id: "terminal-status" }, "starting…");
  const element = h("div", { class: "panel terminal-panel" }, h("div", { class: "panel-bar" }, status), screen);
  let xterm: XTerm | undefined;
  let terminal: Terminal | undefined;
  let processId: string | undefined;
  // Closing or reloading the tab ends the shell too. The request is made inside the listener, not
  // through the SDK (see page-exit-kill.ts): only a fetch begun before the page is gone is finished.
  let killOnExit: (() => void) | undefined;
  const onPageHide = (): void => killOnExit?.();
  addEventListener("pagehide", onPageHide);
  owner.add(() => {
    removeEventListener("pagehide", onPageHide);
    terminal?.close();
    xterm?.dispose();
    // The shell was started for this page: end it with the page rather than leave it running.
    if (processId) client.processes.kill(processId).catch(() => undefined);
  });

  // xterm.js is most of the bundle: it loads with the first terminal, in a chunk of its own.
  // It measures its container, so it opens once the panel is in the document.
  requestAnimationFrame(() => void start());

  async function start(): Promise<void> {
    try {
      const [{ Terminal: XTermClass }] = await Promise.all([
        import("@xterm/xterm"),
        import("@xterm/xterm/css/xterm.css"),
      ]);
      if (owner.closed) return;
      const screenTerm = (xterm = new XTermClass({
        cols: COLS,
        rows: ROWS,
        convertEol: false,
        fontFamily: "ui-monospace, 'DejaVu Sans Mono', monospace",
        fontSize: 12,
        theme: { background: "#10141c", foreground: "#d8dee9", cursor: "#88c0d0" },
      }));
      screenTerm.open(screen);
      const shell = await client.processes.spawn({
        command: "bash",
        // The tag marks it as this page's, so other pages end it once this one is gone (shell-reaper.ts).
        args: ["--norc", "--noprofile", "-i", "-s", await shellTag()],
        tty: true,
        interactive: true,
        env: { TERM: "xterm-256color", PS1: "\\w $ " },
      });
      // The page may have been left while the shell was starting: its teardown had no id to kill.
      if (owner.closed) return void client.processes.kill(shell.id).catch(() => undefined);
      processId = shell.id;
      killOnExit = preparedKill(server, shell.id);
      terminal = client.processes.terminal(shell.id, { cols: COLS, rows: ROWS });
      owner.add(terminal.output$.subscribe((bytes) => screenTerm.write(bytes)));
      owner.add(terminal.errors$.subscribe((error) => screenTerm.writeln(`\r\n\x1b[31m${error.message}\x1b[0m`)));
      const input = screenTerm.onData((data) => terminal?.send(data));
      owner.add(() => input.dispose());
      await terminal.ready;
      // The server replays nothing: bash's first prompt went out before the socket opened, so ask
      // readline to redraw it (Ctrl-L clears the screen and prints the prompt again).
      terminal.send("\x0c");
      status.textContent = `${shell.id} · bash · connected`;
      element.dataset.ready = "true";
      terminal.exit.then(
        (exit) => (status.textContent = `${shell.id} exited (${String(exit.exitCode)})`),
        () => (status.textContent = `${shell.id} detached`),
      );
    } catch (error) {
      status.textContent = errorText(error);
      status.className = "error";
    }
  }
  return element;
}
