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
export { CLIENT_INFO } from "./client-options.js";
export { MemoryCookieStore, defaultCookieStore, type AcpCookieStore } from "./http-transport.js";
export { DEFAULT_MAX_MESSAGE_BYTES } from "./envelope.js";
export type { AcpRecovery } from "./recovery.js";
export type { WebSocketConstructor, WebSocketLike } from "../internal/web-socket.js";
export type { AcpConnectionState } from "./connection.js";
export type { AcpReconnectAttempt, ReconnectOption, ReconnectPolicy } from "../internal/backoff.js";
export type { TokenSource } from "../internal/http.js";
export type { AcpParseError, ResponseEcho } from "./response-order.js";
export type { CursorAdvance, EventGap } from "./event-stream.js";
export type { AcpClientHandlers, HandlerContext } from "./agent-requests.js";
export { consoleLogger, type AcpLogger } from "../internal/logger.js";
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
// The ACP shapes a user meets in the signatures above (params, results, the agent's requests).
export {
  PROTOCOL_VERSION,
  UNREPORTED_STOP_REASON,
  readSessionUpdate,
  type AgentCapabilities,
  type AuthenticateParams,
  type CancelParams,
  type ClientCapabilities,
  type CloseSessionParams,
  type CompleteElicitationParams,
  type ContentBlock,
  type CreateElicitationParams,
  type CreateElicitationResult,
  type ForkSessionResult,
  type Implementation,
  type InitializeParams,
  type InitializeResult,
  type ListSessionsParams,
  type ListSessionsResult,
  type LoadSessionParams,
  type LooseResult,
  type McpServer,
  type NewSessionParams,
  type NewSessionResult,
  type PermissionOption,
  type PromptParams,
  type PromptResult,
  type ReplayFrom,
  type ReadTextFileParams,
  type ReadTextFileResult,
  type RequestPermissionOutcome,
  type RequestPermissionParams,
  type RequestPermissionResult,
  type ResumeSessionParams,
  type SessionIdParams,
  type SessionInfo,
  type SessionUpdate,
  type SetSessionConfigOptionParams,
  type SetSessionModeParams,
  type SetSessionModelParams,
  type SetSessionTitleParams,
  type TerminalParams,
  type UsageUpdate,
  type V2SessionUpdate,
  type WriteTextFileParams,
} from "./acp-types.js";
// For the sandbox layer only (`@internal`: not in the reference).
export { SessionInfoSchema, SessionModesSchema, SessionUpdateSchema } from "./acp-types.js";
export * from "./errors.js";
export type { AcpProtocolVersion } from "./protocol-versions.js";
export type { AttachSessionOptions } from "./recovery.js";
