import { sessionOf } from "./session-of.js";

/** Methods that attach an existing session, named in the request: their results carry no `sessionId`. */
const SESSION_FROM_PARAMS: ReadonlySet<string> = new Set(["session/load", "session/resume"]);

/** The session a `session/load` or `session/resume` attaches; undefined for any other method. */
export const loadedSession = (method: string, params: unknown): string | undefined =>
  SESSION_FROM_PARAMS.has(method) ? sessionOf(params) : undefined;

/**
 * Which session streams were opened before their `session/load` or `session/resume` went out (RFD
 * profile), as the official SDK does: some servers (goose) answer the load on that stream and hold the
 * answer until a GET is there. A server may refuse that GET until the session is attached here (qwen:
 * 403), or while its old holder still lets go (409): a refusal before the answer is only noted, since the
 * answer opens the stream again; a GET still pending at the answer is asked once more if refused after it.
 */
export class EarlyLoadStreams {
  /** Opened before their load, which is not answered yet. */
  readonly #unanswered = new Set<string>();
  /** Their load was answered while the stream was there: its next refusal is asked again once. */
  readonly #answered = new Set<string>();

  /** A stream opens for this session's load, before the load goes out. */
  opening(sessionId: string): void {
    this.#unanswered.add(sessionId);
  }

  /** The load failed: whether a stream was opened for it, which is then not wanted. */
  failed(sessionId: string | undefined): boolean {
    return sessionId !== undefined && this.#unanswered.delete(sessionId);
  }

  /** The load was answered; `streaming`: its stream is still there (not refused meanwhile). */
  answered(sessionId: string, streaming: boolean): void {
    if (this.#unanswered.delete(sessionId) && streaming) this.#answered.add(sessionId);
  }

  /** The server accepted the session's GET: a later refusal is not the load's. */
  accepted(sessionId: string): void {
    this.#answered.delete(sessionId);
  }

  /**
   * The session's GET was refused: "wait" while its load is unanswered (only that answer's refusal
   * counts), "retry" when the answer came before the refusal, undefined when the refusal is not the load's.
   */
  refused(sessionId: string): "wait" | "retry" | undefined {
    if (this.#unanswered.has(sessionId)) return "wait";
    return this.#answered.delete(sessionId) ? "retry" : undefined;
  }

  /** The session's stream stopped (it closed): nothing of its load is kept. */
  forget(sessionId: string): void {
    this.#unanswered.delete(sessionId);
    this.#answered.delete(sessionId);
  }

  clear(): void {
    this.#unanswered.clear();
    this.#answered.clear();
  }
}
