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

/** The valibot schema of a stored session record (what `SessionStore.updateSession` takes). */
export const SessionRecordSchema = v.looseObject({
  id: NonEmpty,
  agent: v.string(),
  agentSessionId: v.string(),
  lastConnectionId: v.string(),
  lastEventId: v.optional(v.string()),
  createdAt: Timestamp,
  endedAt: v.optional(Timestamp),
  metadata: v.optional(v.record(v.string(), Json)),
  sessionInit: v.optional(v.record(v.string(), Json)),
  modes: v.optional(v.nullable(Json)),
  configOptions: v.optional(v.array(Json)),
});

/** An event as handed to `insertEvent`: the store assigns `eventIndex`. */
export const NewSessionEventSchema = v.object({
  id: NonEmpty,
  sessionId: NonEmpty,
  createdAt: Timestamp,
  connectionId: v.string(),
  sender: SenderSchema,
  payload: PayloadSchema,
});

/** The valibot schema of a stored session event (an envelope with its session, index and sender). */
export const SessionEventSchema = v.object({
  ...NewSessionEventSchema.entries,
  eventIndex: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export type Sender = v.InferOutput<typeof SenderSchema>;
/**
 * A stored session.
 * - `id`: the local session id: stable across connections, reloads and restarts.
 * - `agentSessionId`: the session id the agent gave this session on its latest connection.
 * - `lastConnectionId`: the connection the session was last attached to (resume sends it back to a
 *   stateful server).
 * - `lastEventId`: the connection stream's `Last-Event-ID` cursor when last seen.
 * - `sessionInit`: the parameters the session was created with (cwd, MCP servers, additional
 *   directories), to create it again.
 */
export type SessionRecord = v.InferOutput<typeof SessionRecordSchema>;
/**
 * An event as handed to `insertEvent`: the store assigns `eventIndex`.
 * - `id`: the event's identity (see `eventIdentity`): a second insert with the same id is a no-op.
 */
export type NewSessionEvent = v.InferOutput<typeof NewSessionEventSchema>;
/**
 * A stored event.
 * - `id`: the event's identity (see `eventIdentity`): a second insert with the same id is a no-op.
 * - `eventIndex`: 1, 2, 3, ... per session, in insertion order, never reused.
 */
export type SessionEvent = v.InferOutput<typeof SessionEventSchema>;
