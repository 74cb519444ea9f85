import { Observable, filter, map, pipe, takeWhile, type OperatorFunction } from "rxjs";
import * as v from "valibot";
import {
  isRequest,
  isResponse,
  parseEnvelope,
  readSessionUpdate,
  type AcpEnvelope,
  type AcpParseError,
  type EventGap,
  type V2SessionUpdate,
} from "../../acp-http/index.js";
import { isPlainObject, safeCopy, type PlainObject } from "../metadata.js";

/**
 * Session updates typed by their `sessionUpdate` kind. Each schema is loose: fields a
 * newer agent adds pass through. An update of a kind not listed here is still
 * delivered, as an `unknown-update` event, never dropped. The kinds only the ACP v2 draft has
 * are read by the protocol layer's reader (`readSessionUpdate(update, 2)`), the one definition of a
 * well-formed v2 update; one of them that does not read is a `parse-error` event.
 */

/** `_meta`: omitted and `null` mean none; any other value that is not an object is ignored (as in the draft). */
const Meta = v.fallback(v.optional(v.nullable(v.record(v.string(), v.unknown()))), undefined);

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

/**
 * The variant's own options by their `sessionUpdate`: an update is checked against its kind's schema,
 * found by a lookup. The variant itself tries the options in turn, with a set and a closure per call,
 * about a quarter of what an update allocated on `events$` (bench scenario 13); the outcome is the same.
 */
const UPDATE_SCHEMAS: ReadonlyMap<string, (typeof SessionUpdateSchema.options)[number]> = new Map(
  SessionUpdateSchema.options.map((option) => [option.entries.sessionUpdate.literal, option]),
);

/**
 * The kinds only the ACP v2 draft has: message, thought and user-message upserts, the session's state,
 * tool call content chunks, agent-owned terminals and plans by id (the draft's chunks and
 * `tool_call_update` are read as the stable ones above).
 */
const DRAFT_KINDS = [
  "user_message",
  "agent_message",
  "agent_thought",
  "state_update",
  "tool_call_content_chunk",
  "terminal_update",
  "terminal_output_chunk",
  "plan_update",
] as const satisfies readonly V2SessionUpdate["sessionUpdate"][];
const DRAFT_ONLY: ReadonlySet<string> = new Set(DRAFT_KINDS);
type DraftUpdate = Extract<V2SessionUpdate, { sessionUpdate: (typeof DRAFT_KINDS)[number] }>;

/**
 * An ACP `session/update` the client understands (message chunks, tool calls, plan, modes, ...; and the
 * v2 draft's upserts, session state, terminals and plans by id), by `sessionUpdate`.
 */
export type SessionUpdate = v.InferOutput<typeof SessionUpdateSchema> | DraftUpdate;
export type SessionUpdateKind = SessionUpdate["sessionUpdate"];

/** How and why a session ended (from the server's ended notification, or the agent's exit). */
export interface SessionEnded {
  sessionId: string | undefined;
  reason: string;
  terminatedBy?: string;
  message?: string;
  exitCode?: number | null;
  stderr?: { head?: string; tail?: string; truncated?: boolean; totalLines?: number };
}

/** Something the agent or the wire produced that could not be understood; nothing else is lost. */
export interface SandboxParseError {
  /**
   * `agent`: a line the agent process wrote that was not a message, or an update of the v2 draft that
   * does not parse (`raw` is the update as it came); `transport`: a frame that was not one.
   */
  source: "agent" | "transport";
  raw: string;
  error: string;
  sessionId?: string;
}

export interface PermissionOptionInfo {
  optionId: string;
  name: string;
  kind: string;
  [key: string]: unknown;
}

/** The agent asks before acting; the answer comes from the client's `onPermissionRequest`. */
export interface PermissionRequest {
  sessionId: string;
  toolCall: PlainObject & { toolCallId: string; title?: string; kind?: string };
  options: PermissionOptionInfo[];
}

/**
 * A question the agent asks the user. `form`: values to fill in, described by `schema` (a flat JSON
 * Schema object: string, number, integer, boolean and string-array properties, `required`). `url`:
 * a page to open (a sign-in, a payment), known by `id`; the agent goes on once the flow there is done.
 * `sessionId` (and `toolCallId`) say what it is about, when the agent says.
 */
export type InputRequest = {
  message: string;
  sessionId?: string;
  toolCallId?: string;
} & ({ kind: "form"; schema: Record<string, unknown> } | { kind: "url"; url: string; id: string });

/**
 * One event of a session or the connection, told apart by `kind`: an agent update, a permission
 * request, a question of the agent (`input-request`, known by its `requestId`), a session that
 * ended, the agent process gone, output that was not understood, a notification of another method,
 * or events lost while the stream was down.
 */
export type SandboxEvent =
  | { kind: "update"; sessionId: string; update: SessionUpdate }
  | { kind: "unknown-update"; sessionId: string; update: PlainObject & { sessionUpdate: string } }
  | ({ kind: "permission-request" } & PermissionRequest)
  | { kind: "input-request"; sessionId: string; requestId: string; request: InputRequest }
  | ({ kind: "session-ended" } & SessionEnded)
  | { kind: "agent-exited"; exitCode: number | null; success: boolean }
  | ({ kind: "parse-error" } & SandboxParseError)
  | { kind: "notification"; method: string; params: unknown; sessionId?: string }
  /**
   * The server no longer had these events when the stream came back: they are lost, and said
   * so. `sessionId` is set when only that session's stream lost them; without it, any session may have.
   */
  | { kind: "events-lost"; stream: string; firstMissing: number; lastMissing: number; sessionId?: string };

export type SandboxEventKind = SandboxEvent["kind"];

const ENDED = new Set(["_sandboxagent/session/ended"]);
const UNPARSED = new Set(["_sandboxagent/agent/unparsed", "_adapter/invalid_stdout"]);
const AGENT_EXITED = "_adapter/agent_exited";

/** Envelopes → sandbox events: updates typed by kind, extension notifications converted, responses dropped. */
export function toSandboxEvents(): OperatorFunction<AcpEnvelope, SandboxEvent> {
  return pipe(
    map(envelopeToEvent),
    filter((event): event is SandboxEvent => event !== undefined),
  );
}

export function envelopeToEvent(envelope: AcpEnvelope): SandboxEvent | undefined {
  if (isResponse(envelope)) return undefined;
  const params: unknown = envelope.params;
  const method = envelope.method;
  if (method === "session/update") return updateEvent(params);
  if (isRequest(envelope)) {
    if (method === "session/request_permission") return permissionEvent(params);
    return method === "elicitation/create" ? inputEvent(envelope.id, params) : undefined;
  }
  if (ENDED.has(method)) return { kind: "session-ended", ...toSessionEnded(params) };
  if (UNPARSED.has(method)) return { kind: "parse-error", ...toAgentParseError(params) };
  if (method === AGENT_EXITED) return agentExitedEvent(params);
  const sessionId = isPlainObject(params) && typeof params.sessionId === "string" ? params.sessionId : undefined;
  return { kind: "notification", method, params, ...(sessionId ? { sessionId } : {}) };
}

function updateEvent(params: unknown): SandboxEvent | undefined {
  if (!isPlainObject(params) || typeof params.sessionId !== "string" || !isPlainObject(params.update)) return undefined;
  const sessionId = params.sessionId;
  const kindOf = params.update.sessionUpdate;
  if (typeof kindOf === "string" && DRAFT_ONLY.has(kindOf)) {
    const read = readSessionUpdate(params.update, 2) as DraftUpdate | undefined;
    if (read) return { kind: "update", sessionId, update: read };
    // A v2 draft update that does not read: said as such, with the update as it came.
    const raw = JSON.stringify(safeCopy(params.update));
    const error = `malformed ${kindOf}: not a well-formed update of the v2 draft`;
    return { kind: "parse-error", source: "agent", raw, error, sessionId };
  }
  const schema = typeof kindOf === "string" ? UPDATE_SCHEMAS.get(kindOf) : undefined;
  const parsed = schema ? v.safeParse(schema, params.update) : undefined;
  if (parsed?.success) return { kind: "update", sessionId, update: parsed.output };
  const update = safeCopy(params.update);
  if (typeof update.sessionUpdate !== "string") return undefined;
  const unknownUpdate = update as PlainObject & { sessionUpdate: string };
  return { kind: "unknown-update", sessionId, update: unknownUpdate };
}

function permissionEvent(params: unknown): SandboxEvent | undefined {
  if (!isPlainObject(params) || typeof params.sessionId !== "string" || !isPlainObject(params.toolCall)) {
    return undefined;
  }
  const offered = Array.isArray(params.options) ? params.options.filter(isPlainObject) : [];
  const options = offered.map((o) => safeCopy(o) as PermissionOptionInfo);
  const toolCall = safeCopy(params.toolCall) as PermissionRequest["toolCall"];
  return { kind: "permission-request", sessionId: params.sessionId, toolCall, options };
}

// A question about no session has no transcript to wait in (its handler still answers it).
function inputEvent(id: unknown, params: unknown): SandboxEvent | undefined {
  const request = inputRequestOf(params);
  if (!request?.sessionId || (typeof id !== "string" && typeof id !== "number")) return undefined;
  return { kind: "input-request", sessionId: request.sessionId, requestId: String(id), request };
}

/**
 * The agent's `elicitation/create` params in this layer's words (no protocol names: `mode` is `kind`,
 * a URL's id is `id`); undefined when they are not a question.
 */
export function inputRequestOf(value: unknown): InputRequest | undefined {
  if (!isPlainObject(value) || typeof value.message !== "string") return undefined;
  const params = safeCopy(value);
  const about = {
    message: value.message,
    ...(typeof params.sessionId === "string" ? { sessionId: params.sessionId } : {}),
    ...(typeof params.toolCallId === "string" ? { toolCallId: params.toolCallId } : {}),
  };
  if (params.mode === "url") {
    if (typeof params.url !== "string" || typeof params.elicitationId !== "string") return undefined;
    return { ...about, kind: "url", url: params.url, id: params.elicitationId };
  }
  const schema = isPlainObject(params.requestedSchema) ? params.requestedSchema : {};
  return { ...about, kind: "form", schema };
}

function agentExitedEvent(params: unknown): SandboxEvent {
  const p = safeCopy(params);
  const exitCode = typeof p.code === "number" ? p.code : null;
  return { kind: "agent-exited", exitCode, success: p.success === true };
}

/**
 * The ended notification's params, snake_case on the wire (`session_id`,
 * `terminated_by`, `exit_code`, `total_lines`), in camelCase. Accepts the camelCase
 * form and a flat (no `data`) form as well, since agents emit their own.
 */
export function toSessionEnded(params: unknown): SessionEnded {
  const p = safeCopy(params);
  const data = isPlainObject(p.data) ? safeCopy(p.data) : p;
  const sessionId = str(p.session_id) ?? str(p.sessionId);
  const ended: SessionEnded = { sessionId, reason: str(data.reason) ?? "unknown" };
  const terminatedBy = str(data.terminated_by) ?? str(data.terminatedBy);
  if (terminatedBy) ended.terminatedBy = terminatedBy;
  const message = str(data.message);
  if (message) ended.message = message;
  // `??` would turn a wire `exit_code: null` (killed by a signal) into "absent".
  const exitCode = "exit_code" in data ? data.exit_code : data.exitCode;
  if (typeof exitCode === "number" || exitCode === null) ended.exitCode = exitCode;
  if (isPlainObject(data.stderr)) {
    const s = safeCopy(data.stderr);
    const stderr: NonNullable<SessionEnded["stderr"]> = {};
    if (typeof s.head === "string") stderr.head = s.head;
    if (typeof s.tail === "string") stderr.tail = s.tail;
    if (typeof s.truncated === "boolean") stderr.truncated = s.truncated;
    const total = s.total_lines ?? s.totalLines;
    if (typeof total === "number") stderr.totalLines = total;
    ended.stderr = stderr;
  }
  return ended;
}

export function toAgentParseError(params: unknown): SandboxParseError {
  const p = safeCopy(params);
  const raw = typeof p.raw === "string" ? p.raw : JSON.stringify(p.raw ?? null);
  const sessionId = str(p.sessionId) ?? str(p.session_id);
  return { source: "agent", raw, error: str(p.error) ?? "unparsed agent output", ...(sessionId ? { sessionId } : {}) };
}

/**
 * A transport-level parse error as a sandbox parse-error event; undefined when it is the protocol
 * layer's report of a malformed v2 update that the update's own event (`updateEvent`) reports already,
 * with the update as it came and its session: one event per bad update. Another update the protocol
 * layer finds malformed (a v2 chunk without its `messageId`, read here as a chunk) keeps its report.
 */
export function fromTransportParseError(error: AcpParseError): SandboxEvent | undefined {
  // Only a frame that is a message at all can be a malformed update (parsed again here only: rare).
  const parse = error.tooLarge ? undefined : parseEnvelope(error.raw);
  const envelope = parse?.ok ? parse.envelope : undefined;
  const update = envelope !== undefined && !isResponse(envelope) && envelope.method === "session/update";
  if (update && envelopeToEvent(envelope)?.kind === "parse-error") return undefined;
  return { kind: "parse-error", source: "transport", raw: error.raw, error: error.error };
}

/**
 * When the agent process exits, every session it held has ended: after the
 * `agent-exited` event, emits a `session-ended` event for each session still open.
 */
export function endSessionsOnAgentExit(
  openSessions: () => Iterable<string>,
): OperatorFunction<SandboxEvent, SandboxEvent> {
  // Not `mergeMap((event) => of(event, ...))`: that made an inner observable and its subscriber for
  // every event, about a third of what an update allocated on `events$` (bench scenario 13).
  return (source) =>
    new Observable<SandboxEvent>((subscriber) =>
      source.subscribe({
        next: (event) => {
          // The sessions open when the agent exited (a copy: each ended event removes its session
          // from the open ones as it passes), read before the exit is delivered.
          const open = event.kind === "agent-exited" ? [...openSessions()] : undefined;
          subscriber.next(event);
          if (open === undefined || event.kind !== "agent-exited") return;
          for (const sessionId of open) {
            subscriber.next({
              kind: "session-ended",
              sessionId,
              reason: event.success ? "completed" : "error",
              terminatedBy: "agent",
              exitCode: event.exitCode,
              ...(event.success ? {} : { message: `agent exited${exitDetail(event.exitCode)}` }),
            });
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
}

/** A lost-events report as a sandbox event; a gap of one session's stream names that session. */
export function fromGap(gap: EventGap): SandboxEvent {
  const { stream, firstMissing, lastMissing, sessionId } = gap;
  const session = sessionId !== undefined ? { sessionId } : {};
  return { kind: "events-lost", stream, firstMissing, lastMissing, ...session };
}

/** Whether `event` concerns `sessionId`: its own events, and gaps of its stream or of no stream in particular. */
export function concerns(event: SandboxEvent, sessionId: string): boolean {
  if (event.kind === "events-lost") return event.sessionId === undefined || event.sessionId === sessionId;
  return "sessionId" in event && event.sessionId === sessionId;
}

/** One session's events and the gaps that may concern it (what `prompt$` streams). */
export function ofSession(sessionId: string): OperatorFunction<SandboxEvent, SandboxEvent> {
  return filter((event) => concerns(event, sessionId));
}

/** One session's events and the gaps that may concern it, completing after its `session-ended` event. */
export function forSession(sessionId: string): OperatorFunction<SandboxEvent, SandboxEvent> {
  return pipe(
    ofSession(sessionId),
    takeWhile((event) => event.kind !== "session-ended", true),
  );
}

export function sessionEndedOnly(): OperatorFunction<SandboxEvent, SessionEnded> {
  return pipe(
    filter((event): event is Extract<SandboxEvent, { kind: "session-ended" }> => event.kind === "session-ended"),
    map(({ kind: _kind, ...ended }) => ended),
  );
}

export function parseErrorsOnly(): OperatorFunction<SandboxEvent, SandboxParseError> {
  return pipe(
    filter((event): event is Extract<SandboxEvent, { kind: "parse-error" }> => event.kind === "parse-error"),
    map(({ kind: _kind, ...error }) => error),
  );
}

function exitDetail(exitCode: number | null): string {
  return exitCode === null ? " (signal)" : ` with code ${exitCode}`;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
