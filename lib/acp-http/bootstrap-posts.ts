import { startDeadline } from "../internal/abort.js";

interface InFlight {
  /** Settles once the server answered (or the fetch failed); never rejects. */
  readonly done: Promise<void>;
  abort(): void;
}

/**
 * POSTs sent before the server knew the connection. A server creates the connection (and
 * on some servers spawns the agent process) when such a POST arrives, whether or not the
 * client is still waiting for the answer, so aborting one must not lose track of it: the
 * caller's abort rejects the call at once, but the request itself keeps going until the
 * server has answered, and the close waits for that answer (up to its `closeTimeoutMs`, then
 * it aborts the POST) before its DELETE. A DELETE sent while the server is still creating
 * the connection would find nothing to delete.
 */
export class BootstrapPosts {
  readonly #inFlight = new Set<InFlight>();

  /**
   * Sends through `send` with a signal of its own. `signal` (the caller's) rejects the
   * returned promise with its reason; the request goes on and `onLateAnswer` sees its
   * response, whose body is then released.
   */
  send(
    signal: AbortSignal | undefined,
    send: (signal: AbortSignal) => Promise<Response>,
    onLateAnswer: (response: Response) => void,
  ): Promise<Response> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const own = new AbortController();
    const sent = send(own.signal);
    let detached = false;
    const entry: InFlight = {
      done: sent.then(
        (response) => {
          if (!detached) return;
          onLateAnswer(response);
          void response.body?.cancel().catch(() => undefined);
        },
        () => undefined,
      ),
      abort: () => own.abort(),
    };
    this.#inFlight.add(entry);
    void entry.done.finally(() => this.#inFlight.delete(entry));
    return new Promise<Response>((resolve, reject) => {
      const onAbort = (): void => {
        detached = true;
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      sent.then(
        (response) => {
          signal?.removeEventListener("abort", onAbort);
          if (!detached) resolve(response);
        },
        (error: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          if (!detached) reject(error);
        },
      );
    });
  }

  /** Whether a POST that may create the connection is still waiting for its answer. */
  get pending(): boolean {
    return this.#inFlight.size > 0;
  }

  /** Waits up to `timeoutMs` for every such POST to be answered; true when all were. */
  async answered(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight.size === 0) return true;
    const all = Promise.all([...this.#inFlight].map((entry) => entry.done)).then(() => true);
    let cancel: () => void = () => undefined;
    const deadline = new Promise<boolean>((resolve) => {
      // Unref'd: waiting for a late answer must never keep a process alive on its own.
      cancel = startDeadline(timeoutMs, () => resolve(false), { unref: true });
    });
    const result = await Promise.race([all, deadline]);
    cancel();
    return result;
  }

  /** Gives up on every such POST. */
  abortAll(): void {
    for (const entry of this.#inFlight) entry.abort();
  }
}
