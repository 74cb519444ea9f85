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
