// How a failure becomes one of errors.ts's: a protocol-layer error by its `kind` (a table, reading
// the error's fields, never its message), an HTTP answer by status and the server's problem code,
// a request that never reached the server.
import {
  AcpError,
  type AcpAbortError,
  type AcpConnectionClosedError,
  type AcpErrorKind,
  type AcpHttpError,
  type AcpInterruptedError,
  type AcpInvalidHeaderError,
  type AcpMessageTooLargeError,
  type AcpNetworkError,
  type AcpProtocolError,
  type AcpRpcError,
  type AcpTimeoutError,
  type AcpUnsupportedError,
  type WebSocketUnavailableError,
} from "../acp-http/index.js";
import {
  AgentError,
  CallAbortedError,
  CallTimeoutError,
  connectionLost,
  DesktopDependenciesMissingError,
  NotFoundError,
  SandboxAgentError,
  SandboxAgentHttpError,
  UnsupportedFeatureError,
  type HttpErrorOptions,
} from "./errors.js";

type ProtocolFailure =
  | AcpAbortError
  | AcpConnectionClosedError
  | AcpHttpError
  | AcpInterruptedError
  | AcpInvalidHeaderError
  | AcpMessageTooLargeError
  | AcpNetworkError
  | AcpProtocolError
  | AcpRpcError
  | AcpTimeoutError
  | AcpUnsupportedError
  | WebSocketUnavailableError;

type FromProtocol = {
  [K in AcpErrorKind]: (error: ProtocolFailure & { kind: K }, method: string) => unknown;
};

/**
 * The agent's message, with the detail its error data carries when the message alone says little:
 * Codex answers a model failure with "Internal error" and the provider's words in `data.message`.
 */
function withDetail(message: string, data: unknown): string {
  const detail = typeof data === "string" ? data
    : typeof data === "object" && data !== null && typeof (data as { message?: unknown }).message === "string"
      ? (data as { message: string }).message
      : undefined;
  return detail && !message.includes(detail) ? `${message}: ${detail}` : message;
}

/** What each protocol-layer kind becomes here, named for the sandbox method `method`. */
const FROM_PROTOCOL: FromProtocol = {
  rpc: (error, method) =>
    new AgentError(method, error.code, withDetail(error.rpcMessage, error.data), error.data, { cause: error }),
  // The same kinds and classes as the control-plane routes' (NotFoundError, a 409's kind, ...).
  http: (error, method) =>
    refineHttpError(new SandboxAgentHttpError(method, error.status, error.problem, error.bodyText, { cause: error })),
  closed: (error, method) => connectionLost(error.reason, method, { cause: error }),
  timeout: (error, method) => new CallTimeoutError(`${method} timed out after ${error.timeoutMs} ms`, { cause: error }),
  aborted: (error, method) => new CallAbortedError(`${method} was aborted`, { cause: error.cause ?? error }),
  network: (error, method) => unreachable(method, error.cause ?? error),
  protocol: (error, method) => new SandboxAgentError(`${method}: ${error.detail}`, { cause: error, kind: "protocol" }),
  "invalid-header": (error, method) =>
    new SandboxAgentError(`${method}: header "${error.header}" has a CR or LF character; refusing to send it`, {
      cause: error,
      kind: "invalid-header",
    }),
  unsupported: (error, method) =>
    new UnsupportedFeatureError(method, `the agent does not advertise ${error.capability}`),
  // Not a call's own failure in this layer's terms: they pass as they are.
  "connection-rebuilt": (error) => error,
  "stream-lost": (error) => error,
  "message-too-large": (error) => error,
  // No WebSocket (Node 20 without `ws`): the same advice, as this layer's error.
  "websocket-unavailable": (error) =>
    new SandboxAgentError(error.message, { cause: error, kind: "websocket-unavailable" }),
};

/**
 * Rewrites a protocol-layer error as the sandbox error a caller of this layer expects, named for the
 * sandbox method (`method`), so no protocol naming leaks through; the original stays as `cause`.
 */
export function toSandboxError(error: unknown, method: string): unknown {
  if (!(error instanceof AcpError)) return error;
  const map = FROM_PROTOCOL[error.kind] as (error: AcpError, method: string) => unknown;
  return map(error, method);
}

/**
 * An HTTP failure refined by its status and the server's problem code (`SandboxAgentHttpError.code`):
 * a `NotFoundError` for any 404 and the filesystem's missing path, a
 * `DesktopDependenciesMissingError` for its problem; `refined` adds the client's finer reading
 * (a process's or a stream's kind, a process id). Anything already refined, and non-HTTP errors,
 * pass unchanged.
 */
export function refineHttpError(error: unknown, refined: Omit<HttpErrorOptions, "cause"> = {}): unknown {
  if (!(error instanceof SandboxAgentHttpError) || error.constructor !== SandboxAgentHttpError) return error;
  const { code } = error;
  const target =
    code === "desktop_dependencies_missing"
      ? DesktopDependenciesMissingError
      : isMissingPath(error) || (error.status === 404 && code !== "invalid_request")
        ? NotFoundError
        : undefined;
  // The filesystem's missing path is a 400 `invalid_request` on the wire; its kind here says what it is.
  if (target === NotFoundError && code === "invalid_request" && refined.kind === undefined) {
    refined = { ...refined, kind: "path-not-found" };
  }
  const same = Object.keys(refined).length === 0;
  if (!target && same) return error;
  const options = { cause: same ? error.cause : error, ...refined };
  return new (target ?? SandboxAgentHttpError)(error.operation, error.status, error.problem, error.bodyText, options);
}

/**
 * A 401 to a client that has no token (nor an `authorization` header of its own) is the token's
 * absence, not its invalidity (the server says "token invalid" either way): kind `token-missing`,
 * with the way out. Anything else passes.
 */
export function credentialsReading(
  error: unknown,
  sent: { token: unknown; headers: Record<string, string> | undefined },
): unknown {
  const authorization = Object.keys(sent.headers ?? {}).some((name) => name.toLowerCase() === "authorization");
  const tokenGiven = sent.token !== undefined || authorization;
  if (tokenGiven || !(error instanceof SandboxAgentHttpError) || error.status !== 401) return error;
  if (error.kind === "token-missing") return error;
  const Class = error.constructor as typeof SandboxAgentHttpError;
  const { operation, status, problem, bodyText } = error;
  return new Class(operation, status, problem, bodyText, { cause: error.cause ?? error, kind: "token-missing" });
}

/**
 * The filesystem's "not found" (both contracts): a 400 `invalid_request` whose detail is
 * `invalid request: path not found: <path>`, not a 404. Its other 400s (not a file, not a
 * directory, exists) are about a path that is there, and stay `invalid-request` errors.
 */
function isMissingPath(error: SandboxAgentHttpError): boolean {
  const detail = error.problem?.detail ?? "";
  return error.status === 400 && error.code === "invalid_request" && /\bpath not found\b/i.test(detail);
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
export function unreachable(operation: string, cause: unknown, baseUrl?: string): SandboxAgentError {
  const where = baseUrl ? ` at ${baseUrl}` : "";
  const message =
    `${operation} failed: cannot reach the server${where} (${networkReason(cause)}); ` +
    "check that the server is running and baseUrl is right";
  return new SandboxAgentError(message, { cause, kind: "network" });
}
