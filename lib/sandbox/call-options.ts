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
 * Receives the client's debug and warning lines; callers pass ids and statuses, never tokens.
 * (The protocol layer's logger has the same shape; the public surface names neither layer.)
 */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}
