import { AcpError } from "../../internal/errors.js";

/**
 * Why a connection ended; `disconnected` is the only clean one. `initialize-failed`: the
 * first `initialize` failed, so the connection never came up (the error is the `cause`).
 */
export type CloseReason =
  | "disconnected"
  | "retries-exhausted"
  | "connection-lost"
  | "unauthorized"
  | "stream-rejected"
  | "initialize-failed";

/**
 * The connection is gone: every request still pending when it ended, and every
 * request made afterwards, fails with this error (never stays pending).
 */
export class AcpConnectionClosedError extends AcpError {
  override name = "AcpConnectionClosedError";
  readonly reason: CloseReason;
  readonly method: string | undefined;

  constructor(reason: CloseReason, options?: { method?: string; cause?: unknown }) {
    const prefix = options?.method ? `${options.method} failed: ` : "";
    super(
      `${prefix}connection closed (${reason})${causeSuffix(options?.cause)}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = reason;
    this.method = options?.method;
  }
}

function causeSuffix(cause: unknown): string {
  return cause instanceof Error ? `: ${cause.message}` : "";
}
