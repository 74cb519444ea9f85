import { NetworkError } from "./call-errors.js";

/**
 * Why a request could not be sent, read down its cause chain: fetch's own message ("fetch failed")
 * says little, the reason (`connect ECONNREFUSED 127.0.0.1:2468`, a DNS failure) is in its cause.
 */
export function networkReason(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  // Duck-typed: an error from another realm (fetch's, under a test runner's VM) is no `instanceof Error`.
  for (let depth = 0; typeof current === "object" && current !== null && depth < 4; depth++) {
    const { message, code, cause } = current as { message?: unknown; code?: unknown; cause?: unknown };
    const text = typeof message === "string" && message ? message : typeof code === "string" ? code : "";
    if (text && !parts.includes(text)) parts.push(text);
    current = cause;
  }
  return parts.join(": ") || String(error);
}

/**
 * A request that never reached the server, as the error of the user's call `operation`: the
 * reason, the server's URL where it is known, and what to check.
 */
export function unreachable(operation: string, cause: unknown, baseUrl?: string): NetworkError {
  const where = baseUrl ? ` at ${baseUrl}` : "";
  const message =
    `${operation} failed: cannot reach the server${where} (${networkReason(cause)}); ` +
    "check that the server is running and baseUrl is right";
  return new NetworkError(message, { cause });
}
