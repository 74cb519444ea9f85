// Waiting for a server a provider just started: capped exponential backoff, a deadline, an abort
// signal, a "gone" promise that ends the wait when the process or container died, and a check that
// the answer came from our own server. Clients use config/health.ts instead.
import { PROVIDER_HEALTH_DEFAULTS } from "./defaults.js";
import { CallAbortedError } from "../sandbox/kit.js";

export interface HealthPollOptions {
  token?: string;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
  /** Give up after this long; default 30000 ms. */
  timeoutMs?: number;
  /** Settles when waiting is pointless (the process exited, the container stopped). */
  gone?: Promise<unknown>;
  /** An extra check a 200 must pass (e.g. that it came from this very process). */
  confirm?: () => boolean;
  /** The path probed; default `/v1/health`. */
  path?: string;
}

/** How a wait ended; an abort throws `CallAbortedError` instead. */
export type HealthPollOutcome = "ready" | "gone" | "timeout";

const FIRST_DELAY_MS: number = PROVIDER_HEALTH_DEFAULTS.firstDelayMs;
const MAX_DELAY_MS: number = PROVIDER_HEALTH_DEFAULTS.maxDelayMs;
const PROBE_TIMEOUT_MS: number = PROVIDER_HEALTH_DEFAULTS.probeTimeoutMs;

/** Polls until the server is healthy, `gone` settles, the deadline passes, or `signal` aborts. */
export async function pollHealth(baseUrl: string, options: HealthPollOptions = {}): Promise<HealthPollOutcome> {
  const deadline = Date.now() + (options.timeoutMs ?? PROVIDER_HEALTH_DEFAULTS.timeoutMs);
  const fetcher = options.fetch ?? globalThis.fetch;
  const url = `${baseUrl.replace(/\/+$/, "")}${options.path ?? PROVIDER_HEALTH_DEFAULTS.path}`;
  const headers: Record<string, string> =
    options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` };
  const goneController = new AbortController();
  const markGone = (): void => goneController.abort();
  options.gone?.then(markGone, markGone);
  const gone = goneController.signal;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    throwIfAborted(options.signal);
    if (gone.aborted) return "gone";
    const budget = Math.max(1, Math.min(PROBE_TIMEOUT_MS, deadline - Date.now()));
    const healthy = await probe(fetcher, url, headers, budget, [gone, options.signal]);
    if (healthy && (options.confirm?.() ?? true)) return "ready";
    throwIfAborted(options.signal);
    if (gone.aborted) return "gone";
    if (Date.now() >= deadline) return "timeout";
    await pause(Math.min(delay, Math.max(0, deadline - Date.now())), [gone, options.signal]);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

type Signals = (AbortSignal | undefined)[];

/** One GET, bounded by `ms` and cut by any of `signals` (linked by hand: no AbortSignal.any per probe). */
async function probe(
  fetcher: typeof globalThis.fetch,
  url: string,
  headers: Record<string, string>,
  ms: number,
  signals: Signals,
): Promise<boolean> {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const timer = setTimeout(abort, ms);
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  for (const s of live) s.addEventListener("abort", abort, { once: true });
  try {
    const response = await fetcher(url, { headers, signal: controller.signal });
    await response.arrayBuffer().catch(() => undefined);
    return response.status === 200;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    for (const s of live) s.removeEventListener("abort", abort);
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw new CallAbortedError("waiting for the sandbox to become healthy was aborted", { cause: signal.reason });
}

/** Sleeps `ms`, cut short by either signal. */
function pause(ms: number, signals: Signals): Promise<void> {
  return new Promise((resolve) => {
    const live = signals.filter((s): s is AbortSignal => s !== undefined);
    const done = (): void => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of live) s.addEventListener("abort", done, { once: true });
  });
}
