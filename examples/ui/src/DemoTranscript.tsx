// `?demo=N`: a synthetic transcript of N entries (prompts, answers, tool calls with diffs), built with
// the SDK's own `transcriptOf`, to show that a long transcript renders only the rows in view.
import { useMemo } from "react";
import { transcriptOf, type SandboxEvent, type TranscriptSource } from "sandbox-agent-rx";
import { TranscriptList } from "./TranscriptList.js";

const S = "demo";
const update = (u: Record<string, unknown>): SandboxEvent => ({ kind: "update", sessionId: S, update: u }) as SandboxEvent;

function events(size: number): TranscriptSource[] {
  const out: TranscriptSource[] = [];
  for (let i = 0; out.length < size; i++) {
    out.push({ kind: "prompt-sent", sessionId: S, prompt: [{ type: "text", text: `Question ${i}` }] });
    out.push(update({ sessionUpdate: "tool_call", toolCallId: `t${i}`, title: `Edit file ${i}`, kind: "edit",
      status: "completed", content: [{ type: "diff", path: `src/f${i}.ts`, oldText: "a", newText: `b${i}` }] }));
    out.push(update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `Answer ${i}: **done**.` } }));
    out.push({ kind: "turn-ended", sessionId: S, stopReason: "end_turn" });
  }
  return out.slice(0, size); // each event makes one entry
}

export function DemoTranscript({ size }: { size: number }) {
  const transcript = useMemo(() => transcriptOf(events(size)), [size]);
  return (
    <div className="app demo">
      <header className="topbar">
        <span className="brand">sandbox-agent<b>rx</b></span>
        <span className="spacer" />
        <span className="badge" id="demo-size">{transcript.size} entries</span>
      </header>
      <main className="demo-main"><TranscriptList transcript={transcript} /></main>
    </div>
  );
}
