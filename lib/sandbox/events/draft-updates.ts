// The session update kinds of the ACP v2 draft (the SDK 2.4 `schema/v2/schema.json`), beside the
// stable ones in `events.ts`. The draft keeps v1's chunks and `tool_call_update` (now an upsert that
// may create the call) and adds: message, thought and user-message upserts keyed by `messageId`
// (patch semantics: an omitted field stays, `null` clears, an array `content` replaces all of it),
// the session's state (`running`, `requires_action`, `idle` with a stop reason: the turn ends on idle,
// and work may start without a prompt), tool call content chunks, agent-owned terminals (their state
// and output), and plans by id. The shapes are read here structurally, loose as the stable ones are,
// so the sandbox layer does not depend on how the protocol layer types them.
import * as v from "valibot";

/**
 * What the draft's schema marks `x-deserialize-default-on-error`: a value that does not fit is read as
 * omitted, never as a malformed update (so a bad `_meta` on an `idle` still ends the turn).
 */
const lenient = <S extends v.GenericSchema>(schema: S) => v.fallback(v.optional(v.nullable(schema)), undefined);
/** `_meta`: omitted and `null` mean none; any other value that is not an object is ignored (both schemas). */
export const LenientMeta = lenient(v.record(v.string(), v.unknown()));
const Block = v.looseObject({ type: v.string(), text: v.optional(v.string()) });
/** A message's content (`x-deserialize-skip-invalid-items`): an item that is not a content block is left out. */
const Blocks = v.pipe(
  v.array(v.unknown()),
  v.transform((items) => items.filter((item): item is v.InferOutput<typeof Block> => v.is(Block, item))),
);
const PlanStep = v.looseObject({
  content: v.string(),
  priority: v.optional(v.string()),
  status: v.optional(v.string()),
});
// Terminal output is base64 on the wire (padded or not: `atob` reads both); a value that is not base64 is
// a malformed chunk, and a terminal update's output that is not is ignored (default-on-error).
const Base64 = v.pipe(v.string(), v.regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/));

const MessageFields = { messageId: v.string(), content: lenient(Blocks), _meta: LenientMeta };

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
    _meta: LenientMeta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("tool_call_content_chunk"),
    toolCallId: v.string(),
    content: v.looseObject({ type: v.string() }),
    _meta: LenientMeta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("terminal_update"),
    terminalId: v.string(),
    command: lenient(v.string()),
    cwd: lenient(v.string()),
    output: lenient(v.looseObject({ data: Base64 })),
    exitStatus: lenient(v.looseObject({ exitCode: lenient(v.number()), signal: lenient(v.string()) })),
    size: lenient(v.looseObject({ cols: v.number(), rows: v.number() })),
    _meta: LenientMeta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("terminal_output_chunk"),
    terminalId: v.string(),
    data: Base64,
    _meta: LenientMeta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("plan_update"),
    // `items` carries the whole list; other (custom or future) content types name their plan only.
    plan: v.pipe(
      v.looseObject({ type: v.string(), planId: v.string(), entries: v.optional(v.array(PlanStep)) }),
      v.check((plan) => plan.type !== "items" || plan.entries !== undefined, "an items plan lists its entries"),
    ),
    _meta: LenientMeta,
  }),
] as const;

/** The `sessionUpdate` strings only the draft has: an update of one of them that does not parse is malformed. */
export const DRAFT_UPDATE_KINDS: ReadonlySet<string> = new Set(
  DRAFT_UPDATE_SCHEMAS.map((schema) => schema.entries.sessionUpdate.literal),
);
