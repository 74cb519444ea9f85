// The session list: what listSessions() reports (title, folder, times, live or ended), newest first,
// a form for a new session with a title kept as metadata, and a Delete action on each row where the
// agent said it deletes sessions (`deleteSession`; if it then answers it has no such call, the action
// is off, saying why).
import { useState, type FormEvent } from "react";
import type { SessionListing } from "sandbox-agent-rx";
import { rememberedTitle } from "./tab-memory.js";
import { ago } from "./words.js";

/** The name to show: the caller's metadata title, the one this tab remembers, the agent's, the id. */
export function sessionTitle(s: SessionListing): string {
  const fromMetadata = typeof s.metadata.title === "string" ? s.metadata.title : undefined;
  return fromMetadata ?? rememberedTitle(s.sessionId) ?? s.title ?? s.sessionId;
}

export function SessionList({ sessions, openId, onCreate, onOpen, onRefresh, onDelete, deleteOff }: {
  sessions: SessionListing[] | string;
  openId: string | undefined;
  onCreate(title: string): void;
  onOpen(listing: SessionListing): void;
  onRefresh(): void;
  /** Deletes a session; absent when the agent did not say it can, and then no row has Delete. */
  onDelete?: ((listing: SessionListing) => void) | undefined;
  /** Why the agent cannot delete sessions after all, once it answered so. */
  deleteOff?: string | undefined;
}) {
  const [title, setTitle] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onCreate(title.trim() || "Untitled session");
    setTitle("");
  };
  const sorted = typeof sessions === "string" ? [] : [...sessions].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
  return (
    <aside className="sidebar sessions" aria-label="Sessions">
      <form id="new-session" className="new-session" onSubmit={submit}>
        <input name="title" placeholder="New session title" value={title} onChange={(e) => setTitle(e.target.value)}
          aria-label="New session title" />
        <button type="submit" className="primary" title="New session">New</button>
      </form>
      <div className="sidebar-head">
        <h2>Sessions</h2>
        <button type="button" className="ghost small" id="refresh-sessions" onClick={onRefresh}>Refresh</button>
      </div>
      {typeof sessions === "string" ? <p className="error" id="sessions-error">{sessions}</p> : null}
      {deleteOff ? <p className="muted small" id="delete-off">Delete is off: {deleteOff}.</p> : null}
      {typeof sessions !== "string" && sorted.length === 0 ? (
        <p className="muted empty">No sessions yet. Start one above.</p>
      ) : null}
      <ul className="session-list" id="session-list">
        {sorted.map((s) => {
          const name = sessionTitle(s);
          return (
            <li key={s.sessionId} data-session={s.sessionId} className={s.sessionId === openId ? "selected" : ""}>
              <button type="button" className="session-open" onClick={() => onOpen(s)}
                aria-current={s.sessionId === openId ? "true" : undefined}>
                <span className="session-name">{name}</span>
                {/* The agent's own title (often its first prompt) when it differs from the caller's. */}
                {s.title && s.title !== name ? <span className="muted session-agent-title">{s.title}</span> : null}
                <span className="session-meta muted">
                  <span className={`pill status-${s.ended ? "failed" : "completed"}`}>{s.ended ? "ended" : "live"}</span>
                  {" "}{ago(s.updatedAt ?? s.createdAt)}
                  {s.eventCount !== undefined ? ` · ${s.eventCount} events` : ""}
                </span>
                {s.cwd ? <span className="mono muted session-cwd" title={s.cwd}>{s.cwd}</span> : null}
              </button>
              {onDelete ? (
                <button type="button" className="ghost small session-delete" disabled={deleteOff !== undefined}
                  title={deleteOff ?? `Delete "${name}" at the agent`} aria-label={`Delete ${name}`}
                  onClick={() => {
                    if (window.confirm(`Delete "${name}"? The agent forgets it.`)) onDelete(s);
                  }}>Delete</button>
              ) : null}
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
