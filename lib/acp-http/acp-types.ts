import * as v from "valibot";

/**
 * The Agent Client Protocol shapes this client reads, as valibot schemas (the types
 * are inferred from them). Objects are loose: fields a newer protocol version adds
 * pass through untouched, and only what a caller relies on is required.
 *
 * The entry point (index.ts) re-exports the types a user meets in the public API's signatures
 * (method params and results, the agent requests' handlers). The schemas stay inside this layer
 * (client.ts and agent-requests.ts check answers and requests with them), except the three the
 * sandbox layer reads, re-exported as `@internal`.
 */

const Meta = v.optional(v.record(v.string(), v.unknown()));

const ContentBlockSchema = v.looseObject({ type: v.string() });
export type ContentBlock = v.InferOutput<typeof ContentBlockSchema> & { text?: string };

const ImplementationSchema = v.looseObject({
  name: v.string(),
  version: v.optional(v.string()),
  title: v.optional(v.nullable(v.string())),
});
export type Implementation = v.InferOutput<typeof ImplementationSchema>;

const AgentCapabilitiesSchema = v.looseObject({
  loadSession: v.optional(v.boolean()),
  promptCapabilities: v.optional(v.looseObject({})),
  mcpCapabilities: v.optional(v.looseObject({})),
  sessionCapabilities: v.optional(v.looseObject({})),
  _meta: Meta,
});
export type AgentCapabilities = v.InferOutput<typeof AgentCapabilitiesSchema>;

export const InitializeResultSchema = v.looseObject({
  // Numbers per the protocol; some servers echo a string version back.
  protocolVersion: v.union([v.number(), v.string()]),
  agentCapabilities: v.optional(AgentCapabilitiesSchema),
  authMethods: v.optional(v.array(v.looseObject({ id: v.string() }))),
  agentInfo: v.optional(v.nullable(ImplementationSchema)),
  _meta: Meta,
});
export type InitializeResult = v.InferOutput<typeof InitializeResultSchema>;

export interface ClientCapabilities {
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  terminal?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface InitializeParams {
  protocolVersion: number;
  clientCapabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface McpServer {
  name: string;
  [key: string]: unknown;
}

export interface NewSessionParams {
  cwd: string;
  mcpServers: McpServer[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

// Display names are informational: a server that leaves them out (or names the model id
// `id`) still created the session, so its answer must not be refused for that.
const DisplayName = v.optional(v.nullable(v.string()));
/** @internal A session's modes as `session/new` and `session/load` answer them (read by the sandbox layer). */
export const SessionModesSchema = v.looseObject({
  currentModeId: v.string(),
  availableModes: v.array(v.looseObject({ id: v.string(), name: DisplayName })),
});
const SessionModelsSchema = v.looseObject({
  currentModelId: v.string(),
  availableModels: v.array(
    v.looseObject({ modelId: v.optional(v.string()), id: v.optional(v.string()), name: DisplayName }),
  ),
});

export const NewSessionResultSchema = v.looseObject({
  sessionId: v.string(),
  modes: v.optional(v.nullable(SessionModesSchema)),
  models: v.optional(v.nullable(SessionModelsSchema)),
  configOptions: v.optional(v.nullable(v.array(v.unknown()))),
  _meta: Meta,
});
export type NewSessionResult = v.InferOutput<typeof NewSessionResultSchema>;

export interface LoadSessionParams extends NewSessionParams {
  sessionId: string;
}

/** load/resume/fork/set_* answer an object whose fields are all optional; some agents answer null. */
export const LooseResultSchema = v.nullish(v.looseObject({ _meta: Meta }));
export type LooseResult = v.InferOutput<typeof LooseResultSchema>;

export const ForkSessionResultSchema = v.looseObject({ sessionId: v.string(), _meta: Meta });
export type ForkSessionResult = v.InferOutput<typeof ForkSessionResultSchema>;

export interface PromptParams {
  sessionId: string;
  prompt: ContentBlock[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export const PromptResultSchema = v.looseObject({ stopReason: v.string(), _meta: Meta });
export type PromptResult = v.InferOutput<typeof PromptResultSchema>;

export interface CancelParams {
  sessionId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface SetSessionModeParams {
  sessionId: string;
  modeId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface SetSessionConfigOptionParams {
  sessionId: string;
  configId: string;
  value: unknown;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface SetSessionModelParams {
  sessionId: string;
  modelId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ListSessionsParams {
  cwd?: string;
  cursor?: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** @internal One entry of `session/list` (read by the sandbox layer). */
export const SessionInfoSchema = v.looseObject({
  sessionId: v.string(),
  cwd: v.optional(v.string()),
  title: v.optional(v.nullable(v.string())),
  updatedAt: v.optional(v.nullable(v.string())),
  _meta: Meta,
});
export type SessionInfo = v.InferOutput<typeof SessionInfoSchema>;

export const ListSessionsResultSchema = v.looseObject({
  sessions: v.array(SessionInfoSchema),
  nextCursor: v.optional(v.nullable(v.string())),
  _meta: Meta,
});
export type ListSessionsResult = v.InferOutput<typeof ListSessionsResultSchema>;

export interface ResumeSessionParams {
  sessionId: string;
  cwd: string;
  mcpServers?: McpServer[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** `session/close` (RFD): ends one session and its event stream. */
export interface CloseSessionParams {
  sessionId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface AuthenticateParams {
  methodId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** @internal The shape every `session/update` shares (the sandbox layer reads the rest by kind). */
export const SessionUpdateSchema = v.looseObject({ sessionUpdate: v.string() });

const PermissionOptionSchema = v.looseObject({ optionId: v.string(), name: v.string(), kind: v.string() });
export const RequestPermissionParamsSchema = v.looseObject({
  sessionId: v.string(),
  toolCall: v.looseObject({ toolCallId: v.string() }),
  options: v.array(PermissionOptionSchema),
  _meta: Meta,
});
export type RequestPermissionParams = v.InferOutput<typeof RequestPermissionParamsSchema>;
export type PermissionOption = v.InferOutput<typeof PermissionOptionSchema>;

export type RequestPermissionOutcome = { outcome: "cancelled" } | { outcome: "selected"; optionId: string };
export interface RequestPermissionResult {
  outcome: RequestPermissionOutcome;
  _meta?: Record<string, unknown>;
}

export const ReadTextFileParamsSchema = v.looseObject({
  sessionId: v.string(),
  path: v.string(),
  line: v.optional(v.nullable(v.number())),
  limit: v.optional(v.nullable(v.number())),
});
export type ReadTextFileParams = v.InferOutput<typeof ReadTextFileParamsSchema>;
export interface ReadTextFileResult {
  content: string;
  _meta?: Record<string, unknown>;
}

export const WriteTextFileParamsSchema = v.looseObject({
  sessionId: v.string(),
  path: v.string(),
  content: v.string(),
});
export type WriteTextFileParams = v.InferOutput<typeof WriteTextFileParamsSchema>;

/** Terminal requests are passed through with their session id checked and the rest as sent. */
export const TerminalParamsSchema = v.looseObject({ sessionId: v.string() });
export type TerminalParams = v.InferOutput<typeof TerminalParamsSchema>;

export const PROTOCOL_VERSION = 1;
