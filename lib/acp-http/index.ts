/**
 * ACP (Agent Client Protocol) over streamable HTTP: a protocol-pure client usable
 * with any server of that shape.
 *
 * @module sandbox-agent-rx/acp-http
 */
export {
  AcpHttpClient,
  RFD_PROFILE,
  type AcpHttpClientOptions,
  type RequestOptions,
  type CloseInfo,
} from "./client.js";
export { CLIENT_INFO } from "./version.js";
export { MemoryCookieStore, defaultCookieStore, type AcpCookieStore } from "./cookie-store.js";
export { DEFAULT_MAX_MESSAGE_BYTES } from "./message-size.js";
export type { AcpRecovery } from "./recovery.js";
export type { WebSocketConstructor, WebSocketLike } from "../internal/web-socket.js";
export type { AcpConnectionState } from "./state.js";
export type { AcpReconnectAttempt, ReconnectOption, ReconnectPolicy } from "../internal/backoff.js";
export type { TokenSource } from "./http.js";
export type { AcpParseError, ResponseEcho } from "./inbound.js";
export type { CursorAdvance, EventGap } from "./event-stream.js";
export type { AcpClientHandlers, HandlerContext } from "./handlers.js";
export { consoleLogger, type AcpLogger } from "./logger.js";
export {
  parseEnvelope,
  validateEnvelope,
  isRequest,
  isNotification,
  isResponse,
  isErrorResponse,
  type AcpEnvelope,
  type AcpRequest,
  type AcpNotification,
  type AcpResponse,
  type AcpSuccessResponse,
  type AcpErrorResponse,
  type JsonRpcId,
  type JsonRpcErrorObject,
} from "./envelope.js";
export * from "./acp-types.js";
export * from "./errors/index.js";
export type { AttachSessionOptions } from "./session-attach.js";
export { reattach, type AcpReattachment, type StoredConnection, type StoredSession } from "./reattach.js";
