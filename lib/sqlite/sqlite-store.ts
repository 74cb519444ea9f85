import Database from "better-sqlite3";
import {
  checkEvent,
  checkInsert,
  checkSession,
  eventsPage,
  pageLimit,
  readEventsCursor,
  readSessionsCursor,
  sessionsCursor,
  type InsertOutcome,
  type ListPage,
  type SessionEvent,
  type SessionRecord,
  type SessionStore,
} from "../sandbox/kit.js";

/** The options of `sqliteStore()`: the database, and a table prefix. */
export interface SqliteStoreOptions {
  /** A database file path (created if missing), `":memory:"`, or an open better-sqlite3 database. */
  database: string | Database.Database;
  /** Table name prefix, to share a database with other data. Default `"sandbox_agent_"`. */
  tablePrefix?: string;
  /**
   * SQLite's `synchronous` setting. `"NORMAL"` (default) survives the process being killed at any
   * point (WAL); `"FULL"` also survives a power cut, at several times the cost per event.
   */
  synchronous?: "NORMAL" | "FULL";
}

interface EventRow {
  session_id: string;
  event_index: number;
  id: string;
  created_at: number;
  connection_id: string;
  sender: string;
  payload: string;
}

interface InsertParams {
  s: string;
  id: string;
  at: number;
  conn: string;
  sender: string;
  payload: string;
}

const SAFE_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A session store in SQLite through better-sqlite3 (12.x; an optional peer dependency, imported
 * only by this entry point). One row per event with `UNIQUE(session_id, id)`, and the index is
 * assigned inside the insert's transaction as max + 1, so two writers (or a restarted process
 * replaying a stream) can never store an event twice or reuse an index. WAL journal: a process
 * killed mid-write loses at most the transaction it was in, never a committed one.
 */
export function sqliteStore(options: SqliteStoreOptions): SessionStore {
  const prefix = options.tablePrefix ?? "sandbox_agent_";
  if (!SAFE_PREFIX.test(prefix)) throw new TypeError("tablePrefix must be letters, digits and underscores");
  const owned = typeof options.database === "string";
  const db = typeof options.database === "string" ? new Database(options.database) : options.database;
  const sessions = `${prefix}sessions`;
  const events = `${prefix}events`;
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${options.synchronous === "FULL" ? "FULL" : "NORMAL"}`);
  db.pragma("busy_timeout = 5000");
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${sessions} (
      id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, record TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS ${sessions}_order ON ${sessions} (created_at, id);
    CREATE TABLE IF NOT EXISTS ${events} (
      session_id TEXT NOT NULL, event_index INTEGER NOT NULL, id TEXT NOT NULL,
      created_at INTEGER NOT NULL, connection_id TEXT NOT NULL, sender TEXT NOT NULL, payload TEXT NOT NULL,
      PRIMARY KEY (session_id, event_index), UNIQUE (session_id, id)) WITHOUT ROWID;`);

  const getSession = db.prepare<[string], { record: string }>(`SELECT record FROM ${sessions} WHERE id = ?`);
  const upsertSession = db.prepare(
    `INSERT INTO ${sessions} (id, created_at, record) VALUES (?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, record = excluded.record`,
  );
  const firstSessions = db.prepare<[number], { record: string }>(
    `SELECT record FROM ${sessions} ORDER BY created_at, id LIMIT ?`,
  );
  const laterSessions = db.prepare<[number, number, string, number], { record: string }>(
    `SELECT record FROM ${sessions} WHERE created_at > ? OR (created_at = ? AND id > ?)
     ORDER BY created_at, id LIMIT ?`,
  );
  const pageEvents = db.prepare<[string, number, number], EventRow>(
    `SELECT * FROM ${events} WHERE session_id = ? AND event_index > ? ORDER BY event_index LIMIT ?`,
  );
  const eventById = db.prepare<[string, string], EventRow>(`SELECT * FROM ${events} WHERE session_id = ? AND id = ?`);
  const insert = db.prepare<[InsertParams], EventRow>(
    `INSERT INTO ${events} (session_id, event_index, id, created_at, connection_id, sender, payload)
     SELECT @s, COALESCE(MAX(event_index), 0) + 1, @id, @at, @conn, @sender, @payload
     FROM ${events} WHERE session_id = @s
     ON CONFLICT (session_id, id) DO NOTHING RETURNING *`,
  );
  // IMMEDIATE: take the write lock before reading MAX(event_index), so two processes cannot both read it.
  const insertOnce = db.transaction((sessionId: string, event: ReturnType<typeof checkInsert>) => {
    const row = insert.get({
      s: sessionId,
      id: event.id,
      at: event.createdAt,
      conn: event.connectionId,
      sender: event.sender,
      payload: JSON.stringify(event.payload),
    });
    if (row) return { inserted: true as const, row };
    return { inserted: false as const, row: eventById.get(sessionId, event.id) };
  });

  return {
    async getSession(id) {
      const row = getSession.get(id);
      return row ? checkSession(JSON.parse(row.record)) : undefined;
    },

    async listSessions(request = {}): Promise<ListPage<SessionRecord>> {
      const after = readSessionsCursor(request.cursor);
      const limit = pageLimit(request.limit);
      const rows = after
        ? laterSessions.all(after.createdAt, after.createdAt, after.id, limit + 1)
        : firstSessions.all(limit + 1);
      const items = rows.slice(0, limit).map((row) => checkSession(JSON.parse(row.record)));
      const last = items.at(-1);
      return rows.length > limit && last ? { items, nextCursor: sessionsCursor(last.createdAt, last.id) } : { items };
    },

    async updateSession(session) {
      const record = checkSession(session);
      upsertSession.run(record.id, record.createdAt, JSON.stringify(record));
    },

    async listEvents(request): Promise<ListPage<SessionEvent>> {
      const from = Math.max(readEventsCursor(request.cursor, request.sessionId), request.afterIndex ?? 0);
      const limit = pageLimit(request.limit);
      const rows = pageEvents.all(request.sessionId, from, limit + 1);
      return eventsPage(rows, limit, request.sessionId, toEvent);
    },

    async insertEvent(sessionId, event): Promise<InsertOutcome> {
      const checked = checkInsert(sessionId, event);
      const outcome = insertOnce.immediate(sessionId, checked);
      if (outcome.inserted) return { inserted: true, event: toEvent(outcome.row) };
      return outcome.row ? { inserted: false, event: toEvent(outcome.row) } : { inserted: false };
    },

    async close() {
      if (owned && db.open) db.close();
    },
  };
}

function toEvent(row: EventRow): SessionEvent {
  return checkEvent({
    id: row.id,
    sessionId: row.session_id,
    eventIndex: row.event_index,
    createdAt: row.created_at,
    connectionId: row.connection_id,
    sender: row.sender,
    payload: JSON.parse(row.payload),
  });
}
