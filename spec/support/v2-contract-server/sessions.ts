/** The runtime's session registry: §4.1 SessionInfo, §5 metadata rules and session/list. */
import type { AgentId } from "./agents.js";
import { META_NAMESPACE, stringField, type JsonObject } from "./json.js";

export interface Termination {
  reason: "completed" | "error" | "terminated";
  terminatedBy: "agent" | "daemon";
  message?: string;
  exitCode?: number;
  stderr?: { head?: string; tail?: string; truncated: boolean; totalLines?: number };
}

export interface SessionRecord {
  readonly sessionId: string;
  agent: AgentId;
  cwd: string;
  title?: string;
  meta: JsonObject;
  modelHint?: string;
  modeHint?: string;
  /** §5: the string `updatedAt` an agent's session_info_update carried. */
  updatedAtHint?: string;
  ended: boolean;
  termination?: Termination;
  eventCount: number;
  createdAt: number;
  updatedAt: number;
}

const PAGE_SIZE = 200;

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Optional fields are left out when absent (§4.1), so drop undefined members. */
function defined(object: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

export class SessionRegistry {
  private readonly sessions = new Map<string, SessionRecord>();

  get(sessionId: string): SessionRecord | undefined {
    return this.sessions.get(sessionId);
  }

  /** §1.4: a notification for an unknown session creates an entry with cwd `/`. */
  ensure(sessionId: string, agent: AgentId): SessionRecord {
    return this.sessions.get(sessionId) ?? this.create(sessionId, agent, "/");
  }

  /** §5: session/new, load, resume and fork upsert; `ended` resets and captured meta merges in. */
  upsert(sessionId: string, agent: AgentId, cwd: string, captured: JsonObject | undefined): SessionRecord {
    const record = this.sessions.get(sessionId) ?? this.create(sessionId, agent, cwd);
    record.agent = agent;
    record.cwd = cwd;
    record.ended = false;
    if (captured) {
      const title = stringField(captured, "title");
      if (title !== undefined) record.title = title;
      Object.assign(record.meta, captured);
    }
    record.updatedAt = Date.now();
    return record;
  }

  recordEvent(record: SessionRecord): void {
    record.eventCount += 1;
    record.updatedAt = Date.now();
  }

  markEnded(record: SessionRecord, termination: Termination): void {
    record.ended = true;
    record.termination = termination;
    this.recordEvent(record);
  }

  /** §5 set_metadata: shallow merge per top-level key, nulls stored, nothing deleted. */
  setMetadata(record: SessionRecord, patch: JsonObject): void {
    for (const [key, value] of Object.entries(patch)) {
      record.meta[key] = value;
      if (key === "title" && typeof value === "string") record.title = value;
      if (key === "model") record.modelHint = stringOrUndefined(value);
      if (key === "mode") record.modeHint = stringOrUndefined(value);
    }
    record.updatedAt = Date.now();
  }

  /** §5: session/set_model and session/set_mode record the hint and the stored key. */
  setModel(record: SessionRecord, modelId: string): void {
    record.modelHint = modelId;
    record.meta.model = modelId;
  }

  setMode(record: SessionRecord, modeId: string): void {
    record.modeHint = modeId;
    record.meta.mode = modeId;
  }

  /** §5: session_info_update and current_mode_update maintain title and mode. */
  applyAgentUpdate(record: SessionRecord, update: unknown): void {
    const kind = stringField(update, "sessionUpdate");
    if (kind === "session_info_update") {
      const title = stringField(update, "title");
      if (title !== undefined) {
        record.title = title;
        record.meta.title = title;
      }
      const updatedAt = stringField(update, "updatedAt");
      if (updatedAt !== undefined) record.updatedAtHint = updatedAt;
    } else if (kind === "current_mode_update") {
      const modeId = stringField(update, "currentModeId");
      if (modeId !== undefined) this.setMode(record, modeId);
    }
  }

  /** Sorted by sessionId (§4.1, §5). */
  all(): SessionRecord[] {
    return [...this.sessions.values()].sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  }

  /** §5 session/list: exact cwd filter, decimal offset cursor, pages of 200, nextCursor always present. */
  listPage(params: unknown): JsonObject {
    const cwd = stringField(params, "cwd");
    const cursor = stringField(params, "cursor");
    const offset = cursor !== undefined && /^\d+$/.test(cursor) ? Number(cursor) : 0;
    const matching = this.all().filter((record) => cwd === undefined || record.cwd === cwd);
    const end = offset + PAGE_SIZE;
    return {
      sessions: matching.slice(offset, end).map((record) => listEntry(record)),
      nextCursor: end < matching.length ? String(end) : null,
    };
  }

  private create(sessionId: string, agent: AgentId, cwd: string): SessionRecord {
    const now = Date.now();
    const record: SessionRecord = { sessionId, agent, cwd, meta: {}, ended: false, eventCount: 0, createdAt: now, updatedAt: now };
    this.sessions.set(sessionId, record);
    return record;
  }
}

/** §5: the stored map, then the runtime keys on top; `model` only with a model hint. */
function listEntry(record: SessionRecord): JsonObject {
  const meta: JsonObject = {
    ...record.meta,
    agent: record.agent,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ended: record.ended,
    eventCount: record.eventCount,
  };
  if (record.modelHint !== undefined) meta.model = record.modelHint;
  return defined({
    sessionId: record.sessionId,
    cwd: record.cwd,
    title: record.title,
    updatedAt: record.updatedAtHint,
    _meta: { [META_NAMESPACE]: meta },
  });
}

/** §4.1 SessionInfo (camelCase, terminationInfo included). */
export function sessionInfo(record: SessionRecord): JsonObject {
  const meta = record.meta;
  return defined({
    sessionId: record.sessionId,
    agent: record.agent,
    agentMode: record.modeHint ?? "build",
    permissionMode: stringOrUndefined(meta.permissionMode) ?? stringOrUndefined(meta.permission_mode) ?? "default",
    model: record.modelHint,
    nativeSessionId: stringOrUndefined(meta.nativeSessionId) ?? stringOrUndefined(meta.native_session_id),
    ended: record.ended,
    eventCount: record.eventCount,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    directory: record.cwd,
    title: record.title,
    terminationInfo: record.termination ? terminationInfo(record.termination) : undefined,
  });
}

function terminationInfo(termination: Termination): JsonObject {
  const { stderr } = termination;
  return defined({
    reason: termination.reason,
    terminatedBy: termination.terminatedBy,
    message: termination.message,
    exitCode: termination.exitCode,
    stderr: stderr ? defined({ ...stderr }) : undefined,
  });
}

/** §4.4: the ended notification's params are snake_case, unlike terminationInfo. */
export function endedParams(sessionId: string, termination: Termination): JsonObject {
  const { stderr } = termination;
  return {
    session_id: sessionId,
    data: defined({
      reason: termination.reason,
      terminated_by: termination.terminatedBy,
      message: termination.message,
      exit_code: termination.exitCode,
      stderr: stderr
        ? defined({ head: stderr.head, tail: stderr.tail, truncated: stderr.truncated, total_lines: stderr.totalLines })
        : undefined,
    }),
  };
}
