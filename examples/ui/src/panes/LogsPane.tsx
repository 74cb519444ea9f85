// Process logs: the server's processes with their status, and the followed log (logs$) of the one
// selected; a command line to spawn a new one. Following stops when the pane goes away.
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { ProcessInfo, SandboxAgentClient } from "sandbox-agent-rx";
import { errorText } from "../words.js";

interface Line {
  stream: string;
  text: string;
}

export function LogsPane({ client }: { client: SandboxAgentClient }) {
  const [command, setCommand] = useState("");
  const [processes, setProcesses] = useState<ProcessInfo[] | string>([]);
  const [selected, setSelected] = useState<string>();
  const [lines, setLines] = useState<Line[]>([]);
  const output = useRef<HTMLPreElement>(null);

  const refresh = (): void => {
    client.processes.list({}, { timeoutMs: 10_000 }).then(setProcesses, (error: unknown) => setProcesses(errorText(error)));
  };
  useEffect(refresh, [client]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (!selected) return;
    setLines([]);
    const add = (line: Line) => setLines((previous) => [...previous, line]);
    const following = client.processes.logs$(selected).subscribe({
      next: (entry) => add({ stream: entry.stream, text: entry.text }),
      error: (error: unknown) => add({ stream: "stderr", text: `\n${errorText(error)}` }),
      complete: () => {
        add({ stream: "end", text: "\n— exited —" });
        refresh();
      },
    });
    return () => following.unsubscribe();
  }, [client, selected]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (output.current) output.current.scrollTop = output.current.scrollHeight;
  }, [lines]);

  const run = (event: FormEvent) => {
    event.preventDefault();
    const [cmd, ...args] = command.trim().split(/\s+/);
    if (!cmd) return;
    client.processes.spawn({ command: cmd, args }).then((info) => {
      refresh();
      setSelected(info.id);
    }, (error: unknown) => setLines([{ stream: "stderr", text: errorText(error) }]));
  };

  return (
    <div className="panel logs-panel">
      <form className="panel-bar" onSubmit={run}>
        <input value={command} onChange={(e) => setCommand(e.target.value)} placeholder="command, e.g. ls -la"
          aria-label="Command" className="path-input" />
        <button type="submit">Run</button>
        <button type="button" onClick={refresh}>Refresh</button>
      </form>
      <ul className="process-list" id="process-list">
        {typeof processes === "string" ? <li className="error">{processes}</li> : null}
        {typeof processes !== "string" && processes.length === 0 ? <li className="muted">No processes.</li> : null}
        {typeof processes !== "string" ? processes.map((p) => (
          <li key={p.id} data-id={p.id} className={p.id === selected ? "selected" : ""}>
            <button type="button" className="process-row" onClick={() => setSelected(p.id)}>
              <span className="mono">{p.id}</span>
              <span className="process-command">{[p.command, ...p.args].join(" ")}</span>
              <span className={`pill status-${p.status === "running" ? "in_progress" : "completed"}`}>
                {p.status === "exited" ? `exit ${String(p.exitCode ?? "signal")}` : p.status}
              </span>
            </button>
          </li>
        )) : null}
      </ul>
      <pre className="log-output" id="log-output" ref={output}>
        {lines.map((line, i) => <span key={i} className={line.stream === "end" ? "muted" : `log-${line.stream}`}>{line.text}</span>)}
      </pre>
    </div>
  );
}
