// Abort, deadline and timer helpers shared by the protocol client and the sandbox client: a call's
// `{ signal, timeoutMs }` becomes one AbortSignal (deadlineSignal), `timeoutMs` is normalised here
// only, and no helper leaves a listener or a timer behind (every link is undone when its caller is done).

/** Runs `fn` after I/O callbacks already queued (setImmediate), or on the next timer turn in browsers. */
export const afterPendingIo: (fn: () => void) => void =
  typeof setImmediate === "function" ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

/** Aborts `target` when `source` aborts; returns the unlinking function (no listener outlives the call). */
export function linkSignal(source: AbortSignal | undefined, target: AbortController): () => void {
  if (!source) return () => undefined;
  if (source.aborted) {
    target.abort(source.reason);
    return () => undefined;
  }
  const relay = () => target.abort(source.reason);
  source.addEventListener("abort", relay, { once: true });
  return () => source.removeEventListener("abort", relay);
}

/**
 * `promise`, unless `signal` aborts first: then it rejects with `onAbort(signal.reason)`.
 * The work behind `promise` goes on; only the wait ends.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: (reason: unknown) => Error,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(onAbort(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const relay = () => reject(onAbort(signal.reason));
    signal.addEventListener("abort", relay, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", relay));
  });
}

/**
 * A call's `{ signal, timeoutMs }` as one signal: it aborts with the caller's reason, or with
 * `timeoutReason(ms)` once the deadline passes, so whatever a call does on abort (tell the agent,
 * end a turn) it does on timeout too, and the reason tells the two apart. Without a deadline the
 * caller's own signal is returned (nothing is allocated). A bad `timeoutMs` throws a TypeError.
 * `dispose` drops the timer and the link (call it when the call is over).
 */
export function deadlineSignal(
  options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined },
  timeoutReason: (timeoutMs: number) => unknown,
): { signal: AbortSignal | undefined; dispose(): void } {
  const timeoutMs = normalizeTimeout(options.timeoutMs);
  if (timeoutMs === undefined) return { signal: options.signal, dispose: () => undefined };
  const controller = new AbortController();
  const unlink = linkSignal(options.signal, controller);
  const cancel = startDeadline(timeoutMs, () => controller.abort(timeoutReason(timeoutMs)));
  return {
    signal: controller.signal,
    dispose: () => {
      cancel();
      unlink();
    },
  };
}

/**
 * The largest delay a JavaScript timer honours (2^31 − 1 ms, about 24.8 days). Node
 * fires a longer one at once, and ky rejects it with a RangeError; a deadline that
 * long means "none" to any caller.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Normalises a caller's `timeoutMs`: undefined, ≥ 2^31 − 1 or Infinity mean no
 * deadline (undefined is returned); 0 and up to the limit are kept. A negative value
 * or NaN is a caller bug and throws a TypeError at the call, before anything is sent.
 */
export function normalizeTimeout(timeoutMs: number | undefined, what = "timeoutMs"): number | undefined {
  if (timeoutMs === undefined) return undefined;
  if (typeof timeoutMs !== "number" || Number.isNaN(timeoutMs) || timeoutMs < 0) {
    throw new TypeError(`${what} must be a non-negative number of milliseconds (got ${String(timeoutMs)})`);
  }
  return timeoutMs >= MAX_TIMER_MS ? undefined : timeoutMs;
}

/**
 * Starts a timer for a normalised deadline, or none when there is no deadline.
 * `unref`: the timer does not keep a Node process alive. Returns the function that cancels it.
 */
export function startDeadline(
  timeoutMs: number | undefined,
  onTimeout: () => void,
  options: { unref?: boolean } = {},
): () => void {
  const ms = normalizeTimeout(timeoutMs);
  if (ms === undefined) return () => undefined;
  const handle = setTimeout(onTimeout, ms);
  if (options.unref) (handle as { unref?: () => void }).unref?.();
  return () => clearTimeout(handle);
}

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
      // Named like the DOM's, so a caller tells "not answered in time" from a failure.
      reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: "TimeoutError" }));
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

/** Waits `ms`, or less when `signal` aborts (at once if it already has); never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
