// One transcript entry: messages, thoughts (collapsible), tool cards with their diffs, the plan, and
// one-line notices for the rest (gaps, turn ends, permissions, mode changes, errors).
import type { ToolCallEntry, ToolDiff, TranscriptEntry } from "sandbox-agent-rx";

export function EntryView({ entry }: { entry: TranscriptEntry }) {
  const common = { "data-entry": entry.id, "data-kind": entry.kind };
  switch (entry.kind) {
    case "user-message":
      return <div className="entry user-message" {...common}><span className="bubble">{entry.text}</span></div>;
    case "agent-message":
      return <div className="entry agent-message" {...common} style={{ whiteSpace: "pre-wrap" }}>{entry.text}</div>;
    case "thought":
      return <details className="entry thought" {...common}><summary>Thinking</summary>{entry.text}</details>;
    case "tool-call":
      return <div className="entry" {...common}><ToolCard tool={entry} /></div>;
    case "plan":
      return (
        <div className="entry plan" {...common}>
          <b>Plan</b>
          <ol>{entry.entries.map((step, i) => <li key={i} data-status={step.status}>{step.content}</li>)}</ol>
        </div>
      );
    default: {
      const text = noticeText(entry);
      return text ? <div className={`entry notice ${entry.kind}`} {...common}>{text}</div> : <div {...common} />;
    }
  }
}

function ToolCard({ tool }: { tool: ToolCallEntry }) {
  const text = tool.content.flatMap((c) => {
    const inner = c.content as { text?: unknown } | undefined;
    return c.type === "content" && typeof inner?.text === "string" ? [inner.text] : [];
  });
  return (
    <div className="tool" data-status={tool.status} data-title={tool.title}>
      <span className="status">{tool.status.replace("_", " ")}</span>
      <b>{tool.toolKind}</b> {tool.title}
      {tool.locations.length ? <div className="locations">{tool.locations.map((l) => l.path).join(", ")}</div> : null}
      {tool.diffs.map((diff, i) => <DiffView key={i} diff={diff} />)}
      {text.map((t, i) => <pre key={`t${i}`}>{t.split("\n").map((line, j) => <div key={j} className={lineClass(line)}>{line || " "}</div>)}</pre>)}
    </div>
  );
}

/** Removed lines, then added ones after the common head (enough for a card; no LCS). */
function DiffView({ diff }: { diff: ToolDiff }) {
  const before = diff.oldText === null || diff.oldText === "" ? [] : diff.oldText.split("\n");
  const after = diff.newText.split("\n");
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  return (
    <pre className="diff" data-path={diff.path}>
      <div>{diff.path}</div>
      {before.slice(head).map((line, i) => <div key={`d${i}`} className="diff-del">-{line}</div>)}
      {after.slice(head).map((line, i) => <div key={`a${i}`} className="diff-add">+{line}</div>)}
    </pre>
  );
}

const lineClass = (line: string): string =>
  /^(\+\+\+|---) /.test(line) ? "" : line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-del" : "";

function noticeText(entry: TranscriptEntry): string | undefined {
  switch (entry.kind) {
    case "events-lost":
      return `Events ${entry.firstMissing}–${entry.lastMissing} were lost while reconnecting.`;
    case "turn-end":
      return `Turn ended: ${entry.stopReason}`;
    case "session-ended":
      return `Session ended: ${entry.ended.reason}`;
    case "agent-error":
      return entry.message;
    case "permission":
      return `Permission for “${entry.toolCall.title ?? entry.toolCallId}”: ${entry.status}${entry.optionId ? ` (${entry.optionId})` : ""}`;
    case "mode-change":
      return `Mode: ${entry.modeId}`;
    case "model-change":
      return `Model: ${entry.modelId}`;
    default:
      return undefined;
  }
}
