// One session: its transcript (virtualised), the permission card while the agent waits, the composer.
import { useState, type FormEvent, type KeyboardEvent } from "react";
import type { SandboxAgentClient } from "sandbox-agent-rx";
import { usePermission, useTranscript } from "sandbox-agent-rx/react";
import { TerminalPane } from "./TerminalPane.js";
import { TranscriptList } from "./TranscriptList.js";

export function Conversation({ client, sessionId }: { client: SandboxAgentClient; sessionId: string }) {
  const transcript = useTranscript(client, sessionId);
  const [text, setText] = useState("");
  const [failure, setFailure] = useState<string>();
  // This page's own prompt in flight. After a reload mid-turn the transcript knows the turn began but
  // not how it ended (the answer went to the page that sent it), so sending follows this, not isRunning.
  const [sending, setSending] = useState(false);
  const [terminal, setTerminal] = useState(false);

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    const prompt = text.trim();
    if (!prompt || sending) return;
    setText("");
    setFailure(undefined);
    setSending(true);
    // What was sent, the turn's end and a failure all arrive in the transcript; nothing to add here.
    client
      .prompt(sessionId, prompt)
      .catch((error: unknown) => setFailure(String((error as Error).message ?? error)))
      .finally(() => setSending(false));
  };
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) send(event);
  };
  const lastEnd = [...transcript.entries].reverse().find((e) => e.kind === "turn-end");

  return (
    <>
      <TranscriptList transcript={transcript} />
      <PermissionCard client={client} sessionId={sessionId} />
      <form className="composer" id="composer" onSubmit={send}>
        <textarea rows={2} value={text} onChange={(e) => setText(e.target.value)} onKeyDown={onKey}
          placeholder="Ask the agent… (Enter sends)" />
        {sending ? (
          <button type="button" className="danger" id="cancel" onClick={() => void client.cancel(sessionId)}>Cancel</button>
        ) : (
          <button type="submit" className="primary" id="send">Send</button>
        )}
        <button type="button" id="terminal-toggle" onClick={() => setTerminal((open) => !open)}>
          {terminal ? "Close terminal" : "Terminal"}
        </button>
      </form>
      <div className="status-line" id="status">
        {transcript.isThinking ? "Thinking…" : transcript.isRunning ? "Working…" : lastEnd?.kind === "turn-end" ? `Stop reason: ${lastEnd.stopReason}` : ""}
        {failure ? ` · ${failure}` : ""}
      </div>
      {terminal ? <TerminalPane client={client} /> : null}
    </>
  );
}

function PermissionCard({ client, sessionId }: { client: SandboxAgentClient; sessionId: string }) {
  const { request, reply } = usePermission(client, sessionId);
  if (!request) return null;
  return (
    <div className="permission-card" id="permission" role="alertdialog">
      <b>The agent asks:</b> <span id="permission-title">{request.toolCall.title ?? request.toolCallId}</span>
      <div className="actions">
        {request.options.map((option) => (
          <button key={option.optionId} type="button" data-kind={option.kind}
            className={option.kind.startsWith("allow") ? "primary" : "danger"} onClick={() => reply(option.optionId)}>
            {option.name}
          </button>
        ))}
      </div>
    </div>
  );
}
