// Every error the protocol client throws, in one file. All extend AcpError (lib/internal/errors.ts),
// so one instanceof tells our failures from the caller's, and each sets its `kind` (AcpErrorKind),
// so a caller can branch on a string. A class exists for each kind because each has its own fields:
// aborted, timed out, closed (with `reason`), HTTP (with `status` and `problem`), the agent's
// JSON-RPC error (with `code`), protocol breach, interrupted (two kinds), network, size, header,
// an unstable method the agent did not advertise (with the `capability` it needs).
import { AcpError } from "../internal/errors.js";
import type { ProblemDetails } from "../internal/http.js";
export { AcpError, type AcpErrorKind } from "../internal/errors.js";
export type { ProblemDetails } from "../internal/http.js";
export { AcpInvalidHeaderError } from "../internal/errors.js";
export { WebSocketUnavailableError } from "../internal/web-socket.js";

/** The caller aborted the request through its `AbortSignal` (or unsubscribed). */
export class AcpAbortError extends AcpError {
  override name = "AbortError";
  declare readonly kind: "aborted";
  readonly method: string;

  constructor(method: string, reason?: unknown) {
    super(`${method} was aborted`, { kind: "aborted", cause: reason });
    this.method = method;
  }
}

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
  declare readonly kind: "closed";
  readonly reason: CloseReason;
  readonly method: string | undefined;

  constructor(reason: CloseReason, options?: { method?: string; cause?: unknown }) {
    const prefix = options?.method ? `${options.method} failed: ` : "";
    super(
      `${prefix}connection closed (${reason})${causeSuffix(options?.cause)}`,
      { kind: "closed", cause: options?.cause },
    );
    this.reason = reason;
    this.method = options?.method;
  }
}

function causeSuffix(cause: unknown): string {
  return cause instanceof Error ? `: ${cause.message}` : "";
}

/**
 * A non-2xx HTTP answer. The message names the operation and the status, never a
 * header value (the token lives in one), and `response` is kept out of enumeration
 * so that logging the error cannot dump a live object graph.
 */
export class AcpHttpError extends AcpError {
  override name = "AcpHttpError";
  declare readonly kind: "http";
  readonly status: number;
  readonly problem: ProblemDetails | undefined;
  /** The body as text when it was not problem+json (HTML, plain text), capped. */
  readonly bodyText: string | undefined;
  declare readonly response: Response;

  constructor(
    operation: string,
    response: Response,
    problem: ProblemDetails | undefined,
    bodyText: string | undefined,
  ) {
    super(describe(operation, response.status, problem, bodyText), { kind: "http" });
    this.status = response.status;
    this.problem = problem;
    this.bodyText = bodyText;
    Object.defineProperty(this, "response", { value: response, enumerable: false });
  }
}

function describe(
  operation: string,
  status: number,
  problem: ProblemDetails | undefined,
  bodyText: string | undefined,
): string {
  const summary = problem?.detail ?? problem?.title ?? (bodyText ? bodyText.slice(0, 200) : undefined);
  return `${operation} failed with HTTP ${status}${summary ? `: ${summary}` : ""}`;
}

/**
 * Why a request's answer can no longer arrive:
 * - `connection-rebuilt`: the connection was lost and re-established (re-`initialize`, then
 *   `session/load`); the answer cannot arrive on the new connection.
 * - `stream-lost`: the event stream that would carry the answer (the session's, in the RFD profile)
 *   was ended by the server, which gives no event ids to replay it from: what it wrote while no
 *   stream was attached may be gone. The stream itself is reopened for later events.
 */
export type AcpInterruptionKind = "connection-rebuilt" | "stream-lost";

/**
 * A request in flight whose answer can no longer arrive (see `kind`): whether the agent acted on it
 * is unknown. The client itself is still usable.
 */
export class AcpInterruptedError extends AcpError {
  override name = "AcpInterruptedError";
  readonly method: string | undefined;
  declare readonly kind: AcpInterruptionKind;

  constructor(method: string | undefined, cause?: unknown, kind: AcpInterruptionKind = "connection-rebuilt") {
    const why =
      kind === "stream-lost"
        ? "the event stream carrying its answer ended and the server cannot replay it"
        : "the connection was lost and re-established";
    super(`${method ? `${method} ` : ""}interrupted: ${why}`, { kind, cause });
    this.method = method;
  }
}

/**
 * One message (an SSE event, a POST body, a WebSocket frame) was larger than the client's
 * `maxMessageBytes`. It is reported and dropped; the stream and the connection go on.
 */
export class AcpMessageTooLargeError extends AcpError {
  override name = "AcpMessageTooLargeError";
  declare readonly kind: "message-too-large";
  /** Where it came from: `stream`, `response-body` or `websocket`. */
  readonly source: string;
  /** At least this many bytes (counting may stop once the limit is passed). */
  readonly bytes: number;
  readonly limit: number;

  constructor(source: string, bytes: number, limit: number) {
    super(`a ${source} message of at least ${bytes} bytes exceeds maxMessageBytes (${limit})`, {
      kind: "message-too-large",
    });
    this.source = source;
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** The HTTP exchange itself failed (refused, reset, DNS): there is no status to report. */
export class AcpNetworkError extends AcpError {
  override name = "AcpNetworkError";
  declare readonly kind: "network";
  readonly operation: string;

  constructor(operation: string, cause: unknown) {
    super(`${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { kind: "network", cause });
    this.operation = operation;
  }
}

/** The peer answered with something the protocol does not allow (a malformed result, a missing header). */
export class AcpProtocolError extends AcpError {
  override name = "AcpProtocolError";
  declare readonly kind: "protocol";
  readonly method: string | undefined;
  /** What was wrong, without the method prefix. */
  readonly detail: string;

  constructor(message: string, options?: { method?: string; cause?: unknown }) {
    super(
      options?.method ? `${options.method}: ${message}` : message,
      { kind: "protocol", cause: options?.cause },
    );
    this.method = options?.method;
    this.detail = message;
  }
}

/**
 * `initialize` was answered with a protocol version this client does not speak: asked for 2, one above
 * it, or one it has no profile for (asked for 1, the default, the answer is not checked, as it never
 * was; see the `protocolVersion` option). The connection closes
 * (`initialize-failed`), as the protocol asks; a client asking for v2 of an agent that answers 1 speaks
 * v1 instead and gets no error.
 */
export class AcpProtocolVersionError extends AcpProtocolError {
  override name = "AcpProtocolVersionError";
  /** The version this client asked for. */
  readonly requested: number;
  /** The agent's answer, as it sent it. */
  readonly answered: unknown;

  constructor(requested: number, answered: unknown) {
    super(`the agent answered protocol version ${JSON.stringify(answered)}; this client speaks 1 to ${requested}`, {
      method: "initialize",
    });
    this.requested = requested;
    this.answered = answered;
  }
}

/** A JSON-RPC error answer (the request reached its peer, which said no). */
export class AcpRpcError extends AcpError {
  override name = "AcpRpcError";
  declare readonly kind: "rpc";
  readonly code: number;
  readonly data: unknown;
  readonly method: string;
  /** The peer's own error message, as it sent it. */
  readonly rpcMessage: string;

  constructor(method: string, error: { code: number; message: string; data?: unknown }) {
    super(`${method} failed: ${error.message} (JSON-RPC ${error.code})`, { kind: "rpc" });
    this.method = method;
    this.rpcMessage = error.message;
    this.code = error.code;
    this.data = error.data;
  }
}

/** A caller-requested deadline passed; there is no default deadline on requests. */
export class AcpTimeoutError extends AcpError {
  override name = "AcpTimeoutError";
  declare readonly kind: "timeout";
  readonly method: string;
  readonly timeoutMs: number;

  constructor(method: string, timeoutMs: number) {
    super(`${method} timed out after ${timeoutMs} ms`, { kind: "timeout" });
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * An unstable method (`session/fork`, `session/archive`, `session/status`, `session/set_title`) that
 * the agent did not advertise in `initialize` (`agentCapabilities.sessionCapabilities[capability]`),
 * or called before `initialize`; or a method (or parameter) the connection's protocol version does not
 * have (`session/load` on ACP v2, `replayFrom` on v1: `capability` is then `protocolVersion N`, the
 * version that has it). Nothing was sent.
 */
export class AcpUnsupportedError extends AcpError {
  override name = "AcpUnsupportedError";
  declare readonly kind: "unsupported";
  readonly method: string;
  /**
   * What the method needs: a path in the agent's capabilities (`sessionCapabilities.fork`), or, for a
   * method or parameter the spoken protocol version lacks, `protocolVersion N` (the version that has it).
   */
  readonly capability: string;

  /** `detail`: why, when it is not a capability the agent left out (the message says it instead). */
  constructor(method: string, capability: string, detail?: string) {
    const message = detail
      ? `${method}: ${detail}`
      : `${method} is not supported by this agent (it did not advertise ${capability})`;
    super(message, { kind: "unsupported" });
    this.method = method;
    this.capability = capability;
  }
}
