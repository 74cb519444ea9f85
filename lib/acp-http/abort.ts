/**
 * Small AbortSignal utilities shared by both layers. They never leave a listener behind:
 * every link is undone when the caller is done with it.
 */
import { normalizeTimeout, startDeadline } from "./timeout.js";

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

/** A signal that aborts when any of `signals` does; `dispose` drops the links (call it when done). */
export function anySignal(signals: readonly (AbortSignal | undefined)[]): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const unlinks = signals.map((signal) => linkSignal(signal, controller));
  return { signal: controller.signal, dispose: () => unlinks.forEach((unlink) => unlink()) };
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
