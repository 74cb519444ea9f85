// A terminal pane: xterm.js over client.processes.terminal(). The shell is started when the pane
// opens and killed when it closes (or the page goes), so no bash is left running per visit.
import type { Terminal as XTerm } from "@xterm/xterm";
import { useEffect, useRef, useState } from "react";
import type { SandboxAgentClient } from "sandbox-agent-rx";

const COLS = 100;
const ROWS = 16;

export function TerminalPane({ client }: { client: SandboxAgentClient }) {
  const host = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState("starting…");
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let closed = false;
    let xterm: XTerm | undefined;
    let processId: string | undefined;
    const cleanups: Array<() => void> = [];
    const kill = () => void (processId && client.processes.kill(processId).catch(() => undefined));
    addEventListener("pagehide", kill);
    void (async () => {
      try {
        // xterm.js is most of the bundle: it loads with the first terminal, in a chunk of its own.
        const [{ Terminal }] = await Promise.all([import("@xterm/xterm"), import("@xterm/xterm/css/xterm.css")]);
        if (closed || !host.current) return;
        const screen = (xterm = new Terminal({ cols: COLS, rows: ROWS, fontSize: 12, theme: { background: "#10141c" } }));
        screen.open(host.current);
        const shell = await client.processes.spawn({
          command: "bash",
          args: ["--norc", "--noprofile", "-i"],
          tty: true,
          interactive: true,
          env: { TERM: "xterm-256color", PS1: "\\w $ " },
        });
        processId = shell.id;
        if (closed) return kill();
        const terminal = client.processes.terminal(shell.id, { cols: COLS, rows: ROWS });
        const output = terminal.output$.subscribe((bytes) => screen.write(bytes));
        const input = screen.onData((data) => terminal.send(data));
        cleanups.push(() => output.unsubscribe(), () => input.dispose(), () => terminal.close());
        await terminal.ready;
        // The server replays nothing: ask readline to redraw the prompt bash printed before we listened.
        terminal.send("\x0c");
        setStatus(`${shell.id} · bash`);
        setReady(true);
        terminal.exit.then((exit) => setStatus(`${shell.id} exited (${String(exit.exitCode)})`), () => undefined);
      } catch (error) {
        setStatus(error instanceof Error ? error.message : String(error));
      }
    })();
    return () => {
      closed = true;
      removeEventListener("pagehide", kill);
      for (const cleanup of cleanups) cleanup();
      xterm?.dispose();
      kill();
    };
  }, [client]);

  return (
    <div className="terminal-pane" data-ready={ready ? "true" : undefined}>
      <div className="status-line" id="terminal-status">{status}</div>
      <div id="terminal" ref={host} />
    </div>
  );
}
