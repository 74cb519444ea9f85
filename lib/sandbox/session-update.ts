import * as v from "valibot";

/**
 * Session updates typed by their `sessionUpdate` kind. Each schema is loose: fields a
 * newer agent adds pass through. An update of a kind not listed here is still
 * delivered, as an `unknown-update` event, never dropped.
 */

const Meta = v.optional(v.record(v.string(), v.unknown()));
export const ContentSchema = v.looseObject({ type: v.string(), text: v.optional(v.string()) });
/** A content block of an update (text, image, resource); unknown fields are kept. */
export type Content = v.InferOutput<typeof ContentSchema>;

const ChunkFields = { content: ContentSchema, _meta: Meta };
const ToolCallFields = {
  toolCallId: v.string(),
  title: v.optional(v.nullable(v.string())),
  kind: v.optional(v.nullable(v.string())),
  status: v.optional(v.nullable(v.string())),
  content: v.optional(v.nullable(v.array(v.unknown()))),
  locations: v.optional(v.nullable(v.array(v.looseObject({ path: v.string() })))),
  rawInput: v.optional(v.unknown()),
  rawOutput: v.optional(v.unknown()),
  _meta: Meta,
};

export const PlanEntrySchema = v.looseObject({
  content: v.string(),
  priority: v.optional(v.string()),
  status: v.optional(v.string()),
});
/** One step of the agent's plan, with its priority and status. */
export type PlanEntry = v.InferOutput<typeof PlanEntrySchema>;

export const SessionUpdateSchema = v.variant("sessionUpdate", [
  v.looseObject({ sessionUpdate: v.literal("agent_message_chunk"), ...ChunkFields }),
  v.looseObject({ sessionUpdate: v.literal("user_message_chunk"), ...ChunkFields }),
  v.looseObject({ sessionUpdate: v.literal("agent_thought_chunk"), ...ChunkFields }),
  v.looseObject({ sessionUpdate: v.literal("tool_call"), ...ToolCallFields }),
  v.looseObject({ sessionUpdate: v.literal("tool_call_update"), ...ToolCallFields }),
  v.looseObject({ sessionUpdate: v.literal("plan"), entries: v.array(PlanEntrySchema), _meta: Meta }),
  v.looseObject({
    sessionUpdate: v.literal("available_commands_update"),
    availableCommands: v.array(v.unknown()),
    _meta: Meta,
  }),
  v.looseObject({ sessionUpdate: v.literal("current_mode_update"), currentModeId: v.string(), _meta: Meta }),
  v.looseObject({
    sessionUpdate: v.literal("config_option_update"),
    configOptions: v.array(v.looseObject({ id: v.string() })),
    _meta: Meta,
  }),
  v.looseObject({
    sessionUpdate: v.literal("session_info_update"),
    title: v.optional(v.nullable(v.string())),
    updatedAt: v.optional(v.nullable(v.string())),
    _meta: Meta,
  }),
]);

/** An ACP `session/update` the client understands (message chunks, tool calls, plan, modes, ...), by `sessionUpdate`. */
export type SessionUpdate = v.InferOutput<typeof SessionUpdateSchema>;
export type SessionUpdateKind = SessionUpdate["sessionUpdate"];
