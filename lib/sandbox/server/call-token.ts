// The client's token for one request, within that request's bounds. A token function is the
// caller's code (often a refresh against an auth server): it may never settle, and it may fail.
// Neither may hold a call past its deadline, or read as something else (an unreachable server).
import type { TokenSource } from "../../acp-http/index.js";
import { resolveToken } from "../../internal/http.js";
import { untilAborted } from "../../internal/abort.js";
import { tokenFailed } from "../errors.js";
import { stoppedBy } from "../deadline.js";

/**
 * The token to send now for the call `operation`: `source`'s value, or when `signal` aborts first
 * the call's `CallTimeoutError` / `CallAbortedError` (the function goes on; only the wait ends). A
 * function that throws or rejects is an error of kind `token-failed` with its error as `cause`.
 */
export function callToken(
  source: TokenSource | undefined,
  operation: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const token = resolveToken(source).catch((error: unknown) => Promise.reject(tokenFailed(operation, error)));
  // A wait already over (or ended by the signal) leaves the function's later failure handled here.
  token.catch(() => undefined);
  return untilAborted(token, signal, (reason) => stoppedBy(reason, operation));
}
