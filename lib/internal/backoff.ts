// Reconnect policy and backoff delays, shared by the protocol client's event streams and the
// sandbox's log follower. It sets no default: each caller passes its own (`ACP_DEFAULTS.reconnect`
// in lib/acp-http/defaults.ts, `PROCESS_DEFAULTS.logsReconnect` in lib/sandbox/defaults.ts).
import { normalizeTimeout } from "./abort.js";

/**
 * How the event stream comes back after a drop. Every reconnect counts against
 * `maxRetries`, clean end-of-stream included (a server that idles streams out must
 * not earn an endless loop); the count resets only once new data has arrived.
 */
export interface ReconnectPolicy {
  /** First delay, in ms. Default 500. */
  initialDelayMs?: number;
  /** Upper bound for one delay, in ms, a server's SSE `retry:` included. Default 10 000. */
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

/**
 * One reconnect attempt about to be made (`reconnecting$`), so a UI can say "server unreachable,
 * retrying (3/6)". Once `attempt` = `maxAttempts` has failed too, the connection closes
 * (`retries-exhausted`, or `connection-lost` when a recovery gives up).
 */
export interface AcpReconnectAttempt {
  /** 1-based; it resets once the connection is back and data arrives. */
  attempt: number;
  /** Attempts allowed in all: `maxRetries` for the event stream, `maxRetries + 1` for a recovery. */
  maxAttempts: number;
  /** How long until this attempt starts, in ms (jitter and a server's `retry:` included). */
  nextDelayMs: number;
  /** What failed: the dropped stream's error, or the lost connection's. */
  cause: unknown;
  /** `stream`: the event stream is reopened. `recovery`: a new connection is built (option `recover`). */
  kind: "stream" | "recovery";
}

/** `false`: no reconnect at all; the first drop closes the connection. */
export type ReconnectOption = ReconnectPolicy | false;

/** The WebSocket watchdog's settings are normalised by the socket's transport (`normalizeWatchdogPolicy`). */
export type NormalizedReconnectPolicy = Required<Omit<ReconnectPolicy, "stallTimeoutMs" | "webSocket">> & {
  stallTimeoutMs: number | undefined;
};

/** The values a reconnect policy falls back on: the caller's layer's defaults. */
export type ReconnectDefaults = Readonly<Required<Omit<ReconnectPolicy, "stallTimeoutMs" | "webSocket">>>;

/**
 * `option` with `defaults` for what it leaves out or gets wrong (a negative or non-finite value);
 * `false` is no reconnect at all.
 */
export function normalizeReconnectPolicy(
  option: ReconnectOption | undefined,
  defaults: ReconnectDefaults,
): NormalizedReconnectPolicy {
  const policy: ReconnectPolicy = option === false ? { maxRetries: 0 } : (option ?? {});
  return {
    initialDelayMs: nonNegative(policy.initialDelayMs, defaults.initialDelayMs),
    maxDelayMs: nonNegative(policy.maxDelayMs, defaults.maxDelayMs),
    factor: Math.max(1, policy.factor ?? defaults.factor),
    jitter: Math.min(1, nonNegative(policy.jitter, defaults.jitter)),
    maxRetries: nonNegative(policy.maxRetries, defaults.maxRetries),
    // Too long for a timer means no watchdog; a negative one is refused at construction.
    stallTimeoutMs: normalizeTimeout(policy.stallTimeoutMs, "reconnect.stallTimeoutMs"),
  };
}

/**
 * The delay before reconnect attempt `attempt` (1-based). A `retry:` value from the
 * server replaces the exponential base but keeps the jitter, so many clients told
 * the same value do not come back in lockstep; `maxDelayMs` caps it as it caps the
 * backoff (a server asking for an hour must not park the client for one).
 */
export function reconnectDelay(
  policy: NormalizedReconnectPolicy,
  attempt: number,
  serverRetryMs?: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(
    policy.maxDelayMs,
    serverRetryMs ?? policy.initialDelayMs * policy.factor ** Math.max(0, attempt - 1),
  );
  const spread = base * policy.jitter;
  return Math.max(0, Math.round(base - spread + random() * 2 * spread));
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value === undefined || !Number.isFinite(value) || value < 0 ? fallback : value;
}

/**
 * The WebSocket liveness watchdog (`reconnect.webSocket`). A half-open socket (the peer gone
 * without a close frame or FIN) otherwise looks open forever and every request on it waits.
 */
export interface WebSocketWatchdogPolicy {
  /**
   * How often the watchdog looks, in ms; where the socket has `ping()` (the `ws` package) a ping
   * goes out each time, which the peer answers by protocol. Default 15 000; 0 turns the watchdog off.
   */
  heartbeatMs?: number;
  /**
   * How long without any frame or pong is a stall, in ms. With `ping()`: default twice
   * `heartbeatMs`, counted at any time. Without it (browsers' sockets cannot ping) silence is
   * counted only while requests wait for answers, and only when this is set: an agent may work
   * quietly for long, so pick a bound longer than its quietest turn.
   */
  idleTimeoutMs?: number;
}
