// One tool call: its kind, a short title with paths relative to the session's folder, a status
// pill ("cancelled" for a tool its cancelled turn left unfinished), and its content: diffs, text,
// terminal output, and the files it touched when the title does not already name them.
import { useState } from "react";
import type { ToolCallEntry, ToolDiff } from "sandbox-agent-rx";
import { relativePath, shortTitle, toolStatus } from "./words.js";

const looksLikeDiff = (text: string): boolean => /^(--- |\+\+\+ |@@ )/m.test(text);

/** Unified diff text, one line per row, coloured by its first character. */
function DiffLines({ text, path }: { text: string; path?: string }) {
  return (
    <pre className="diff" data-path={path}>
      {text.split("\n").map((line, i) => {
        const tone = /^(\+\+\+|---) /.test(line) ? "meta"
          : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
        return <div key={i} className={`diff-${tone}`}>{line || " "}</div>;
      })}
    </pre>
  );
}

/** ACP `diff` content: removed lines, then added ones after the common head (no LCS; enough for a card). */
function StructuredDiff({ diff, cwd }: { diff: ToolDiff; cwd: string | undefined }) {
  const path = relativePath(diff.path, cwd);
  const lines = [`--- ${diff.oldText === null ? "/dev/null" : `a/${path}`}`, `+++ b/${path}`];
  const before = diff.oldText === null || diff.oldText === "" ? [] : diff.oldText.split("\n");
  const after = diff.newText.split("\n");
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  for (const line of before.slice(head)) lines.push(`-${line}`);
  for (const line of after.slice(head)) lines.push(`+${line}`);
  return <DiffLines text={lines.join("\n")} path={path} />;
}

/** Text a tool printed: `content` blocks, and the output fields agents put in rawOutput for a command. */
function outputsOf(tool: ToolCallEntry): string[] {
  const out = tool.content.flatMap((block) => {
    const inner = block.content as { text?: unknown } | undefined;
    return block.type === "content" && typeof inner?.text === "string" ? [inner.text] : [];
  });
  const raw = tool.rawOutput as Record<string, unknown> | undefined;
  if (out.length === 0 && raw && typeof raw === "object") {
    for (const key of ["formatted_output", "output", "stdout", "stderr"]) {
      if (typeof raw[key] === "string" && raw[key] !== "") {
        out.push(raw[key] as string);
        if (key === "formatted_output" || key === "output") break;
      }
    }
  }
  return out;
}

export function ToolCard({ tool, cwd, cancelled, common }: {
  tool: ToolCallEntry;
  cwd: string | undefined;
  cancelled: boolean;
  common: Record<string, string>;
}) {
  const status = toolStatus(tool, cancelled);
  const state = status === "cancelled" ? "cancelled" : tool.status;
  const title = shortTitle(tool.title, cwd);
  const outputs = outputsOf(tool);
  // Files the title already names are not listed again.
  const locations = tool.locations
    .map((l) => ({ path: relativePath(l.path, cwd), line: l.line }))
    .filter((l) => !title.includes(l.path));
  const hasBody = tool.diffs.length > 0 || outputs.length > 0 || locations.length > 0 || tool.terminals.length > 0;
  const [open, setOpen] = useState(tool.status !== "completed" || tool.diffs.length > 0);
  return (
    <div className="item tool" {...common} data-status={state} data-title={title} title={tool.title}>
      <details open={open && hasBody} onToggle={(event) => setOpen((event.target as HTMLDetailsElement).open)}>
        <summary>
          <span className={`tool-kind kind-${tool.toolKind}`}>{tool.toolKind}</span>
          <span className="tool-title">{title}</span>
          <span className={`pill status-${state}`}>{status}</span>
        </summary>
        {locations.length ? (
          <ul className="locations">{locations.map((l, i) => <li key={i}>{l.line ? `${l.path}:${l.line}` : l.path}</li>)}</ul>
        ) : null}
        {tool.diffs.map((diff, i) => <StructuredDiff key={`d${i}`} diff={diff} cwd={cwd} />)}
        {outputs.map((text, i) => (looksLikeDiff(text)
          ? <DiffLines key={`o${i}`} text={text} />
          : <pre key={`o${i}`} className="tool-output">{text}</pre>))}
        {tool.terminals.map((id) => <p key={id} className="muted terminal-ref">Ran in terminal {id}</p>)}
      </details>
    </div>
  );
}
