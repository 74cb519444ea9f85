import { normalizeTimeout } from "./timeout.js";
import type { WebSocketWatchdogPolicy } from "./ws-watchdog.js";

/**
 * How the event stream comes back after a drop. Every reconnect counts against
 * `maxRetries`, clean end-of-stream included (a server that idles streams out must
 * not earn an endless loop); the count resets only once new data has arrived.
 */
export interface ReconnectPolicy {
  /** First delay, in ms. Default 500. */
  initialDelayMs?: number;
  /** Upper bound for one delay, in ms. Default 10 000. */
  maxDelayMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** Random spread as a fraction of the delay (0.2 = ±20 %). Default 0.2. */
  jitter?: number;
  /** Attempts before the connection is declared closed. Default 6. */
  maxRetries?: number;
  /**
   * Reconnect when nothing at all (not even a heartbeat comment) arrived for this long.
   * Off by default: a quiet stream is not a broken one.
   */
  stallTimeoutMs?: number;
  /**
   * `transport: "websocket"`: the liveness watchdog (pings with `ws`; silence while requests wait
   * elsewhere). A stall closes the socket and goes the lost-connection way (`recover`).
   */
  webSocket?: WebSocketWatchdogPolicy;
}

/** The WebSocket watchdog's settings are normalised by the socket's transport (`normalizeWatchdogPolicy`). */
export type NormalizedReconnectPolicy = Required<Omit<ReconnectPolicy, "stallTimeoutMs" | "webSocket">> & {
  stallTimeoutMs: number | undefined;
};

export function normalizeReconnectPolicy(policy: ReconnectPolicy = {}): NormalizedReconnectPolicy {
  return {
    initialDelayMs: nonNegative(policy.initialDelayMs, 500),
    maxDelayMs: nonNegative(policy.maxDelayMs, 10_000),
    factor: Math.max(1, policy.factor ?? 2),
    jitter: Math.min(1, nonNegative(policy.jitter, 0.2)),
    maxRetries: nonNegative(policy.maxRetries, 6),
    // Too long for a timer means no watchdog; a negative one is refused at construction.
    stallTimeoutMs: normalizeTimeout(policy.stallTimeoutMs, "reconnect.stallTimeoutMs"),
  };
}

/**
 * The delay before reconnect attempt `attempt` (1-based). A `retry:` value from the
 * server replaces the exponential base but keeps the jitter, so many clients told
 * the same value do not come back in lockstep.
 */
export function reconnectDelay(
  policy: NormalizedReconnectPolicy,
  attempt: number,
  serverRetryMs?: number,
  random: () => number = Math.random,
): number {
  const base =
    serverRetryMs ?? Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.factor ** Math.max(0, attempt - 1));
  const spread = base * policy.jitter;
  return Math.max(0, Math.round(base - spread + random() * 2 * spread));
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value === undefined || !Number.isFinite(value) || value < 0 ? fallback : value;
}
