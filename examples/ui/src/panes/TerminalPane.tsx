// The terminal pane: xterm.js over client.processes.terminal(). A bash under a PTY starts when the
// pane opens and takes the keyboard focus once it is ready; it is killed when the pane closes, the
// session view goes, or the page goes (see page-exit-kill.ts and shell-reaper.ts for why each).
import type { Terminal as XTerm } from "@xterm/xterm";
import { useEffect, useRef, useState } from "react";
import type { SandboxAgentClient } from "sandbox-agent-rx";
import { preparedKill, type ServerAccess } from "../page-exit-kill.js";
import { shellTag } from "../shell-reaper.js";
import { errorText } from "../words.js";

const COLS = 80;
const ROWS = 24;

export function TerminalPane({ client, server }: { client: SandboxAgentClient; server: ServerAccess }) {
  const host = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState("starting…");
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let closed = false;
    let xterm: XTerm | undefined;
    let processId: string | undefined;
    const cleanups: Array<() => void> = [];
    const kill = (): void => void (processId && client.processes.kill(processId).catch(() => undefined));
    // Closing or reloading the tab ends the shell too. The request is made inside the listener, not
    // through the SDK (see page-exit-kill.ts): only a fetch begun before the page is gone is finished.
    let killOnExit: (() => void) | undefined;
    const onPageHide = (): void => killOnExit?.();
    addEventListener("pagehide", onPageHide);
    void (async () => {
      try {
        // xterm.js is most of the bundle: it loads with the first terminal, in a chunk of its own.
        const [{ Terminal }] = await Promise.all([import("@xterm/xterm"), import("@xterm/xterm/css/xterm.css")]);
        if (closed || !host.current) return;
        const screen = (xterm = new Terminal({
          cols: COLS,
          rows: ROWS,
          fontFamily: "ui-monospace, 'DejaVu Sans Mono', monospace",
          fontSize: 12,
          theme: { background: "#10141c", foreground: "#d8dee9", cursor: "#88c0d0" },
        }));
        screen.open(host.current);
        const shell = await client.processes.spawn({
          command: "bash",
          // The tag marks it as this page's, so other pages end it once this one is gone (shell-reaper.ts).
          args: ["--norc", "--noprofile", "-i", "-s", await shellTag()],
          tty: true,
          interactive: true,
          env: { TERM: "xterm-256color", PS1: "\\w $ " },
        });
        processId = shell.id;
        // The pane may have closed while the shell was starting: its cleanup had no id to kill.
        if (closed) return kill();
        killOnExit = preparedKill(server, shell.id);
        const terminal = client.processes.terminal(shell.id, { cols: COLS, rows: ROWS });
        const output = terminal.output$.subscribe((bytes) => screen.write(bytes));
        const errors = terminal.errors$.subscribe((error) => screen.writeln(`\r\n\x1b[31m${error.message}\x1b[0m`));
        const input = screen.onData((data) => terminal.send(data));
        cleanups.push(() => output.unsubscribe(), () => errors.unsubscribe(), () => input.dispose(), () => terminal.close());
        await terminal.ready;
        if (closed) return;
        // The server replays nothing: bash's first prompt went out before the socket opened, so ask
        // readline to redraw it (Ctrl-L clears the screen and prints the prompt again).
        terminal.send("\x0c");
        setStatus(`${shell.id} · bash · connected`);
        setReady(true);
        screen.focus();
        terminal.exit.then(
          (exit) => setStatus(`${shell.id} exited (${String(exit.exitCode)})`),
          () => setStatus(`${shell.id} detached`),
        );
      } catch (error) {
        if (!closed) setStatus(errorText(error));
      }
    })();
    return () => {
      closed = true;
      removeEventListener("pagehide", onPageHide);
      for (const cleanup of cleanups) cleanup();
      xterm?.dispose();
      // The shell was started for this pane: end it with the pane rather than leave it running.
      kill();
    };
  }, [client, server]);

  return (
    <div className="panel terminal-panel" data-ready={ready ? "true" : undefined}>
      <div className="panel-bar"><span className="muted" id="terminal-status">{status}</span></div>
      <div className="xterm-host" id="terminal" ref={host} />
    </div>
  );
}
