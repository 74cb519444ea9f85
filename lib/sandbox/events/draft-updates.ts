// The session update kinds of the ACP v2 draft (the SDK 2.4 `schema/v2/schema.json`), beside the
// stable ones in `events.ts`. The draft keeps v1's chunks and `tool_call_update` (now an upsert that
// may create the call) and adds: message, thought and user-message upserts keyed by `messageId`
// (patch semantics: an omitted field stays, `null` clears, an array `content` replaces all of it),
// the session's state (`running`, `requires_action`, `idle` with a stop reason: the turn ends on idle,
// and work may start without a prompt), tool call content chunks, agent-owned terminals (their state
// and output), and plans by id. The shapes are read here structurally, loose as the stable ones are,
// so the sandbox layer does not depend on how the protocol layer types them.
import * as v from "valibot";

const Meta = v.optional(v.nullable(v.record(v.string(), v.unknown())));
const Block = v.looseObject({ type: v.string(), text: v.optional(v.string()) });
const PlanStep = v.looseObject({
  content: v.string(),
  priority: v.optional(v.string()),
  status: v.optional(v.string()),
});
// Terminal output is base64 on the wire; a value that is not base64 is a malformed update.
const Base64 = v.pipe(v.string(), v.regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/));

const MessageFields = { messageId: v.string(), content: v.optional(v.nullable(v.array(Block))), _meta: Meta };

/** The draft's update kinds that the stable protocol does not have, one loose schema each. */
export const DRAFT_UPDATE_SCHEMAS = [
  v.looseObject({ sessionUpdate: v.literal("user_message"), ...MessageFields }),
  v.looseObject({ sessionUpdate: v.literal("agent_message"), ...MessageFields }),
  v.looseObject({ sessionUpdate: v.literal("agent_thought"), ...MessageFields }),
  v.looseObject({
    sessionUpdate: v.literal("state_update"),
    /** `running`, `requires_action`, `idle`, or a custom or future state. */
    state: v.string(),
    /** With `idle`: why the foreground work stopped (omitted, `null` or malformed: not reported). */
    stopReason: v.optional(v.unknown()),
    /** With `stopReason: "error"`: the failure as a JSON-RPC error object. */
    error: v.optional(v.unknown()),
    background: v.optional(v.unknown()),
    _meta: Meta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("tool_call_content_chunk"),
    toolCallId: v.string(),
    content: v.looseObject({ type: v.string() }),
    _meta: Meta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("terminal_update"),
    terminalId: v.string(),
    command: v.optional(v.nullable(v.string())),
    cwd: v.optional(v.nullable(v.string())),
    output: v.optional(v.nullable(v.looseObject({ data: Base64 }))),
    exitStatus: v.optional(v.nullable(v.looseObject({
      exitCode: v.optional(v.nullable(v.number())),
      signal: v.optional(v.nullable(v.string())),
    }))),
    size: v.optional(v.nullable(v.looseObject({ cols: v.number(), rows: v.number() }))),
    _meta: Meta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("terminal_output_chunk"),
    terminalId: v.string(),
    data: Base64,
    _meta: Meta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("plan_update"),
    // `items` carries the whole list; other (custom or future) content types name their plan only.
    plan: v.pipe(
      v.looseObject({ type: v.string(), planId: v.string(), entries: v.optional(v.array(PlanStep)) }),
      v.check((plan) => plan.type !== "items" || plan.entries !== undefined, "an items plan lists its entries"),
    ),
    _meta: Meta,
  }),
] as const;

/** The `sessionUpdate` strings only the draft has: an update of one of them that does not parse is malformed. */
export const DRAFT_UPDATE_KINDS: ReadonlySet<string> = new Set(
  DRAFT_UPDATE_SCHEMAS.map((schema) => schema.entries.sessionUpdate.literal),
);
