/**
 * The sandbox-agent client: connect once to an agent in a sandbox, drive sessions,
 * watch their events, and use the server's health, agent and filesystem routes.
 *
 * @module sandbox-agent-rx
 */
export { SandboxAgentClient } from "./client.js";
export type {
  SandboxAgentClientOptions,
  ConnectionState,
  ConnectInfo,
  ConnectOptions,
  PromptEvent,
  SessionView,
  PermissionReply,
  PermissionContext,
  ReadTextFileRequest,
  Logger,
  DisconnectInfo,
  HealthWaitBounds,
  ReconnectAttempt,
} from "./types.js";
export type { RawRequestOptions, RequestResult } from "./raw-request.js";
export type { SessionModes, SessionMode, SessionConfigOption } from "./session-config-schemas.js";
export type { CallOptions } from "./call-options.js";
export type {
  NewSessionOptions,
  SessionHandle,
  PromptOutcome,
  PromptInput,
  SessionListing,
  SessionList,
  ModelList,
  TerminateResult,
} from "./sessions.js";
export type {
  SandboxEvent,
  SandboxEventKind,
  SessionEnded,
  SandboxParseError,
  PermissionRequest,
  PermissionOptionInfo,
} from "./events.js";
export { forSession } from "./events.js";
export { isEvent, isUpdate, ofKind, ofUpdate, type EventOfKind, type UpdateEvent } from "./event-filters.js";
export {
  toTranscript,
  transcriptOf,
  groupEntries,
  type TranscriptGroup,
  type ActivitySummary,
  TranscriptBuilder,
  type Transcript,
  type TranscriptEntry,
  type TranscriptEntryKind,
  type TranscriptNote,
  type TranscriptSource,
  type TranscriptBlock,
  type TranscriptOptions,
  type MessageEntry,
  type ToolCallEntry,
  type ToolDiff,
  type PlanTranscriptEntry,
  type PermissionEntry,
  type ContentBlock,
  type TokenUsage,
} from "./transcript.js";
export type { SessionUpdate, SessionUpdateKind, Content, PlanEntry } from "./session-update.js";
export type { SessionMetadata, SessionRuntimeInfo } from "./metadata.js";
export type { ServerApi } from "./profiles.js";
export type {
  Health,
  AgentInfo,
  AgentConfigOption,
  AgentQueryOptions,
  ServerConnection,
  InstallOptions,
  InstallResult,
  FsEntry,
  FsStat,
  WriteResult,
  MoveResult,
  UploadResult,
} from "./control-schemas.js";
export type { FileSystem } from "./file-system.js";
export type { ReconnectOption, ReconnectPolicy, TokenSource } from "../acp-http/index.js";
export * from "./processes/index.js";
export {
  WebSocketUnavailableError,
  type WebSocketConstructor,
  type WebSocketLike,
} from "../acp-http/web-socket.js";
export * from "./errors/index.js";
export * from "./desktop/index.js";
export * from "./persistence/index.js";
export {
  ServerConfig,
  type McpServerConfig,
  type SkillsConfig,
  type SkillSource,
  type ConfigEntryRef,
  type HealthWaitResult,
} from "./config/index.js";
export {
  startSandbox,
  type SandboxProvider,
  type SandboxInfo,
  type SandboxCreateOptions,
  type SandboxCallOptions,
  type StartSandboxOptions,
  type StartedSandbox,
} from "../providers/index.js";
