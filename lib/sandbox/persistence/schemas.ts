import * as v from "valibot";

/**
 * What a store holds, as valibot schemas; the TypeScript types are inferred from them. Drivers that
 * read rows back from a database (IndexedDB, SQLite) validate them here, so a corrupt or foreign row
 * becomes a typed error instead of a wrong object. The field names follow upstream sandbox-agent's
 * `SessionRecord` / `SessionEvent` so a driver written for upstream ports with few changes.
 */

const Json = v.unknown();
const Timestamp = v.pipe(v.number(), v.integer(), v.minValue(0));
const NonEmpty = v.pipe(v.string(), v.minLength(1));

/** Who wrote an envelope: the client (outbound) or the agent side (inbound). */
export const SenderSchema = v.picklist(["client", "agent"]);

/** A JSON-RPC 2.0 envelope as stored: an object with `jsonrpc: "2.0"`; the rest is kept as is. */
export const PayloadSchema = v.looseObject({ jsonrpc: v.literal("2.0") });

export const SessionRecordSchema = v.looseObject({
  /** The local session id: stable across connections, reloads and restarts. */
  id: NonEmpty,
  agent: v.string(),
  /** The session id the agent gave this session on its latest connection. */
  agentSessionId: v.string(),
  /** The connection the session was last attached to (resume sends it back to a stateful server). */
  lastConnectionId: v.string(),
  /** The connection stream's `Last-Event-ID` cursor when last seen. */
  lastEventId: v.optional(v.string()),
  createdAt: Timestamp,
  endedAt: v.optional(Timestamp),
  metadata: v.optional(v.record(v.string(), Json)),
  /** The parameters the session was created with (cwd, MCP servers), to create it again. */
  sessionInit: v.optional(v.record(v.string(), Json)),
  modes: v.optional(v.nullable(Json)),
  configOptions: v.optional(v.array(Json)),
});

/** An event as handed to `insertEvent`: the store assigns `eventIndex`. */
export const NewSessionEventSchema = v.object({
  /** The event's identity (see `eventIdentity`): a second insert with the same id is a no-op. */
  id: NonEmpty,
  sessionId: NonEmpty,
  createdAt: Timestamp,
  connectionId: v.string(),
  sender: SenderSchema,
  payload: PayloadSchema,
});

export const SessionEventSchema = v.object({
  ...NewSessionEventSchema.entries,
  /** 1, 2, 3, ... per session, in insertion order, never reused. */
  eventIndex: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export type Sender = v.InferOutput<typeof SenderSchema>;
export type SessionRecord = v.InferOutput<typeof SessionRecordSchema>;
export type NewSessionEvent = v.InferOutput<typeof NewSessionEventSchema>;
export type SessionEvent = v.InferOutput<typeof SessionEventSchema>;
