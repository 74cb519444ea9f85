import { startDeadline } from "./timeout.js";

/** Whatever a fetch throws once its signal is aborted (or timed out) is the abort. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/**
 * Races `send` against a timer that also aborts it: the call settles by the deadline even
 * when the fetch in use does not honour its signal (an answer arriving later is ignored).
 */
export function withDeadline(timeoutMs: number, send: (signal: AbortSignal) => Promise<Response>): Promise<Response> {
  const controller = new AbortController();
  return new Promise<Response>((resolve, reject) => {
    const cancel = startDeadline(timeoutMs, () => {
      controller.abort();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    });
    let sent: Promise<Response>;
    try {
      sent = send(controller.signal);
    } catch (error) {
      cancel();
      reject(error);
      return;
    }
    sent.then(resolve, reject).finally(cancel);
  });
}
