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
/** One block of a prompt or of an agent's message (`type` says which: `text`, `image`, `resource_link`, ...). */
export type ContentBlock = v.InferOutput<typeof ContentBlockSchema> & { text?: string };

const ImplementationSchema = v.looseObject({
  name: v.string(),
  version: v.optional(v.string()),
  title: v.optional(v.nullable(v.string())),
});
/** Who a client or an agent is (`clientInfo`, `agentInfo`): a name, a version, a display title. */
export type Implementation = v.InferOutput<typeof ImplementationSchema>;

const AgentCapabilitiesSchema = v.looseObject({
  loadSession: v.optional(v.boolean()),
  promptCapabilities: v.optional(v.looseObject({})),
  mcpCapabilities: v.optional(v.looseObject({})),
  sessionCapabilities: v.optional(v.looseObject({})),
  _meta: Meta,
});
/** What the agent said it can do in `initialize` (`loadSession`, prompt and MCP capabilities, ...). */
export type AgentCapabilities = v.InferOutput<typeof AgentCapabilitiesSchema>;

export const InitializeResultSchema = v.looseObject({
  // Numbers per the protocol; some servers echo a string version back.
  protocolVersion: v.union([v.number(), v.string()]),
  agentCapabilities: v.optional(AgentCapabilitiesSchema),
  authMethods: v.optional(v.array(v.looseObject({ id: v.string() }))),
  agentInfo: v.optional(v.nullable(ImplementationSchema)),
  _meta: Meta,
});
/** The agent's answer to `initialize`: the protocol version it speaks, its capabilities and auth methods. */
export type InitializeResult = v.InferOutput<typeof InitializeResultSchema>;

/** What this client can do for the agent (`fs` reads and writes, `terminal`), sent in `initialize`. */
export interface ClientCapabilities {
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  terminal?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The parameters of `initialize`. */
export interface InitializeParams {
  protocolVersion: number;
  clientCapabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** An MCP server the agent should connect to for a session; its fields beyond `name` as the protocol defines them. */
export interface McpServer {
  name: string;
  [key: string]: unknown;
}

/** The parameters of `session/new`: the working directory and the MCP servers. */
export interface NewSessionParams {
  cwd: string;
  mcpServers: McpServer[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

// Display names are informational: a server that leaves them out (or names the model id
// `id`) still created the session, so its answer must not be refused for that.
const DisplayName = v.optional(v.nullable(v.string()));
/**
 * A session's modes as `session/new` and `session/load` answer them (read by the sandbox layer).
 * @internal
 */
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
/** The answer to `session/new`: the session id, and its modes, models and config options when the agent has them. */
export type NewSessionResult = v.InferOutput<typeof NewSessionResultSchema>;

/** The parameters of `session/load`: those of `session/new` and the session to load. */
export interface LoadSessionParams extends NewSessionParams {
  sessionId: string;
}

/** load/resume/fork/set_* answer an object whose fields are all optional; some agents answer null. */
export const LooseResultSchema = v.nullish(v.looseObject({ _meta: Meta }));
/**
 * The answer of methods whose result carries nothing required (`session/load`, `session/set_mode`,
 * ...): an object, or null.
 */
export type LooseResult = v.InferOutput<typeof LooseResultSchema>;

export const ForkSessionResultSchema = v.looseObject({ sessionId: v.string(), _meta: Meta });
/** The answer to `session/fork`: the new session's id. */
export type ForkSessionResult = v.InferOutput<typeof ForkSessionResultSchema>;

/** The parameters of `session/prompt`: the session and the prompt's content blocks. */
export interface PromptParams {
  sessionId: string;
  prompt: ContentBlock[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export const PromptResultSchema = v.looseObject({ stopReason: v.string(), _meta: Meta });
/** The answer to `session/prompt` when the turn ends: why it stopped (`end_turn`, `cancelled`, ...). */
export type PromptResult = v.InferOutput<typeof PromptResultSchema>;

/** The parameters of `session/cancel` (a notification): the session whose turn to cancel. */
export interface CancelParams {
  sessionId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The parameters of `session/set_mode`. */
export interface SetSessionModeParams {
  sessionId: string;
  modeId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The parameters of `session/set_config_option`: the option's id and its new value. */
export interface SetSessionConfigOptionParams {
  sessionId: string;
  configId: string;
  value: unknown;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The parameters of `session/set_model`. */
export interface SetSessionModelParams {
  sessionId: string;
  modelId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The parameters of `session/list`: an optional working directory to filter by, and a page cursor. */
export interface ListSessionsParams {
  cwd?: string;
  cursor?: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * One entry of `session/list` (read by the sandbox layer).
 * @internal
 */
export const SessionInfoSchema = v.looseObject({
  sessionId: v.string(),
  cwd: v.optional(v.string()),
  title: v.optional(v.nullable(v.string())),
  updatedAt: v.optional(v.nullable(v.string())),
  _meta: Meta,
});
/** One session in the answer to `session/list`. */
export type SessionInfo = v.InferOutput<typeof SessionInfoSchema>;

export const ListSessionsResultSchema = v.looseObject({
  sessions: v.array(SessionInfoSchema),
  nextCursor: v.optional(v.nullable(v.string())),
  _meta: Meta,
});
/** The answer to `session/list`: one page of sessions, and the cursor of the next. */
export type ListSessionsResult = v.InferOutput<typeof ListSessionsResultSchema>;

/** The parameters of `session/resume`: the session, its working directory and MCP servers. */
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

/** The parameters of `authenticate`: one of the auth methods `initialize` listed. */
export interface AuthenticateParams {
  methodId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * The shape every `session/update` shares (the sandbox layer reads the rest by kind).
 * @internal
 */
export const SessionUpdateSchema = v.looseObject({ sessionUpdate: v.string() });

const PermissionOptionSchema = v.looseObject({ optionId: v.string(), name: v.string(), kind: v.string() });
export const RequestPermissionParamsSchema = v.looseObject({
  sessionId: v.string(),
  toolCall: v.looseObject({ toolCallId: v.string() }),
  options: v.array(PermissionOptionSchema),
  _meta: Meta,
});
/** The agent's `session/request_permission` request: the tool call and the options to pick from. */
export type RequestPermissionParams = v.InferOutput<typeof RequestPermissionParamsSchema>;
/** One option of a permission request (`kind`: `allow_once`, `reject_always`, ...). */
export type PermissionOption = v.InferOutput<typeof PermissionOptionSchema>;

/** What the user chose: an option, or nothing because the turn was cancelled. */
export type RequestPermissionOutcome = { outcome: "cancelled" } | { outcome: "selected"; optionId: string };
/** The answer to `session/request_permission`. */
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
/** The agent's `fs/read_text_file` request: a path, and optionally a first line and a line count. */
export type ReadTextFileParams = v.InferOutput<typeof ReadTextFileParamsSchema>;
/** The answer to `fs/read_text_file`: the file's text. */
export interface ReadTextFileResult {
  content: string;
  _meta?: Record<string, unknown>;
}

export const WriteTextFileParamsSchema = v.looseObject({
  sessionId: v.string(),
  path: v.string(),
  content: v.string(),
});
/** The agent's `fs/write_text_file` request: a path and the text to write. */
export type WriteTextFileParams = v.InferOutput<typeof WriteTextFileParamsSchema>;

/** Terminal requests are passed through with their session id checked and the rest as sent. */
export const TerminalParamsSchema = v.looseObject({ sessionId: v.string() });
/** The parameters of the agent's `terminal/*` requests: the session id checked, the rest as sent. */
export type TerminalParams = v.InferOutput<typeof TerminalParamsSchema>;

/** The ACP version this client speaks, sent in `initialize`. */
export const PROTOCOL_VERSION = 1;
