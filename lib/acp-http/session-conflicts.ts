import type { AcpHttpError } from "./errors/http-error.js";
import { sessionOf } from "./session-of.js";

/** Requests that attach a session anew: they are how a conflicted session comes back. */
const REATTACH = new Set(["session/load", "session/resume"]);

/**
 * Sessions the server refused with 409 (the RFD's "stream held elsewhere"): only that session
 * fails, the connection lives on. Its in-flight requests are failed with the 409, new ones
 * fail at once, until a `session/load` or `session/resume` of it succeeds.
 */
export class SessionConflicts {
  readonly #failed = new Map<string, AcpHttpError>();
  /** Request id → the session its params name, while it is in flight. */
  readonly #inFlight = new Map<number, string>();

  /** The 409 that blocks this request, if its session is conflicted and it does not reattach it. */
  blocking(method: string, params: unknown): AcpHttpError | undefined {
    const sessionId = sessionOf(params);
    return sessionId === undefined || REATTACH.has(method) ? undefined : this.#failed.get(sessionId);
  }

  track(id: number, params: unknown): void {
    const sessionId = sessionOf(params);
    if (sessionId !== undefined) this.#inFlight.set(id, sessionId);
  }

  /** The request settled; a successful reattach clears its session. */
  settled(id: number, method: string, params: unknown, ok: boolean): void {
    this.#inFlight.delete(id);
    const sessionId = sessionOf(params);
    if (ok && sessionId !== undefined && REATTACH.has(method)) this.#failed.delete(sessionId);
  }

  /** Marks the session conflicted and fails its in-flight requests through `reject`. */
  fail(sessionId: string, error: AcpHttpError, reject: (id: number, error: AcpHttpError) => void): void {
    this.#failed.set(sessionId, error);
    for (const [id, session] of [...this.#inFlight]) {
      if (session !== sessionId) continue;
      this.#inFlight.delete(id);
      reject(id, error);
    }
  }
}
