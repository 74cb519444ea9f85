/** How long a lost stream's verdict waits for the reopen at most (a GET that hangs, a server that is down). */
export const LOSS_VERDICT_MAX_MS = 3000;

/**
 * Session streams ended where the server cannot replay them, waiting for the verdict on what was
 * in flight. A stream that ends on a server without event ids may mean that only the stream ended
 * (it reopens: what was written meanwhile is gone, the requests waiting on it fail as `stream-lost`)
 * or that the connection is gone (the reopen gets 404: the recovery or the close fails everything,
 * and a caller who retries at once finds the recovery under way instead of racing it). So the
 * verdict comes when the stream is open again, when it is given up or its session closed, or after
 * `maxWaitMs` at most; a reset or close of the connection cancels it.
 */
export class StreamLosses {
  readonly #pending = new Map<string, { cause: Error; timer: ReturnType<typeof setTimeout> }>();
  readonly #maxWaitMs: number;
  readonly #onLost: (sessionId: string, cause: Error) => void;

  constructor(maxWaitMs: number, onLost: (sessionId: string, cause: Error) => void) {
    this.#maxWaitMs = maxWaitMs;
    this.#onLost = onLost;
  }

  /** The session's stream ended and cannot be replayed; the first end's cause is kept until the verdict. */
  dropped(sessionId: string, cause: Error): void {
    if (this.#pending.has(sessionId)) return;
    const timer = setTimeout(() => this.settle(sessionId), this.#maxWaitMs);
    // A verdict pending must never keep a process alive on its own.
    (timer as { unref?: () => void }).unref?.();
    this.#pending.set(sessionId, { cause, timer });
  }

  /** The verdict is in (the stream reopened, or is gone for good): what waited on it is lost. */
  settle(sessionId: string): void {
    const pending = this.#pending.get(sessionId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.#pending.delete(sessionId);
    this.#onLost(sessionId, pending.cause);
  }

  /** The connection is reset or closed: whoever handles that fails what is in flight. */
  clear(): void {
    for (const { timer } of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
  }
}
