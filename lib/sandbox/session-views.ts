import { Observable, takeUntil } from "rxjs";
import type { CallOptions } from "./call-options.js";
import type { HistoryEvent, HistoryOptions } from "./persistence/history.js";
import { forSession, ofSession, type SandboxEvent } from "./events.js";
import type { PromptInput, PromptOutcome } from "./sessions.js";
import type { Transcript } from "./transcript.js";
import type { PromptEvent, SessionView } from "./types.js";

/** What a session view is made of: the client's events, its calls, and the end of each connection. */
export interface ViewSource {
  events$: Observable<SandboxEvent>;
  /** Emits when a connection (or a connect attempt) ends. */
  connectionEnded$: Observable<void>;
  prompt(sessionId: string, prompt: PromptInput, call?: CallOptions): Promise<PromptOutcome>;
  cancel(sessionId: string): Promise<void>;
  history$(sessionId: string, options?: HistoryOptions): Observable<HistoryEvent>;
  /** The session's transcript snapshots: stored history, then live events and the client's notes. */
  transcript$(sessionId: string): Observable<Transcript>;
  /** The agent's id on the live connection for a local session id (itself when not a stored session). */
  agentId(sessionId: string): string;
}

/**
 * The turn as an observable: the session's events while it runs, then `stop`, then
 * completion. Unsubscribing before the end aborts the call, which cancels the turn.
 */
export function promptStream(source: ViewSource, sessionId: string, prompt: PromptInput): Observable<PromptEvent> {
  return new Observable<PromptEvent>((subscriber) => {
    const controller = new AbortController();
    const updates = source.events$.pipe(ofSession(sessionId)).subscribe(subscriber);
    source.prompt(sessionId, prompt, { signal: controller.signal }).then(
      (outcome) => {
        subscriber.next({ kind: "stop", stopReason: outcome.stopReason });
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => {
      updates.unsubscribe();
      // After the outcome this does nothing; before it, prompt() sends the cancel.
      controller.abort();
    };
  });
}

/**
 * One session's view. Its `events$` ends with the session or with the connection it was
 * subscribed on (subscribed while disconnected: the next connection), so nothing stays
 * subscribed to the client across reconnects.
 */
export function sessionView(source: ViewSource, id: string): SessionView {
  const sessionId = source.agentId(id);
  return {
    sessionId,
    events$: source.events$.pipe(forSession(sessionId), takeUntil(source.connectionEnded$)),
    prompt: (prompt, options) => source.prompt(sessionId, prompt, options),
    prompt$: (prompt) => promptStream(source, sessionId, prompt),
    cancel: () => source.cancel(sessionId),
    history$: (options) => source.history$(id, options),
    transcript$: source.transcript$(id),
  };
}
