/**
 * The sandbox-agent client: connect once to an agent in a sandbox, drive sessions,
 * watch their events, and use the server's health, agent and filesystem routes.
 *
 * The names here are the ones a program writes down; the rest of the types (a desktop's mouse, a
 * process's log entry, ...) are reachable through the client's method signatures.
 *
 * @module sandbox-agent-rx
 */

// --- the client and its connection -------------------------------------------------------
export { SandboxAgentClient } from "./client.js";
export type {
  SandboxAgentClientOptions,
  CallOptions,
  ConnectOptions,
  ConnectInfo,
  ConnectionState,
  DisconnectInfo,
  ReconnectAttempt,
  Logger,
} from "./types.js";
export type { ReconnectPolicy, TokenSource } from "../acp-http/index.js";

// --- sessions, prompts and their events ---------------------------------------------------
export type {
  NewSessionOptions,
  SessionHandle,
  PromptInput,
  PromptOutcome,
  SessionListing,
} from "./sessions/session-calls.js";
export type { SessionView, PromptEvent, PermissionReply, PermissionContext } from "./types.js";
export type { InputRequest, InputReply } from "./types.js";
export type { SandboxEvent, SessionEnded, PermissionRequest } from "./events/events.js";
export { forSession } from "./events/events.js";
export { isEvent, isUpdate, ofKind, ofUpdate, type UpdateEvent } from "./events/event-filters.js";
export type { SessionUpdate, Content, PlanEntry } from "./events/events.js";
export type { SessionMetadata } from "./metadata.js";
export type { SessionModes, SessionConfigOption } from "./sessions/session-config.js";

// --- transcripts -------------------------------------------------------------------------
export {
  toTranscript,
  transcriptOf,
  groupEntries,
  type Transcript,
  type TranscriptEntry,
  type TranscriptGroup,
  type MessageEntry,
  type ToolCallEntry,
  type ToolDiff,
  type PermissionEntry,
  type InputEntry,
  type TranscriptNote,
  type TranscriptSource,
} from "./transcript/index.js";

// --- the server's own routes ---------------------------------------------------------------
export type { Health, AgentInfo, FsEntry } from "./server/control-schemas.js";
export type { FileSystem } from "./server/file-system.js";
export { Processes, Terminal, type ProcessInfo } from "./server/processes/index.js";
export { Desktop } from "./server/desktop/index.js";
export { ServerConfig } from "./server/config/index.js";

// --- errors --------------------------------------------------------------------------------
export {
  SandboxAgentError,
  NotConnectedError,
  AlreadyConnectedError,
  AgentError,
  CallTimeoutError,
  CallAbortedError,
  UnsupportedFeatureError,
  SandboxAgentHttpError,
  NotFoundError,
  DesktopDependenciesMissingError,
  SandboxStartError,
  BodyTooLargeError,
  StoreError,
  LeaseLostError,
  type SandboxErrorKind,
} from "./errors.js";

// --- persistence ---------------------------------------------------------------------------
export {
  memoryStore,
  indexedDbStore,
  createRecorder,
  history$,
  eventIdentity,
  buildReplayText,
  replayFromStore,
  localLeases,
  SessionRecordSchema,
  SessionEventSchema,
  type SessionStore,
  type SessionRecord,
  type SessionEvent,
  type NewSessionEvent,
} from "./persistence/index.js";
export type { ResumedSession } from "./sessions/resume.js";

// --- sandboxes -----------------------------------------------------------------------------
export { startSandbox, type StartedSandbox } from "./client.js";
export type { StartSandboxOptions } from "./start/launch.js";
export type { SandboxProvider, SandboxInfo } from "./start/provider-contract.js";
