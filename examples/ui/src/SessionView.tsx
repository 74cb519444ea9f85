// One open session: its heading (title, pickers, usage, the panes), the transcript (virtualised), the
// permission card and the question card while the agent waits, the composer and a status line; the side pane when open.
// Keys: Enter sends, Shift+Enter starts a new line, Escape cancels the running turn, Ctrl+` opens or
// closes the terminal.
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import type { SandboxAgentClient, SessionHandle } from "sandbox-agent-rx";
import { useConnectionState, usePermission, useTranscript } from "sandbox-agent-rx/react";
import { FilesPane } from "./panes/FilesPane.js";
import { LogsPane } from "./panes/LogsPane.js";
import { TerminalPane } from "./panes/TerminalPane.js";
import type { ServerAccess } from "./page-exit-kill.js";
import { Pickers } from "./Pickers.js";
import { QuestionCard } from "./QuestionCard.js";
import { TranscriptList } from "./TranscriptList.js";
import { errorText, shortTitle, stopReasonText, usageText } from "./words.js";

export interface OpenedSession {
  sessionId: string;
  /** The store's key for it (the id it was first opened with). */
  localId: string;
  title: string;
  /** The session's folder, to show paths relative to it. */
  cwd?: string;
  /** What session/new or session/load answered (modes, models), when this page has it. */
  handle?: SessionHandle;
}

type Pane = "terminal" | "files" | "logs";
const PANES: Array<[Pane, string]> = [["terminal", "Terminal"], ["files", "Files"], ["logs", "Logs"]];

export function SessionView({ client, server, session, onClose }: {
  client: SandboxAgentClient;
  server: ServerAccess;
  session: OpenedSession;
  onClose(): void;
}) {
  const { sessionId, cwd } = session;
  const transcript = useTranscript(client, sessionId);
  const connection = useConnectionState(client);
  const [text, setText] = useState("");
  const [failure, setFailure] = useState<string>();
  // This page's own prompt in flight, until the transcript shows it. The transcript's running state
  // covers a turn another page started too: after a reload mid-turn the reattached stream brings the
  // turn's end, so Send waits for it rather than prompting into a running turn.
  const [sending, setSending] = useState(false);
  const running = sending || transcript.isRunning;
  const [pane, setPane] = useState<Pane>();
  const input = useRef<HTMLTextAreaElement>(null);

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    const prompt = text.trim();
    if (!prompt || running) return;
    setText("");
    setFailure(undefined);
    setSending(true);
    // What was sent, the turn's end and a failure all arrive in the transcript.
    client
      .prompt(sessionId, prompt)
      .catch((error: unknown) => setFailure(errorText(error)))
      .finally(() => setSending(false));
  };
  const cancel = () => void client.cancel(sessionId).catch((error: unknown) => setFailure(`Cancel failed: ${errorText(error)}`));
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) send(event);
  };
  useEffect(() => {
    const onKeyDown = (event: globalThis.KeyboardEvent) => {
      // Escape inside a pane belongs to it (the shell in the terminal, for one).
      const inPane = event.target instanceof Element && event.target.closest(".pane") !== null;
      if (event.key === "Escape" && running && !inPane) {
        event.preventDefault();
        cancel();
      } else if (event.key === "`" && event.ctrlKey) {
        event.preventDefault();
        setPane((open) => (open === "terminal" ? undefined : "terminal"));
      }
    };
    addEventListener("keydown", onKeyDown);
    return () => removeEventListener("keydown", onKeyDown);
  });
  useEffect(() => input.current?.focus(), []);

  const lastEnd = useMemo(() => {
    for (let i = transcript.size - 1; i >= 0; i--) {
      const entry = transcript.at(i);
      if (entry?.kind === "turn-end") return entry.stopReason;
      if (entry?.kind === "user-message" && !entry.replayed) return undefined;
    }
    return undefined;
  }, [transcript]);
  const usage = usageText(transcript.usage);
  // The agent's own title (session_info_update) names a session the user left untitled.
  const title = session.title === "Untitled session" && transcript.title ? transcript.title : session.title;

  return (
    <section className={`session-view${pane ? " with-pane" : ""}`} data-session={sessionId}>
      <div className="session-bar">
        <div className="session-heading">
          <h2 title={title}>{shortTitle(title)}</h2>
          <span className="muted mono session-id">{sessionId}</span>
        </div>
        <Pickers client={client} sessionId={sessionId} handle={session.handle} currentModeId={transcript.currentModeId}
          currentModelId={transcript.currentModelId} onError={setFailure} />
        <nav className="tabs" aria-label="Panes">
          {PANES.map(([id, label]) => (
            <button key={id} type="button" id={`tab-${id}`} data-tab={label} aria-pressed={pane === id}
              className={pane === id ? "active" : ""} onClick={() => setPane((open) => (open === id ? undefined : id))}>
              {label}
            </button>
          ))}
        </nav>
        <button type="button" className="ghost" id="close-view" title="Close this view (the session goes on)"
          onClick={onClose}>Close</button>
      </div>
      <div className="session-main">
        <TranscriptList transcript={transcript} cwd={cwd} />
        {connection === "reconnecting" ? (
          <div className="banner" id="reconnecting" role="status">Reconnecting… the turn goes on when the stream is back.</div>
        ) : null}
        <PermissionCard client={client} sessionId={sessionId} cwd={cwd} />
        <QuestionCard client={client} sessionId={sessionId} />
        <form className="composer" id="composer" onSubmit={send}>
          <textarea ref={input} name="prompt" rows={3} value={text} onChange={(e) => setText(e.target.value)} onKeyDown={onKey}
            placeholder="Ask the agent… (Enter sends, Shift+Enter: new line, Esc cancels)" aria-label="Prompt" />
          <div className="composer-actions">
            <span className="muted status" id="status" role="status">
              {running ? (transcript.isThinking ? "Thinking…" : "Working…") : lastEnd ? (
                <span id="stop-reason" data-stop-reason={lastEnd}>{stopReasonText(lastEnd)}</span>
              ) : null}
              {failure ? <span className="error" id="failure"> {failure}</span> : null}
            </span>
            {usage ? <span className="muted usage" id="usage">{usage}</span> : null}
            <ContextMeter usage={transcript.usage} />
            <button type="button" className="danger" id="cancel" disabled={!running} onClick={cancel}>Cancel</button>
            <button type="submit" className="primary" id="send" disabled={running}>Send</button>
          </div>
        </form>
      </div>
      {pane ? (
        <aside className="pane" aria-label={pane}>
          {pane === "terminal" ? <TerminalPane client={client} server={server} /> : null}
          {pane === "files" ? <FilesPane client={client} /> : null}
          {pane === "logs" ? <LogsPane client={client} /> : null}
        </aside>
      ) : null}
    </section>
  );
}

/** How full the agent's context window is (`usage_update`), as a meter beside the usage line. */
function ContextMeter({ usage }: { usage: { contextUsed?: number; contextSize?: number } | undefined }) {
  if (usage?.contextUsed === undefined || !usage.contextSize) return null;
  const share = Math.round((100 * usage.contextUsed) / usage.contextSize);
  return (
    <meter id="context-meter" className="context-meter" min={0} max={usage.contextSize} value={usage.contextUsed}
      high={usage.contextSize * 0.8} title={`Context window ${share}% full`} aria-label="Context window used" />
  );
}

function PermissionCard({ client, sessionId, cwd }: { client: SandboxAgentClient; sessionId: string; cwd: string | undefined }) {
  const { request, reply } = usePermission(client, sessionId);
  const first = useRef<HTMLButtonElement>(null);
  // The request whose answer found nothing waiting any more (answered elsewhere, its turn ended):
  // the card says so instead of offering buttons that cannot work.
  const [gone, setGone] = useState<string>();
  // Keyboard users answer at once: the first choice takes the focus when the card appears.
  useEffect(() => first.current?.focus(), [request?.toolCallId]);
  if (!request) return null;
  const title = request.toolCall.title ?? request.toolCallId;
  const stale = gone === request.toolCallId;
  const answer = (optionId: string) => {
    if (!reply(optionId)) setGone(request.toolCallId);
  };
  return (
    <div className="permission-card" id="permission" role="alertdialog" aria-labelledby="permission-title">
      <div className="permission-head">The agent asks for permission</div>
      <div className="permission-title" id="permission-title" title={title}>{shortTitle(title, cwd)}</div>
      {request.toolCall.kind ? <div className="muted">Tool kind: {request.toolCall.kind}</div> : null}
      {stale ? (
        <div className="error" id="permission-gone" role="status">
          This request is no longer waiting for an answer: it was answered elsewhere, or its turn ended.
        </div>
      ) : null}
      <div className="actions">
        {request.options.map((option, i) => (
          <button key={option.optionId} ref={i === 0 ? first : undefined} type="button" data-kind={option.kind}
            className={option.kind.startsWith("allow") ? (option.kind === "allow_once" ? "primary" : "") : "danger"}
            disabled={stale} onClick={() => answer(option.optionId)}>
            {option.name}
          </button>
        ))}
      </div>
    </div>
  );
}
