import { SandboxAgentError } from "./sandbox-agent-error.js";

/** Why there is no connection, where the client knows: its connect failed, or its connection ended. */
export type NotConnectedReason = "connect-failed" | "connection-ended";

/**
 * A session method was called with no live connection. The message says why when the client knows
 * (the connect failed, with its reason, or the connection ended) and what to do; `cause` is that
 * connect's error or the connection's `ConnectionLostError`.
 */
export class NotConnectedError extends SandboxAgentError {
  override name = "NotConnectedError";
  readonly method: string;
  readonly reason: NotConnectedReason | undefined;

  constructor(method: string, options?: { cause?: unknown; reason?: NotConnectedReason }) {
    super(message(method, options?.reason, options?.cause), options?.cause === undefined ? undefined : { cause: options.cause });
    this.method = method;
    this.reason = options?.reason;
  }
}

function message(method: string, reason: NotConnectedReason | undefined, cause: unknown): string {
  const why = cause instanceof Error ? cause.message : cause === undefined ? "" : String(cause);
  if (reason === "connect-failed") {
    // The connect's own errors name it ("connect failed: ...", "connect timed out ..."); say it where they do not.
    const failed = /^connect\b/.test(why) ? why : `connect failed${why ? `: ${why}` : ""}`;
    return `${method}: not connected: ${failed}; call connect() to try again`;
  }
  if (reason === "connection-ended") {
    return `${method}: not connected: the connection ended${why ? ` (${why})` : ""}; call connect() to open a new one`;
  }
  return `${method}: not connected; call connect() first`;
}
