// How a failure becomes one of errors.ts's: a protocol-layer error (by its fields, never its
// message), an HTTP answer (by status and problem kind), a request that never reached the server.
import {
  AcpAbortError,
  AcpConnectionClosedError,
  AcpHttpError,
  AcpInvalidHeaderError,
  AcpNetworkError,
  AcpProtocolError,
  AcpRpcError,
  AcpTimeoutError,
} from "../acp-http/index.js";
import {
  AgentError,
  CallAbortedError,
  CallTimeoutError,
  ConflictError,
  ConnectionLostError,
  DesktopDependenciesMissingError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  ProtocolError,
  SandboxAgentError,
  SandboxAgentHttpError,
  type HttpErrorOptions,
} from "./errors.js";

/**
 * Rewrites a protocol-layer error as the sandbox error a caller of this layer expects, named for the
 * sandbox method (`method`), so no protocol naming leaks through; the original stays as `cause`.
 */
export function toSandboxError(error: unknown, method: string): unknown {
  if (error instanceof SandboxAgentError) return error;
  const cause = { cause: error };
  if (error instanceof AcpRpcError) return new AgentError(method, error.code, error.rpcMessage, error.data, cause);
  if (error instanceof AcpHttpError) {
    // The same classes as the control-plane routes' (NotFoundError, ConflictError, ...).
    return refineHttpError(new SandboxAgentHttpError(method, error.status, error.problem, error.bodyText, cause));
  }
  if (error instanceof AcpConnectionClosedError) return new ConnectionLostError(error.reason, method, cause);
  if (error instanceof AcpTimeoutError) return new CallTimeoutError(`${method} timed out after ${error.timeoutMs} ms`, cause);
  if (error instanceof AcpAbortError) return new CallAbortedError(`${method} was aborted`, { cause: error.cause ?? error });
  if (error instanceof AcpNetworkError) return unreachable(method, error.cause ?? error);
  if (error instanceof AcpProtocolError) return new ProtocolError(`${method}: ${error.detail}`, cause);
  if (error instanceof AcpInvalidHeaderError) {
    const message = `${method}: header "${error.header}" has a CR or LF character; refusing to send it`;
    return new SandboxAgentError(message, { ...cause, kind: "invalid_header" });
  }
  return error;
}

type HttpErrorClass = new (...args: ConstructorParameters<typeof SandboxAgentHttpError>) => SandboxAgentHttpError;

/**
 * The class of an HTTP failure by status and problem kind (`code` for the desktop's own problems);
 * `refined` adds the client's finer reading (a process's kind and id). Anything already refined,
 * and non-HTTP errors, pass unchanged. `conflictAs` picks the class for a 409 (a stream's own class).
 */
export function refineHttpError(
  error: unknown,
  conflictAs: HttpErrorClass = ConflictError,
  refined: Omit<HttpErrorOptions, "cause"> = {},
): unknown {
  if (!(error instanceof SandboxAgentHttpError) || error.constructor !== SandboxAgentHttpError) return error;
  const kind = typeof error.problem?.code === "string" ? error.problem.code : error.kind;
  const target = isMissingPath(error, kind) ? NotFoundError : classFor(error.status, kind, conflictAs);
  const same = Object.keys(refined).length === 0;
  if (!target && same) return error;
  const options = { cause: same ? error.cause : error, ...refined };
  return new (target ?? SandboxAgentHttpError)(error.operation, error.status, error.problem, error.bodyText, options);
}

/**
 * The filesystem's "not found" (both contracts): a 400 `invalid_request` whose detail is
 * `invalid request: path not found: <path>`, not a 404. Its other 400s (not a file, not a
 * directory, exists) are about a path that is there, and stay `InvalidRequestError`s.
 */
function isMissingPath(error: SandboxAgentHttpError, kind: string | undefined): boolean {
  return error.status === 400 && kind === "invalid_request" && /\bpath not found\b/i.test(error.problem?.detail ?? "");
}

function classFor(status: number, kind: string | undefined, conflictAs: HttpErrorClass): HttpErrorClass | undefined {
  if (kind === "desktop_dependencies_missing") return DesktopDependenciesMissingError;
  if (kind === "desktop_runtime_inactive") return ConflictError;
  if (status === 404 && kind !== "invalid_request") return NotFoundError;
  if (status === 409) return conflictAs;
  if (status === 400 || status === 415 || status === 422) return InvalidRequestError;
  return undefined;
}

/**
 * Why a request could not be sent, read down its cause chain: fetch's own message ("fetch failed")
 * says little, the reason (`connect ECONNREFUSED 127.0.0.1:2468`, a DNS failure) is in its cause.
 */
export function networkReason(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
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
