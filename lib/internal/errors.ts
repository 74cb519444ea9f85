// The protocol layer's error base (the sandbox layer has its own and maps this one by `kind`). It
// lives here, below lib/acp-http, because the shared header helpers (./http.ts) throw one of its
// kinds; lib/acp-http/errors re-exports both.

/**
 * What went wrong, for code that branches without `instanceof`; each {@link AcpError} subclass
 * sets one (an interrupted request one of two), and the base has no default. A closed union, so a
 * `switch` over it is checked for exhaustiveness: what a server said (an HTTP status, a problem
 * body's type, a JSON-RPC code) is a field of the error, never a kind.
 * - `aborted`: the caller's `AbortSignal` fired, or it unsubscribed (`AcpAbortError`).
 * - `timeout`: the request's own `timeoutMs` passed (`AcpTimeoutError`).
 * - `closed`: the connection is gone, see its `reason` (`AcpConnectionClosedError`).
 * - `connection-rebuilt`, `stream-lost`: the answer can no longer arrive (`AcpInterruptedError`).
 * - `http`: a non-2xx answer, with `status` and `problem` (`AcpHttpError`).
 * - `rpc`: the peer answered with a JSON-RPC error, with `code` (`AcpRpcError`).
 * - `protocol`: the peer broke the protocol (`AcpProtocolError`).
 * - `network`: the HTTP exchange itself failed, no status (`AcpNetworkError`).
 * - `message-too-large`: one message passed `maxMessageBytes` (`AcpMessageTooLargeError`).
 * - `invalid-header`: a header value has CR or LF; nothing was sent (`AcpInvalidHeaderError`).
 * - `websocket-unavailable`: no WebSocket was given and the runtime has none (`WebSocketUnavailableError`).
 * - `unsupported`: an unstable method the agent did not advertise; nothing was sent (`AcpUnsupportedError`).
 */
export type AcpErrorKind =
  | "aborted"
  | "timeout"
  | "closed"
  | "connection-rebuilt"
  | "stream-lost"
  | "http"
  | "rpc"
  | "protocol"
  | "network"
  | "message-too-large"
  | "invalid-header"
  | "websocket-unavailable"
  | "unsupported";

/**
 * The base of every error this client throws, so callers can tell our failures
 * apart from their own with one `instanceof` check, and tell them apart by `kind`.
 */
export class AcpError extends Error {
  override name = "AcpError";
  /** Which failure this is; each subclass narrows it to its own. */
  readonly kind: AcpErrorKind;

  constructor(message: string, options: { kind: AcpErrorKind; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options.kind;
  }
}

/** A header value would split the request (CR or LF); refused before anything is sent. The value is never echoed. */
export class AcpInvalidHeaderError extends AcpError {
  override name = "AcpInvalidHeaderError";
  declare readonly kind: "invalid-header";
  readonly header: string;

  constructor(header: string) {
    super(`header "${header}" has a CR or LF character in its value; refusing to send it`, { kind: "invalid-header" });
    this.header = header;
  }
}
