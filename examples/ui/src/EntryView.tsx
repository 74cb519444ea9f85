// One transcript entry: the user's message, the agent's answer as sanitised markdown, thoughts
// (collapsed), tool cards, the plan, the agent's own terminals (ACP v2 draft), and one-line notices for
// the rest (gaps, unusual turn ends, permission answers, mode changes, errors). Entries the page does
// not show render as an empty row.
import { useState } from "react";
import type { TranscriptEntry } from "sandbox-agent-rx";
import { renderMarkdown } from "./markdown.js";
import { ToolCard } from "./ToolCard.js";
import { noticeOf, shown } from "./words.js";

export function EntryView({ entry, cwd, cancelled = false }: {
  entry: TranscriptEntry;
  cwd?: string | undefined;
  cancelled?: boolean;
}) {
  const common = { "data-entry": entry.id, "data-kind": entry.kind };
  if (!shown(entry)) return <div {...common} />;
  switch (entry.kind) {
    case "user-message":
      return (
        <div className={`item user${entry.replayed ? " replayed" : ""}`} {...common}>
          <div className="bubble">{entry.text}</div>
        </div>
      );
    case "agent-message":
      // The only HTML the app sets, made from the agent's text by renderMarkdown (escaped, then purified).
      return <div className="item message markdown" {...common} dangerouslySetInnerHTML={{ __html: renderMarkdown(entry.text) }} />;
    case "thought":
      return <Thought text={entry.text} common={common} />;
    case "tool-call":
      return <ToolCard tool={entry} cwd={cwd} cancelled={cancelled} common={common} />;
    case "plan":
      return (
        <div className="item plan" {...common}>
          <div className="plan-title">Plan</div>
          <ol>
            {entry.entries.map((step, i) => (
              <li key={i} className={`plan-${step.status ?? "pending"}`} data-priority={step.priority}>{step.content}</li>
            ))}
          </ol>
        </div>
      );
    case "terminal":
      // A terminal the agent runs itself (ACP v2 draft): its command and output as the agent reported them.
      return (
        <div className="item terminal" {...common}>
          <div className="plan-title">$ {entry.command ?? entry.terminalId}</div>
          <pre className="log-output">{entry.output}</pre>
          {entry.exitStatus ? <div>exited {entry.exitStatus.exitCode ?? entry.exitStatus.signal ?? ""}</div> : null}
        </div>
      );
    default: {
      const notice = noticeOf(entry);
      return notice ? <div className={`item notice notice-${notice.tone}`} {...common}>{notice.text}</div> : <div {...common} />;
    }
  }
}

function Thought({ text, common }: { text: string; common: Record<string, string> }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="item thought" {...common}>
      <details open={open} onToggle={(event) => setOpen((event.target as HTMLDetailsElement).open)}>
        <summary>Thinking…</summary>
        <p className="thought-text">{text}</p>
      </details>
    </div>
  );
}
