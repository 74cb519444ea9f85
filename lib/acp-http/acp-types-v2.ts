import * as v from "valibot";
import { SESSION_UPDATE_SCHEMAS } from "./acp-types.js";

/**
 * The ACP v2 draft's shapes this client reads (the experimental `experimental/v2` entry of
 * `@agentclientprotocol/sdk` 2.4.0, `schema/v2/schema.json`), as valibot schemas like the stable
 * ones in acp-types.ts: loose objects, only what a reader relies on required. Only a connection
 * that negotiated version 2 reads them (see protocol-versions.ts).
 */

const Meta = v.optional(v.nullable(v.record(v.string(), v.unknown())));
const ContentBlockSchema = v.looseObject({ type: v.string() });
// Patch semantics (v2): omitted leaves a field unchanged, null clears it; both read as given.
const patch = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));

const ImplementationSchema = v.looseObject({ name: v.string(), version: v.optional(v.string()) });
// Capabilities are read leniently, as the protocol asks: a malformed one reads as absent.
const lenient = <S extends v.GenericSchema>(schema: S) => v.fallback(v.optional(schema), undefined);

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
      session: lenient(v.nullable(v.looseObject({}))),
      auth: lenient(v.nullable(v.looseObject({}))),
      _meta: Meta,
    }),
  ),
  authMethods: v.fallback(v.optional(v.array(v.looseObject({ id: v.string() }))), undefined),
  _meta: Meta,
});

/**
 * The answer to a v2 `session/prompt`: only that the prompt was inserted, as the user message
 * `messageId`. The turn ends later, with a `state_update` to `idle`.
 * @internal
 */
export const V2PromptAckSchema = v.looseObject({ messageId: v.string(), _meta: Meta });

const kind = <K extends string, E extends v.ObjectEntries>(name: K, entries: E) =>
  v.looseObject({ sessionUpdate: v.literal(name), ...entries, _meta: Meta });
// A v2 chunk always names the message it belongs to.
const Chunk = { messageId: v.string(), content: ContentBlockSchema };
// A message upsert: `content` replaces the whole message when present (null or [] clears it).
const Message = { messageId: v.string(), content: patch(v.array(ContentBlockSchema)) };
const ToolCallContentSchema = v.looseObject({ type: v.string() });
// A stop reason the agent reports malformed reads as none reported (the protocol says so).
const StopReason = v.fallback(v.optional(v.nullable(v.string())), undefined);

/**
 * One schema per `session/update` kind of the v2 draft, by its `sessionUpdate` string. Besides the
 * stable kinds v2 keeps as they are (`available_commands_update`, `config_option_update`,
 * `session_info_update`, `usage_update`, `notice`, `compaction_update`, `compaction_summary_chunk`):
 * the chunks with a required `messageId`, the message upserts (`user_message`, `agent_message`,
 * `agent_thought`), `state_update` (`running`, `idle` with its `stopReason`, `requires_action`),
 * `tool_call_update` as an upsert (v2 has no `tool_call`), `tool_call_content_chunk`, the agent-owned
 * terminals (`terminal_update`, `terminal_output_chunk` with base64 `data`) and `plan_update`.
 * @internal
 */
export const V2_SESSION_UPDATE_SCHEMAS = {
  user_message_chunk: kind("user_message_chunk", Chunk),
  agent_message_chunk: kind("agent_message_chunk", Chunk),
  agent_thought_chunk: kind("agent_thought_chunk", Chunk),
  user_message: kind("user_message", Message),
  agent_message: kind("agent_message", Message),
  agent_thought: kind("agent_thought", Message),
  state_update: kind("state_update", {
    state: v.string(),
    stopReason: StopReason,
    // With stopReason `error`: the failure, as a JSON-RPC error object.
    error: v.fallback(v.optional(v.nullable(v.looseObject({ code: v.number(), message: v.string() }))), undefined),
    background: v.fallback(v.optional(v.nullable(v.array(v.looseObject({})))), undefined),
  }),
  tool_call_update: kind("tool_call_update", {
    toolCallId: v.string(),
    title: patch(v.string()),
    status: patch(v.string()),
    content: patch(v.array(ToolCallContentSchema)),
  }),
  tool_call_content_chunk: kind("tool_call_content_chunk", { toolCallId: v.string(), content: ToolCallContentSchema }),
  terminal_update: kind("terminal_update", {
    terminalId: v.string(),
    command: patch(v.string()),
    output: patch(v.looseObject({ data: v.string() })),
    exitStatus: patch(v.looseObject({ exitCode: patch(v.number()), signal: patch(v.string()) })),
  }),
  terminal_output_chunk: kind("terminal_output_chunk", { terminalId: v.string(), data: v.string() }),
  plan_update: kind("plan_update", { plan: v.looseObject({ type: v.string() }) }),
  available_commands_update: SESSION_UPDATE_SCHEMAS.available_commands_update,
  config_option_update: SESSION_UPDATE_SCHEMAS.config_option_update,
  session_info_update: SESSION_UPDATE_SCHEMAS.session_info_update,
  usage_update: SESSION_UPDATE_SCHEMAS.usage_update,
  notice: SESSION_UPDATE_SCHEMAS.notice,
  compaction_update: SESSION_UPDATE_SCHEMAS.compaction_update,
  compaction_summary_chunk: SESSION_UPDATE_SCHEMAS.compaction_summary_chunk,
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
