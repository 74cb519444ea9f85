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

// Capabilities are read leniently, as the protocol asks (its schema defaults a malformed one): a
// value of the wrong shape (an older draft's `list: true`) reads as absent and never fails `initialize`.
const lenient = <S extends v.GenericSchema>(schema: S) => v.fallback(v.optional(schema), undefined);
const YesNo = lenient(v.boolean());
// A capability the protocol marks by an object's presence (`{}` on, absent or null off).
const Flag = lenient(v.nullable(v.looseObject({})));
/**
 * The session methods an agent may offer beyond `session/new`, `load` and `prompt`: the stable ones
 * (`list`, `delete`, `additionalDirectories`, `resume`, `close`) and the unstable ones this client
 * sends only when advertised (`fork`, `archive`, `status`, `title`). Read by the coverage check.
 * @internal
 */
export const SessionCapabilitiesSchema = v.looseObject({
  list: Flag,
  delete: Flag,
  additionalDirectories: Flag,
  resume: Flag,
  close: Flag,
  fork: Flag,
  archive: Flag,
  status: Flag,
  title: Flag,
  _meta: Meta,
});
/** The session methods the agent offers (`sessionCapabilities` of `initialize`); each present object is "yes". */
export type SessionCapabilities = v.InferOutput<typeof SessionCapabilitiesSchema>;

/**
 * What `initialize` may say the agent can do, field by field (read by the coverage check).
 * @internal
 */
export const AgentCapabilitiesSchema = v.looseObject({
  loadSession: v.optional(v.boolean()),
  promptCapabilities: v.optional(
    v.looseObject({ image: YesNo, audio: YesNo, embeddedContext: YesNo, _meta: Meta }),
  ),
  mcpCapabilities: v.optional(v.looseObject({ http: YesNo, sse: YesNo, _meta: Meta })),
  sessionCapabilities: lenient(SessionCapabilitiesSchema),
  // `auth.logout`: the agent answers `logout`.
  auth: lenient(v.looseObject({ logout: Flag, _meta: Meta })),
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
/**
 * The agent's answer to `initialize`: the protocol version it speaks, its capabilities and auth methods
 * (`agentInfo` and `agentCapabilities` in v1; `info` and `capabilities` in the v2 draft, whose auth
 * methods are named by `methodId` rather than `id`).
 */
export type InitializeResult = v.InferOutput<typeof InitializeResultSchema> &
  Partial<Pick<v.InferOutput<typeof V2InitializeResultSchema>, "info" | "capabilities">>;

/**
 * What this client can do for the agent, sent in `initialize`: `fs` reads and writes, `terminal`,
 * and `elicitation` (questions to the user, as a form or a URL to open), each set when a handler
 * for it is given. `session` and `auth` are the protocol's other client capabilities, sent as given.
 */
export interface ClientCapabilities {
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  terminal?: boolean;
  elicitation?: { form?: Record<string, unknown> | null; url?: Record<string, unknown> | null };
  session?: Record<string, unknown> | null;
  auth?: { terminal?: boolean; [key: string]: unknown };
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

/**
 * The parameters of `session/new`: the working directory, the MCP servers, and more directories
 * the session may work in (`additionalDirectories`, absolute; when the agent advertises
 * `sessionCapabilities.additionalDirectories`).
 */
export interface NewSessionParams {
  cwd: string;
  mcpServers: McpServer[];
  additionalDirectories?: string[];
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
/**
 * The stop reason of a v2 turn whose idle gave none (the draft lets an agent leave it out, or send
 * one that reads as none): the one name both layers use for it, in a prompt's result and in the
 * transcript.
 */
export const UNREPORTED_STOP_REASON = "unreported";

/**
 * How a prompt's turn ended: why it stopped (`end_turn`, `cancelled`, ...). In v1 the answer to
 * `session/prompt`. In the v2 draft the idle `state_update` that ended the turn: its `stopReason`
 * (`UNREPORTED_STOP_REASON` when it gave none; `cancelled` when the session was closed or deleted),
 * `error` with `stopReason: "error"`, and `messageId`, the user message the acknowledgement named.
 */
export type PromptResult = v.InferOutput<typeof PromptResultSchema> & {
  /** v2 draft: the user message the acknowledgement named (a v1 answer's own fields pass as sent). */
  messageId?: string;
  /** v2 draft, with `stopReason: "error"`: the failure, as a JSON-RPC error object. */
  error?: { code: number; message: string; [key: string]: unknown };
};

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

/**
 * The parameters of `session/set_config_option`: the option's id and its new value, a value id
 * for a `select` option, or `{ type: "boolean", value: true | false }` for a boolean one.
 */
export interface SetSessionConfigOptionParams {
  sessionId: string;
  configId: string;
  type?: "boolean";
  value: string | boolean;
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
  // Informational, like the title: a malformed list does not cost the entry.
  additionalDirectories: v.fallback(v.optional(v.array(v.string())), undefined),
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

/** Where a v2 `session/resume` starts replaying the session's history: `{ type: "start" }` for all of it. */
export type ReplayFrom = { type: "start"; _meta?: Record<string, unknown> } | { type: string; [key: string]: unknown };

/**
 * The parameters of `session/resume` (and of the unstable `session/fork`): the session, directories,
 * MCP servers; in the v2 draft also `replayFrom`, where to replay its history from (none when absent).
 */
export interface ResumeSessionParams {
  sessionId: string;
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: McpServer[];
  replayFrom?: ReplayFrom | null;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * The parameters of the methods that name one session and nothing else: `session/delete` (stable)
 * and the unstable `session/archive`, `session/unarchive`, `session/status`.
 */
export interface SessionIdParams {
  sessionId: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The parameters of the unstable `session/set_title`. */
export interface SetSessionTitleParams {
  sessionId: string;
  title: string;
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

// Each kind of `session/update` with the fields a reader relies on (the rest pass through). The
// enumerations the protocol keeps open (a notice's severity, a compaction's status) stay strings.
const kind = <K extends string, E extends v.ObjectEntries>(name: K, entries: E) =>
  v.looseObject({ sessionUpdate: v.literal(name), ...entries, _meta: Meta });
const ContentChunk = { content: ContentBlockSchema, messageId: v.optional(v.nullable(v.string())) };
const ConfigOptionSchema = v.looseObject({ id: v.string(), name: v.string(), type: v.string() });

/**
 * One schema per `session/update` kind of the stable protocol, by its `sessionUpdate` string
 * (`readSessionUpdate` checks with them; the coverage check reads the keys).
 * @internal
 */
export const SESSION_UPDATE_SCHEMAS = {
  user_message_chunk: kind("user_message_chunk", ContentChunk),
  agent_message_chunk: kind("agent_message_chunk", ContentChunk),
  agent_thought_chunk: kind("agent_thought_chunk", ContentChunk),
  tool_call: kind("tool_call", { toolCallId: v.string(), title: v.string() }),
  tool_call_update: kind("tool_call_update", { toolCallId: v.string() }),
  plan: kind("plan", { entries: v.array(v.looseObject({ content: v.string() })) }),
  available_commands_update: kind("available_commands_update", {
    availableCommands: v.array(v.looseObject({ name: v.string() })),
  }),
  current_mode_update: kind("current_mode_update", { currentModeId: v.string() }),
  config_option_update: kind("config_option_update", { configOptions: v.array(ConfigOptionSchema) }),
  session_info_update: kind("session_info_update", {
    title: v.optional(v.nullable(v.string())),
    updatedAt: v.optional(v.nullable(v.string())),
  }),
  usage_update: kind("usage_update", {
    used: v.number(),
    size: v.number(),
    cost: v.optional(v.nullable(v.looseObject({ amount: v.number(), currency: v.string() }))),
  }),
  notice: kind("notice", { severity: v.string(), title: v.string() }),
  compaction_update: kind("compaction_update", {
    compactionId: v.string(),
    status: v.string(),
    summary: v.optional(v.nullable(v.array(ContentBlockSchema))),
    error: v.optional(v.nullable(v.string())),
  }),
  compaction_summary_chunk: kind("compaction_summary_chunk", { compactionId: v.string(), content: ContentBlockSchema }),
} as const;

type Updates = typeof SESSION_UPDATE_SCHEMAS;
/**
 * A `session/update` of one of the stable protocol's kinds, typed by its `sessionUpdate`: narrow it by
 * that string (`Extract<SessionUpdate, { sessionUpdate: "notice" }>`). Besides the chunks, tool calls,
 * plans, commands and modes: `config_option_update` (the whole set of options), `session_info_update`
 * (`title`, `updatedAt`), `usage_update`, `notice` (`severity`, `title`), `compaction_update`
 * (`compactionId`, `status`, `summary`, `error`) and `compaction_summary_chunk` (`compactionId`, `content`).
 */
export type SessionUpdate = { [K in keyof Updates]: v.InferOutput<Updates[K]> }[keyof Updates];
/** `usage_update`: context tokens `used` of `size`, and the session's cumulative `cost` when the agent knows it. */
export type UsageUpdate = Extract<SessionUpdate, { sessionUpdate: "usage_update" }>;
/**
 * A `session/update`'s `update` as one of the stable protocol's kinds, checked against that kind's
 * schema; `undefined` for a kind this version does not know, or one whose required fields are missing
 * (the envelope itself stays on `envelopes$` either way). On an ACP v2 connection (experimental) pass
 * `protocolVersion` 2 (`client.protocolVersion`) to read the draft's kinds; a malformed v2 update is
 * also reported on `parseErrors$`.
 */
export function readSessionUpdate(update: unknown, protocolVersion?: 1): SessionUpdate | undefined;
/** With `protocolVersion` 2: the update as one of the v2 draft's kinds (`V2SessionUpdate`). */
export function readSessionUpdate(update: unknown, protocolVersion: 2): V2SessionUpdate | undefined;
export function readSessionUpdate(update: unknown, protocolVersion = 1): SessionUpdate | V2SessionUpdate | undefined {
  if (protocolVersion === 2) {
    const checked = checkV2Update(update);
    return checked.ok ? checked.update : undefined;
  }
  const kindOf = (update as { sessionUpdate?: unknown } | null)?.sessionUpdate;
  if (typeof kindOf !== "string" || !Object.hasOwn(SESSION_UPDATE_SCHEMAS, kindOf)) return undefined;
  const parsed = v.safeParse(SESSION_UPDATE_SCHEMAS[kindOf as keyof Updates], update);
  return parsed.success ? (parsed.output as SessionUpdate) : undefined;
}

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

// Where an elicitation belongs: a session (and maybe one of its tool calls), or one request.
const ElicitationScope = {
  sessionId: v.optional(v.string()),
  toolCallId: v.optional(v.nullable(v.string())),
  requestId: v.optional(v.union([v.string(), v.number(), v.null()])),
};
export const CreateElicitationParamsSchema = v.variant("mode", [
  v.looseObject({
    mode: v.literal("form"),
    message: v.string(),
    requestedSchema: v.looseObject({}),
    ...ElicitationScope,
    _meta: Meta,
  }),
  v.looseObject({
    mode: v.literal("url"),
    message: v.string(),
    elicitationId: v.string(),
    url: v.string(),
    ...ElicitationScope,
    _meta: Meta,
  }),
]);
/**
 * The agent's `elicitation/create` request: a question for the user. `mode: "form"` asks for values
 * by a JSON Schema (`requestedSchema`: flat, string/number/boolean/string-array properties); `mode:
 * "url"` asks the user to open `url` (sign-in, payment) and later says `elicitation/complete` with the
 * same `elicitationId`. It is about a session (`sessionId`, maybe a `toolCallId`) or one request.
 */
export type CreateElicitationParams = v.InferOutput<typeof CreateElicitationParamsSchema>;
/**
 * The answer to `elicitation/create`: `accept` (with the form's `content`; for a URL, the user agreed to
 * open it), `decline`, or `cancel` (dismissed, or the turn was cancelled).
 */
export type CreateElicitationResult =
  | {
      action: "accept";
      content?: Record<string, string | number | boolean | string[]> | null;
      _meta?: Record<string, unknown>;
    }
  | { action: "decline"; _meta?: Record<string, unknown> }
  | { action: "cancel"; _meta?: Record<string, unknown> };

export const CompleteElicitationParamsSchema = v.looseObject({ elicitationId: v.string(), _meta: Meta });
/** The agent's `elicitation/complete` notification: the URL elicitation `elicitationId` is finished. */
export type CompleteElicitationParams = v.InferOutput<typeof CompleteElicitationParamsSchema>;

/** The ACP version this client speaks, sent in `initialize`. */
export const PROTOCOL_VERSION = 1;

// --- The ACP v2 draft (experimental) ---
// The shapes this client reads of the draft in the `experimental/v2` entry of @agentclientprotocol/sdk
// 2.4.0 (`schema/v2/schema.json`), as the stable ones above: loose objects, only what a reader relies
// on required. A connection reads them once it negotiated version 2 (protocol-versions.ts).

// v2 lets every `_meta` be null, and a malformed one reads as absent (the schema's
// `x-deserialize-default-on-error`): it never makes an update, least of all an idle, unreadable.
const V2Meta = v.fallback(v.optional(v.nullable(v.record(v.string(), v.unknown()))), undefined);
// Patch semantics (v2): omitted leaves a field unchanged, null clears it; both read as given.
const patch = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));
// A patched field the schema reads leniently: a malformed value reads as left out (unchanged).
const lenientPatch = <S extends v.GenericSchema>(schema: S) => v.fallback(patch(schema), undefined);
// A list whose invalid items are skipped (`x-deserialize-skip-invalid-items`), the rest kept in order;
// a value that is no list at all reads as left out.
const validItems = <S extends v.GenericSchema>(item: S) =>
  v.pipe(
    v.array(v.unknown()),
    v.transform((items) => items.filter((entry) => v.is(item, entry)) as v.InferOutput<S>[]),
  );
const itemsOf = <S extends v.GenericSchema>(item: S) => lenientPatch(validItems(item));
// Terminal output bytes are base64 on the wire (`contentEncoding`), padded or not (`atob` reads both).
const Base64 = v.pipe(
  v.string(),
  v.regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/, "not base64"),
);

/**
 * The agent's answer to a v2 `initialize`: the version it chose, who it is (`info`), what it can do
 * (`capabilities`: `session.prompt`, `session.mcp`, `session.delete`, `session.additionalDirectories`,
 * `auth`) and its auth methods (any listed: it answers `auth/login` and `auth/logout`).
 * @internal
 */
export const V2InitializeResultSchema = v.looseObject({
  protocolVersion: v.number(),
  info: v.fallback(v.optional(ImplementationSchema), undefined),
  capabilities: lenient(
    v.looseObject({
      // What a session offers: prompt content and MCP transports, `session/delete`, more directories.
      session: lenient(
        v.nullable(
          v.looseObject({
            // Each capability is an object (`{}` on, absent or null off), as in the stable session ones.
            prompt: lenient(
              v.nullable(v.looseObject({ image: Flag, audio: Flag, embeddedContext: Flag, _meta: V2Meta })),
            ),
            mcp: lenient(v.nullable(v.looseObject({ stdio: Flag, http: Flag, _meta: V2Meta }))),
            delete: Flag,
            additionalDirectories: Flag,
            _meta: V2Meta,
          }),
        ),
      ),
      auth: lenient(v.nullable(v.looseObject({ _meta: V2Meta }))),
      _meta: V2Meta,
    }),
  ),
  authMethods: v.fallback(v.optional(v.array(v.looseObject({ methodId: v.string() }))), undefined),
  _meta: V2Meta,
});

/**
 * The answer to a v2 `session/prompt`: only that the prompt was inserted, as the user message
 * `messageId`. The turn ends later, with a `state_update` to `idle`.
 * @internal
 */
export const V2PromptAckSchema = v.looseObject({ messageId: v.string(), _meta: V2Meta });

const v2Kind = <K extends string, E extends v.ObjectEntries>(name: K, entries: E) =>
  v.looseObject({ sessionUpdate: v.literal(name), ...entries, _meta: V2Meta });
// A stable kind v2 keeps as it is, but with v2's `_meta` (null allowed, malformed read as absent).
const v2Kept = <E extends v.ObjectEntries>(schema: v.LooseObjectSchema<E, undefined>) =>
  v.looseObject({ ...schema.entries, _meta: V2Meta });
// A v2 chunk always names the message it belongs to.
const Chunk = { messageId: v.string(), content: ContentBlockSchema };
// A content block of a message upsert: a text block has its text (the draft's `TextContent`).
const MessageBlockSchema = v.pipe(
  v.looseObject({ type: v.string(), text: v.optional(v.string()) }),
  v.check((block) => block.type !== "text" || block.text !== undefined, "a text block has its text"),
);
// A message upsert: `content` replaces the whole message when present (null or [] clears it).
const Message = { messageId: v.string(), content: itemsOf(MessageBlockSchema) };
const ToolCallContentSchema = v.looseObject({ type: v.string() });
// A stop reason the agent reports malformed reads as none reported (the protocol says so).
const StopReason = v.fallback(v.optional(v.nullable(v.string())), undefined);
// One step of an items plan: all three fields are required (an entry without them is skipped).
const PlanStepSchema = v.looseObject({ content: v.string(), priority: v.string(), status: v.string(), _meta: V2Meta });
// A plan by its id: `items` lists all its entries; another (custom or future) type names its plan only.
const PlanContentSchema = v.union([
  v.looseObject({ type: v.literal("items"), planId: v.string(), entries: validItems(PlanStepSchema), _meta: V2Meta }),
  v.looseObject({
    type: v.pipe(
      v.string(),
      v.check((type) => type !== "items", "an items plan lists its entries"),
    ),
    planId: v.string(),
  }),
]);

/**
 * One schema per `session/update` kind of the v2 draft, by its `sessionUpdate` string. Besides the
 * stable kinds v2 keeps as they are (`available_commands_update`, `config_option_update`,
 * `session_info_update`, `usage_update`, `notice`, `compaction_update`, `compaction_summary_chunk`):
 * the chunks with a required `messageId`, the message upserts (`user_message`, `agent_message`,
 * `agent_thought`), `state_update` (`running`, `idle` with its `stopReason`, `requires_action`),
 * `tool_call_update` as an upsert (v2 has no `tool_call`), `tool_call_content_chunk`, the agent-owned
 * terminals (`terminal_update` with `command`, `cwd`, `output`, `exitStatus` and `size`;
 * `terminal_output_chunk` with base64 `data`, padded or not) and `plan_update` (by `planId`: an `items`
 * plan lists its entries, each with `content`, `priority` and `status`). What the draft's schema reads
 * leniently is read so: a malformed `_meta` or patched field as left out, an invalid list item skipped.
 * @internal
 */
export const V2_SESSION_UPDATE_SCHEMAS = {
  user_message_chunk: v2Kind("user_message_chunk", Chunk),
  agent_message_chunk: v2Kind("agent_message_chunk", Chunk),
  agent_thought_chunk: v2Kind("agent_thought_chunk", Chunk),
  user_message: v2Kind("user_message", Message),
  agent_message: v2Kind("agent_message", Message),
  agent_thought: v2Kind("agent_thought", Message),
  state_update: v2Kind("state_update", {
    state: v.string(),
    stopReason: StopReason,
    // With stopReason `error`: the failure, as a JSON-RPC error object.
    error: v.fallback(v.optional(v.nullable(v.looseObject({ code: v.number(), message: v.string() }))), undefined),
    background: v.fallback(v.optional(v.nullable(v.array(v.looseObject({})))), undefined),
  }),
  tool_call_update: v2Kind("tool_call_update", {
    toolCallId: v.string(),
    title: lenientPatch(v.string()),
    status: lenientPatch(v.string()),
    content: itemsOf(ToolCallContentSchema),
  }),
  tool_call_content_chunk: v2Kind("tool_call_content_chunk", {
    toolCallId: v.string(),
    content: ToolCallContentSchema,
  }),
  terminal_update: v2Kind("terminal_update", {
    terminalId: v.string(),
    command: lenientPatch(v.string()),
    cwd: lenientPatch(v.string()),
    // Output that is not base64 reads as left out (default-on-error): the exit status beside it is kept.
    output: lenientPatch(v.looseObject({ data: Base64 })),
    exitStatus: lenientPatch(v.looseObject({ exitCode: lenientPatch(v.number()), signal: lenientPatch(v.string()) })),
    size: lenientPatch(v.looseObject({ cols: v.number(), rows: v.number() })),
  }),
  // Its `data` is required: a chunk whose data is not base64 is malformed.
  terminal_output_chunk: v2Kind("terminal_output_chunk", { terminalId: v.string(), data: Base64 }),
  plan_update: v2Kind("plan_update", { plan: PlanContentSchema }),
  available_commands_update: v2Kept(SESSION_UPDATE_SCHEMAS.available_commands_update),
  config_option_update: v2Kept(SESSION_UPDATE_SCHEMAS.config_option_update),
  session_info_update: v2Kept(SESSION_UPDATE_SCHEMAS.session_info_update),
  usage_update: v2Kept(SESSION_UPDATE_SCHEMAS.usage_update),
  notice: v2Kept(SESSION_UPDATE_SCHEMAS.notice),
  compaction_update: v2Kept(SESSION_UPDATE_SCHEMAS.compaction_update),
  compaction_summary_chunk: v2Kept(SESSION_UPDATE_SCHEMAS.compaction_summary_chunk),
} as const;

type V2Updates = typeof V2_SESSION_UPDATE_SCHEMAS;
/**
 * A `session/update` of one of the ACP v2 draft's kinds (experimental), typed by its `sessionUpdate`:
 * narrow it by that string (`Extract<V2SessionUpdate, { sessionUpdate: "user_message" }>`). Messages,
 * thoughts, tool calls and terminals are upserts keyed by `messageId`, `toolCallId` or `terminalId`:
 * a field left out leaves the stored value as it was, `null` clears it, a value replaces it; the
 * chunks append. `state_update` says whether the session is `running`, `requires_action` or `idle`
 * (an idle ends foreground work, with its `stopReason`).
 */
export type V2SessionUpdate = { [K in keyof V2Updates]: v.InferOutput<V2Updates[K]> }[keyof V2Updates];

/** Why a v2 update could not be read: its kind is known but a field it requires is missing or malformed. */
export type V2UpdateCheck =
  | { ok: true; update: V2SessionUpdate }
  | { ok: false; kind: string | undefined; error: string };

/**
 * Checks a v2 update against its kind's schema. A kind this draft does not define is `ok: false`
 * with `kind` undefined only when `sessionUpdate` itself is missing; an unknown kind string passes
 * the check as unread (`kind` set, `error` empty), since the protocol lets agents add kinds.
 * @internal
 */
export function checkV2Update(update: unknown): V2UpdateCheck {
  const kindOf = (update as { sessionUpdate?: unknown } | null)?.sessionUpdate;
  if (typeof kindOf !== "string") return { ok: false, kind: undefined, error: "session/update without sessionUpdate" };
  if (!Object.hasOwn(V2_SESSION_UPDATE_SCHEMAS, kindOf)) return { ok: false, kind: kindOf, error: "" };
  const parsed = v.safeParse(V2_SESSION_UPDATE_SCHEMAS[kindOf as keyof V2Updates], update);
  if (parsed.success) return { ok: true, update: parsed.output as V2SessionUpdate };
  const issue = parsed.issues[0];
  const path = issue?.path?.map((item) => String(item.key)).join(".");
  return { ok: false, kind: kindOf, error: `${kindOf}: ${path ? `${path}: ` : ""}${issue?.message ?? "invalid"}` };
}
