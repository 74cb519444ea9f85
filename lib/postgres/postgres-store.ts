import { hostname } from "node:os";
import pg from "pg";
import {
  checkEvent,
  checkInsert,
  checkSession,
  eventsPage,
  LeaseLostError,
  pageLimit,
  readEventsCursor,
  readSessionsCursor,
  sessionsCursor,
  StoreError,
  type ClaimRequest,
  type InsertOutcome,
  type ListPage,
  type NewSessionEvent,
  type SessionEvent,
  type SessionLease,
  type SessionLeases,
  type SessionRecord,
  type SessionStore,
} from "../sandbox/kit.js";
import { POSTGRES_DEFAULTS } from "./defaults.js";
import { migrate } from "./migrations.js";
import { PostgresStoreError, isTransient, scrubber } from "./postgres-errors.js";

interface CommonOptions {
  /** The PostgreSQL schema the tables live in, created if missing. Default `"sandbox_agent"`. */
  schema?: string;
  /**
   * Connection failures (a terminated backend, a restarted server) are retried this many times with
   * a doubling delay from 50 ms (capped at 2 s); a write is all or nothing and idempotent (unique
   * event ids), so a retry never stores an event twice. Default 8 (about 8 s in all).
   */
  retries?: number;
  /**
   * Told of the retries: a `warn` when an operation first finds the database unreachable while no
   * other is retrying (what failed, that it is retried, for how long at most), a `debug` per retry,
   * and a `warn` when an operation succeeds again after retries. Default: `warn` to `console.warn`,
   * no `debug`. Messages never hold the connection string or its password.
   */
  logger?: { warn(message: string, details?: Record<string, unknown>): void; debug?(message: string): void };
}

/** The options of `postgresStore()`: a pool of your own or a connection string, and the store's settings. */
export type PostgresStoreOptions = CommonOptions &
  (
    | {
      /** A pg Pool you own (and end); the store never ends it. */
      pool: pg.Pool;
    }
    | {
      /** A connection string; the store opens its own pool (ended by `close()`). Never logged or stored. */
      connectionString: string;
      /** Connections of that pool, default 10. */
      poolSize?: number;
      /** How long that pool waits for a new connection before the attempt fails (and is retried). Default 10000. */
      connectionTimeoutMs?: number;
      /**
       * How long one statement may take on that pool's connections: the server cancels it
       * (`statement_timeout`) and the client stops waiting (`query_timeout`), so a connection that
       * went silent fails and is replaced. Its connections also have TCP keepalive on, and the
       * server ends one left idle inside a transaction after 10 s. Default 30000.
       */
      queryTimeoutMs?: number;
    }
  );

/** A session store with leases shared through the database: what `postgresStore` returns. */
export interface PostgresStore extends SessionStore {
  readonly leases: SessionLeases;
  insertEvents(events: NewSessionEvent[]): Promise<InsertOutcome[]>;
  /** Ends the pool the store opened (a pool passed in is left to its owner). */
  close(): Promise<void>;
  /** Resolves once the schema exists and is at the current version (the first call of any method does this too). */
  ready(): Promise<void>;
}

interface EventRow {
  session_id: string;
  event_index: string;
  id: string;
  created_at: string;
  connection_id: string;
  sender: string;
  payload: unknown;
}

interface LeaseRow {
  session_id: string;
  owner: string;
  generation: string;
  expires_ms: string;
}

/** SQLSTATE the write functions raise when the lease row holds another generation (DETAIL: the session). */
const LEASE_LOST = "SA001";
const SAFE_SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;
const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 2000;

/** The sum of the waits of `retries` retries (50 ms doubling, capped at 2 s). */
function retryBudgetMs(retries: number): number {
  let total = 0;
  for (let i = 0, delay = FIRST_RETRY_MS; i < retries; i++, delay = Math.min(MAX_RETRY_MS, delay * 2)) total += delay;
  return total;
}

/**
 * A session store in PostgreSQL through node-postgres (`pg` 8, an optional peer imported only by
 * this entry point), shared by any number of processes and machines.
 *
 * - Events: one row each, `UNIQUE (session_id, id)`; the per-session index comes from a head row
 *   locked for the length of the writing transaction, so concurrent writers queue per session and
 *   an index is never reused nor skipped. `insertEvents` writes a batch in one transaction.
 * - Leases (`leases`): one row per session (owner, generation, expiry, heartbeat), claimed with
 *   `FOR UPDATE SKIP LOCKED`. Once this store has claimed a session, its writes on that session
 *   carry the generation and are refused with `LeaseLostError` when the row holds another. One
 *   claimant (owner) per store object: each client that claims needs a store of its own.
 * - Every write is one statement, so no row lock outlives a round trip (a worker gone mid-write
 *   holds no takeover up); the pool it opens itself bounds connects and statements.
 * - The schema is created and migrated on first use, under an advisory lock (workers that start
 *   together migrate once).
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  const schema = options.schema ?? POSTGRES_DEFAULTS.schema;
  if (!SAFE_SCHEMA.test(schema)) throw new TypeError("schema must be lower-case letters, digits and underscores");
  const owned = !("pool" in options && options.pool);
  const connectionString = "connectionString" in options ? options.connectionString : undefined;
  const scrub = scrubber(connectionString);
  const pool = "pool" in options && options.pool ? options.pool : ownPool(connectionString, options as OwnPoolOptions);
  // An idle connection the server closes (restart, pg_terminate_backend) is reported on the pool;
  // without a listener that would end the process. The next query opens a new connection.
  const onPoolError = () => undefined;
  pool.on("error", onPoolError);
  const retries = Math.max(0, Math.floor(options.retries ?? POSTGRES_DEFAULTS.retries));
  const q = (name: string) => `"${schema}".${name}`;
  /**
   * Generations this store claimed: its writes on these sessions are fenced. A write does not say
   * which client made it, so the fence is the store object's: one claimant (owner) per store.
   */
  const fences = new Map<string, number>();
  let claimant: string | undefined;
  let migrated: Promise<void> | undefined;

  const ready = () => {
    migrated ??= withRetry(() => migrate(pool, schema)).catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };

  const logger = options.logger ?? { warn: (message: string) => console.warn(message) };
  /** Operations retrying now: only the first to start says the database is unreachable. */
  let retrying = 0;

  /** Runs `work` with a connection, retrying connection failures; every error leaves as a scrubbed StoreError. */
  async function withRetry<T>(work: () => Promise<T>): Promise<T> {
    let delay = FIRST_RETRY_MS;
    let counted = false;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const result = await work();
          if (counted && retrying === 1) logger.warn(`postgres: reachable again after ${attempt} retries`);
          return result;
        } catch (error) {
          if (error instanceof StoreError) throw error;
          if (attempt < retries && isTransient(error)) {
            const reason = new PostgresStoreError(error, scrub).message;
            if (!counted) {
              counted = true;
              if (retrying++ === 0) {
                logger.warn(`${reason}: retrying up to ${retries} times (${retryBudgetMs(retries)} ms in all)`, {
                  retries,
                });
              }
            }
            logger.debug?.(`${reason}: retry ${attempt + 1} of ${retries} in ${delay} ms`);
            await new Promise((resolve) => setTimeout(resolve, delay));
            delay = Math.min(MAX_RETRY_MS, delay * 2);
            continue;
          }
          throw new PostgresStoreError(error, scrub);
        }
      }
    } finally {
      if (counted) retrying--;
    }
  }

  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
    await ready();
    return withRetry(() => pool.query<R>(text, values));
  };

  /** A write function's fence refusal as `LeaseLostError` (the session is the error's DETAIL). */
  const leaseLost = (error: unknown, sessionId?: string): unknown => {
    if ((error as { code?: unknown }).code !== LEASE_LOST) return error;
    const id = sessionId ?? String((error as { detail?: unknown }).detail);
    return new LeaseLostError(id, fences.get(id) ?? 0);
  };

  /** Inserts one session's events (in order): one statement; an outcome per event. */
  const insertRun = async (sessionId: string, events: NewSessionEvent[]) => {
    const fence = fences.get(sessionId);
    let inserted: pg.QueryResult<EventRow>;
    try {
      inserted = await pool.query<EventRow>(`SELECT * FROM ${q("insert_events")}($1, $2, $3, $4, $5, $6, $7)`, [
        sessionId,
        fence ?? null,
        events.map((event) => event.id),
        events.map((event) => event.createdAt),
        events.map((event) => event.connectionId),
        events.map((event) => event.sender),
        events.map((event) => JSON.stringify(event.payload)),
      ]);
    } catch (error) {
      throw leaseLost(error, sessionId);
    }
    return outcomes(sessionId, events, inserted.rows);
  };

  /** An outcome per event from the rows inserted (the events already stored are read back). */
  const outcomes = async (sessionId: string, events: NewSessionEvent[], inserted: EventRow[]) => {
    const byId = new Map(inserted.map((row) => [row.id, row]));
    const missing = events.filter((event) => !byId.has(event.id)).map((event) => event.id);
    const existing = new Map<string, EventRow>();
    if (missing.length > 0) {
      const { rows } = await pool.query<EventRow>(
        `SELECT session_id, event_index, id, created_at, connection_id, sender, payload
         FROM ${q("events")} WHERE session_id = $1 AND id = ANY($2)`,
        [sessionId, missing],
      );
      for (const row of rows) existing.set(row.id, row);
    }
    const claimed = new Set<string>();
    return events.map((event): InsertOutcome => {
      const row = byId.get(event.id);
      // The first occurrence in the batch is the one inserted; a repeat within the batch is a duplicate.
      if (row && !claimed.has(event.id)) {
        claimed.add(event.id);
        return { inserted: true, event: toEvent(row) };
      }
      const stored = row ?? existing.get(event.id);
      return stored ? { inserted: false, event: toEvent(stored) } : { inserted: false };
    });
  };

  const insertEvents = async (events: NewSessionEvent[]): Promise<InsertOutcome[]> => {
    const checked = events.map((event) => checkInsert((event as { sessionId: string }).sessionId, event));
    if (checked.length === 0) return [];
    const runs = new Map<string, number[]>();
    checked.forEach((event, position) => {
      const run = runs.get(event.sessionId);
      if (run) run.push(position);
      else runs.set(event.sessionId, [position]);
    });
    await ready();
    // One session (the usual batch): one call, its own transaction, one round trip.
    if (runs.size === 1) {
      const [sessionId] = runs.keys() as IterableIterator<string>;
      return withRetry(() => insertRun(sessionId as string, checked));
    }
    // Several sessions: still one statement (no lock outlives a round trip). Lease and head rows are
    // locked in session id order, so two batches never wait on each other in a cycle.
    const sessionIds = [...runs.keys()].sort();
    const ordered = sessionIds.flatMap((id) => (runs.get(id) as number[]).map((p) => checked[p] as NewSessionEvent));
    return withRetry(async () => {
      let inserted: pg.QueryResult<EventRow>;
      try {
        inserted = await pool.query<EventRow>(
          `SELECT * FROM ${q("insert_event_runs")}($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            sessionIds,
            sessionIds.map((id) => fences.get(id) ?? null),
            sessionIds.map((id) => (runs.get(id) as number[]).length),
            ordered.map((event) => event.id),
            ordered.map((event) => event.createdAt),
            ordered.map((event) => event.connectionId),
            ordered.map((event) => event.sender),
            ordered.map((event) => JSON.stringify(event.payload)),
          ],
        );
      } catch (error) {
        throw leaseLost(error);
      }
      const all: InsertOutcome[] = new Array(checked.length);
      for (const sessionId of sessionIds) {
        const positions = runs.get(sessionId) as number[];
        const rows = inserted.rows.filter((row) => row.session_id === sessionId);
        const results = await outcomes(sessionId, positions.map((p) => checked[p] as NewSessionEvent), rows);
        results.forEach((outcome, i) => (all[positions[i] as number] = outcome));
      }
      return all;
    });
  };

  const leases: SessionLeases = {
    async claim({ owner, ttlMs, max }: ClaimRequest): Promise<SessionLease[]> {
      if (claimant !== undefined && claimant !== owner) {
        throw new StoreError(
          `this postgresStore already claims for "${claimant}", not "${owner}": its writes carry one claimant's `
            + "generations, so each client (each owner) needs a postgresStore of its own",
          { kind: "lease-claimant" },
        );
      }
      claimant = owner;
      const { rows } = await query<LeaseRow>(
        `WITH pick AS (
           SELECT l.session_id FROM ${q("leases")} l JOIN ${q("sessions")} s ON s.id = l.session_id
           WHERE s.ended_at IS NULL AND l.expires_at < clock_timestamp()
           ORDER BY s.created_at, s.id LIMIT $3
           FOR UPDATE OF l SKIP LOCKED),
         taken AS (
           UPDATE ${q("leases")} l SET owner = $1, generation = l.generation + 1,
             expires_at = clock_timestamp() + make_interval(secs => $2::double precision / 1000),
             heartbeat_at = clock_timestamp(), claimed_at = clock_timestamp()
           FROM pick WHERE l.session_id = pick.session_id
           RETURNING l.session_id, l.owner, l.generation, l.expires_at, l.claimed_at),
         logged AS (
           INSERT INTO ${q("lease_log")} (session_id, generation, owner, claimed_at)
           SELECT session_id, generation, owner, claimed_at FROM taken)
         SELECT session_id, owner, generation, (extract(epoch FROM expires_at) * 1000)::bigint AS expires_ms
         FROM taken`,
        [owner, ttlMs, Math.max(0, Math.floor(max))],
      );
      const claimed = rows.map(toLease);
      for (const lease of claimed) fences.set(lease.sessionId, lease.generation);
      return claimed;
    },

    // Only a lease still running is extended: a renewal that arrives late (after a release, or after
    // the expiry) must not bring back a lease another worker may already be claiming.
    async renew(owner, held, ttlMs): Promise<SessionLease[]> {
      if (held.length === 0) return [];
      const { rows } = await query<LeaseRow>(
        `UPDATE ${q("leases")} l
         SET expires_at = clock_timestamp() + make_interval(secs => $2::double precision / 1000),
           heartbeat_at = clock_timestamp()
         FROM unnest($3::text[], $4::bigint[]) AS h(session_id, generation)
         WHERE l.session_id = h.session_id AND l.generation = h.generation AND l.owner = $1
           AND l.expires_at > clock_timestamp()
         RETURNING l.session_id, l.owner, l.generation,
           (extract(epoch FROM l.expires_at) * 1000)::bigint AS expires_ms`,
        [owner, ttlMs, held.map((lease) => lease.sessionId), held.map((lease) => lease.generation)],
      );
      return rows.map(toLease);
    },

    async release(lease): Promise<void> {
      // The row stays (with its generation), so the next claim gets a higher one: never a reused generation.
      await query(
        `UPDATE ${q("leases")} SET expires_at = '-infinity' WHERE session_id = $1 AND generation = $2 AND owner = $3`,
        [lease.sessionId, lease.generation, lease.owner],
      );
    },
  };

  return {
    leases,
    ready,
    insertEvents,

    async getSession(id) {
      const { rows } = await query<{ record: unknown }>(`SELECT record FROM ${q("sessions")} WHERE id = $1`, [id]);
      return rows[0] ? checkSession(rows[0].record) : undefined;
    },

    async listSessions(request = {}): Promise<ListPage<SessionRecord>> {
      const after = readSessionsCursor(request.cursor);
      const limit = pageLimit(request.limit);
      const { rows } = after
        ? await query<{ record: unknown }>(
          `SELECT record FROM ${q("sessions")} WHERE (created_at, id) > ($1::bigint, $2::text)
           ORDER BY created_at, id LIMIT $3`,
          [after.createdAt, after.id, limit + 1],
        )
        : await query<{ record: unknown }>(
          `SELECT record FROM ${q("sessions")} ORDER BY created_at, id LIMIT $1`,
          [limit + 1],
        );
      const items = rows.slice(0, limit).map((row) => checkSession(row.record));
      const last = items.at(-1);
      return rows.length > limit && last ? { items, nextCursor: sessionsCursor(last.createdAt, last.id) } : { items };
    },

    async updateSession(session) {
      const record = checkSession(session);
      // One statement (fence, record, lease row): no lock is held between round trips.
      await ready();
      await withRetry(() =>
        pool
          .query(`SELECT ${q("update_session")}($1, $2, $3, $4, $5)`, [
            record.id,
            fences.get(record.id) ?? null,
            record.createdAt,
            record.endedAt ?? null,
            JSON.stringify(record),
          ])
          .catch((error: unknown) => {
            throw leaseLost(error, record.id);
          })
      );
    },

    async listEvents(request): Promise<ListPage<SessionEvent>> {
      const from = Math.max(readEventsCursor(request.cursor, request.sessionId), request.afterIndex ?? 0);
      const limit = pageLimit(request.limit);
      const { rows } = await query<EventRow>(
        `SELECT session_id, event_index, id, created_at, connection_id, sender, payload FROM ${q("events")}
         WHERE session_id = $1 AND event_index > $2 ORDER BY event_index LIMIT $3`,
        [request.sessionId, from, limit + 1],
      );
      return eventsPage(rows, limit, request.sessionId, toEvent);
    },

    async insertEvent(sessionId, event): Promise<InsertOutcome> {
      const checked = checkInsert(sessionId, event);
      const [outcome] = await insertEvents([checked]);
      return outcome as InsertOutcome;
    },

    async close() {
      // An owned pool keeps its listener: a connection closing during end() must not crash the process.
      if (owned) await pool.end();
      else pool.off("error", onPoolError);
    },
  };
}

type OwnPoolOptions = { poolSize?: number; connectionTimeoutMs?: number; queryTimeoutMs?: number };

/** The pool `postgresStore` opens itself, with its bounds (`POSTGRES_DEFAULTS`). */
function ownPool(connectionString: string | undefined, options: OwnPoolOptions): pg.Pool {
  const queryTimeoutMs = options.queryTimeoutMs ?? POSTGRES_DEFAULTS.queryTimeoutMs;
  return new pg.Pool({
    connectionString,
    max: options.poolSize ?? POSTGRES_DEFAULTS.poolSize,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? POSTGRES_DEFAULTS.connectionTimeoutMs,
    query_timeout: queryTimeoutMs,
    statement_timeout: queryTimeoutMs,
    idle_in_transaction_session_timeout: POSTGRES_DEFAULTS.idleInTransactionMs,
    keepAlive: true,
  });
}

/** A default lease owner name: host, pid and a random part (two stores in one process differ). */
export function defaultOwner(): string {
  return `${hostname()}:${process.pid}:${globalThis.crypto.randomUUID().slice(0, 8)}`;
}

function toLease(row: LeaseRow): SessionLease {
  return {
    sessionId: row.session_id,
    owner: row.owner,
    generation: Number(row.generation),
    expiresAt: Number(row.expires_ms),
  };
}

function toEvent(row: EventRow): SessionEvent {
  return checkEvent({
    id: row.id,
    sessionId: row.session_id,
    eventIndex: Number(row.event_index),
    createdAt: Number(row.created_at),
    connectionId: row.connection_id,
    sender: row.sender,
    payload: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
  });
}
