// The types every part of the sandbox layer shares, in a module that imports nothing: a part that
// needs `CallOptions` does not then depend on the connection (or anything else) for it.

/**
 * The bounds every call takes: `signal` cancels it (`CallAbortedError`), `timeoutMs` bounds it
 * (`CallTimeoutError`). Neither given: the call waits as long as the server takes.
 */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * A call's bounds below its boundary (`deadline.ts`): `{ signal, timeoutMs }` already made one
 * signal, which aborts with a `CallTimeoutError` when the deadline passes. A `timeoutMs` is refused
 * here by type, so no part below the boundary arms a second timer.
 */
export interface CallSignal {
  signal?: AbortSignal;
  timeoutMs?: never;
}

/**
 * Receives the client's debug and warning lines; callers pass ids and statuses, never tokens.
 * (The protocol layer's logger has the same shape; the public surface names neither layer.)
 */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}
