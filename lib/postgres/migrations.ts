import type pg from "pg";
import { POSTGRES_DEFAULTS } from "./defaults.js";

/**
 * The schema's versions, applied in order. A database records the version it is at in `meta`; a
 * store applies the missing steps on first use. Append new steps; never edit a released one.
 */
const STEPS: Array<(q: (name: string) => string) => string> = [
  // 1: sessions and events. `json`, not `jsonb`: payloads come back with their keys in their order.
  (q) => `
    CREATE TABLE ${q("sessions")} (
      id text PRIMARY KEY, created_at bigint NOT NULL, ended_at bigint, record json NOT NULL);
    CREATE INDEX ON ${q("sessions")} (created_at, id);
    CREATE TABLE ${q("heads")} (session_id text PRIMARY KEY, last_index bigint NOT NULL);
    CREATE TABLE ${q("events")} (
      session_id text NOT NULL, event_index bigint NOT NULL, id text NOT NULL, created_at bigint NOT NULL,
      connection_id text NOT NULL, sender text NOT NULL, payload json NOT NULL,
      written_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (session_id, event_index), UNIQUE (session_id, id));`,
  // 2: leases, their history, and the generation each event was written under (fencing).
  (q) => `
    CREATE TABLE ${q("leases")} (
      session_id text PRIMARY KEY, owner text NOT NULL, generation bigint NOT NULL,
      expires_at timestamptz NOT NULL, heartbeat_at timestamptz NOT NULL, claimed_at timestamptz NOT NULL);
    INSERT INTO ${q("leases")} (session_id, owner, generation, expires_at, heartbeat_at, claimed_at)
      SELECT id, '', 0, '-infinity', '-infinity', '-infinity' FROM ${q("sessions")};
    CREATE TABLE ${q("lease_log")} (
      session_id text NOT NULL, generation bigint NOT NULL, owner text NOT NULL, claimed_at timestamptz NOT NULL,
      PRIMARY KEY (session_id, generation));
    ALTER TABLE ${q("events")} ADD COLUMN generation bigint;`,
  // 3: one session's batch in one call (one round trip: under a burst the client's event loop is
  // busy, and every round trip waits for it). Fences (SQLSTATE SA001 when the lease row holds
  // another generation), locks the head row, numbers the new events. Each statement of a volatile
  // function takes a new snapshot, so the insert sees every event committed before the lock.
  (q) => `
    CREATE FUNCTION ${q("insert_events")}(
      p_session text, p_fence bigint, p_ids text[], p_created bigint[], p_conns text[], p_senders text[],
      p_payloads text[])
    RETURNS TABLE (session_id text, event_index bigint, id text, created_at bigint, connection_id text,
      sender text, payload json)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      v_last bigint;
      v_current bigint;
    BEGIN
      IF p_fence IS NOT NULL THEN
        SELECT l.generation INTO v_current FROM ${q("leases")} l WHERE l.session_id = p_session FOR SHARE;
        IF v_current IS DISTINCT FROM p_fence THEN
          RAISE EXCEPTION 'lease lost' USING ERRCODE = 'SA001';
        END IF;
      END IF;
      INSERT INTO ${q("heads")} AS h (session_id, last_index) VALUES (p_session, 0)
        ON CONFLICT ON CONSTRAINT heads_pkey DO UPDATE SET last_index = h.last_index
        RETURNING h.last_index INTO v_last;
      RETURN QUERY
      WITH input AS (
        SELECT * FROM unnest(p_ids, p_created, p_conns, p_senders, p_payloads)
          WITH ORDINALITY AS t(id, created_at, connection_id, sender, payload, ord)),
      fresh AS (
        SELECT DISTINCT ON (i.id) i.* FROM input i
        WHERE NOT EXISTS (SELECT 1 FROM ${q("events")} e WHERE e.session_id = p_session AND e.id = i.id)
        ORDER BY i.id, i.ord),
      numbered AS (SELECT f.*, v_last + row_number() OVER (ORDER BY f.ord) AS event_index FROM fresh f),
      stored AS (
        INSERT INTO ${q("events")} AS e (session_id, event_index, id, created_at, connection_id, sender, payload, generation)
        SELECT p_session, n.event_index, n.id, n.created_at, n.connection_id, n.sender, n.payload::json, p_fence
        FROM numbered n ORDER BY n.event_index
        RETURNING e.session_id, e.event_index, e.id, e.created_at, e.connection_id, e.sender, e.payload),
      moved AS (
        UPDATE ${q("heads")} AS h SET last_index = v_last + (SELECT count(*) FROM stored) WHERE h.session_id = p_session)
      SELECT s.session_id, s.event_index, s.id, s.created_at, s.connection_id, s.sender, s.payload
      FROM stored s ORDER BY s.event_index;
    END
    $fn$;`,
  // 4: every write is one statement, so no row lock outlives a round trip. A writer whose machine
  // drops off the network between two statements of a transaction left its backend "idle in
  // transaction" holding the lease row's share lock until TCP keepalive (hours), and claims skip
  // a locked row. `update_session` fences, upserts the record and makes the lease row; the fence
  // error names the session in its DETAIL. `insert_event_runs` is several sessions' batches
  // (`p_counts` events each, in order): the fences first, in the order given (sorted by the
  // caller, so two batches never wait on each other in a cycle), then `insert_events` per session.
  (q) => `
    CREATE FUNCTION ${q("update_session")}(
      p_id text, p_fence bigint, p_created bigint, p_ended bigint, p_record text)
    RETURNS void LANGUAGE plpgsql AS $fn$
    DECLARE
      v_current bigint;
    BEGIN
      IF p_fence IS NOT NULL THEN
        SELECT l.generation INTO v_current FROM ${q("leases")} l WHERE l.session_id = p_id FOR SHARE;
        IF v_current IS DISTINCT FROM p_fence THEN
          RAISE EXCEPTION 'lease lost' USING ERRCODE = 'SA001', DETAIL = p_id;
        END IF;
      END IF;
      INSERT INTO ${q("sessions")} AS s (id, created_at, ended_at, record)
        VALUES (p_id, p_created, p_ended, p_record::json)
        ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, ended_at = excluded.ended_at,
          record = excluded.record;
      -- Every session has a lease row from the start (nobody's, expired): claims lock lease rows only.
      INSERT INTO ${q("leases")} (session_id, owner, generation, expires_at, heartbeat_at, claimed_at)
        VALUES (p_id, '', 0, '-infinity', '-infinity', '-infinity') ON CONFLICT (session_id) DO NOTHING;
    END
    $fn$;
    CREATE FUNCTION ${q("insert_event_runs")}(
      p_sessions text[], p_fences bigint[], p_counts integer[], p_ids text[], p_created bigint[],
      p_conns text[], p_senders text[], p_payloads text[])
    RETURNS TABLE (session_id text, event_index bigint, id text, created_at bigint, connection_id text,
      sender text, payload json)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      v_current bigint;
      v_from integer := 1;
      v_to integer;
    BEGIN
      FOR i IN 1 .. coalesce(array_length(p_sessions, 1), 0) LOOP
        IF p_fences[i] IS NOT NULL THEN
          SELECT l.generation INTO v_current FROM ${q("leases")} l WHERE l.session_id = p_sessions[i] FOR SHARE;
          IF v_current IS DISTINCT FROM p_fences[i] THEN
            RAISE EXCEPTION 'lease lost' USING ERRCODE = 'SA001', DETAIL = p_sessions[i];
          END IF;
        END IF;
      END LOOP;
      FOR i IN 1 .. coalesce(array_length(p_sessions, 1), 0) LOOP
        v_to := v_from + p_counts[i] - 1;
        RETURN QUERY SELECT * FROM ${q("insert_events")}(p_sessions[i], p_fences[i], p_ids[v_from:v_to],
          p_created[v_from:v_to], p_conns[v_from:v_to], p_senders[v_from:v_to], p_payloads[v_from:v_to]);
        v_from := v_to + 1;
      END LOOP;
    END
    $fn$;`,
];

/** The schema version this package brings a database to (`migrate` applies the steps up to it). */
export const SCHEMA_VERSION = STEPS.length;

/**
 * Brings `schema` to the current version. The whole migration runs in one transaction under a
 * transaction-scoped advisory lock keyed by the schema name: workers that start together queue on
 * it, and the later ones find the work done. A database at a newer version than this code knows is
 * refused rather than written with an older layout.
 */
export async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  const q = (name: string) => `"${schema}".${name}`;
  const client = await pool.connect();
  let failed: unknown;
  const onLost = (error: Error) => (failed = error);
  client.on("error", onLost);
  try {
    await client.query("BEGIN");
    // Several statements in one transaction: a client gone between two of them (a dropped route)
    // must not leave the advisory lock held until TCP keepalive notices, on any pool.
    await client.query(`SET LOCAL idle_in_transaction_session_timeout = ${POSTGRES_DEFAULTS.idleInTransactionMs}`);
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`sandbox-agent-rx:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${q("meta")} (key text PRIMARY KEY, value integer NOT NULL)`);
    const { rows } = await client.query<{ value: number }>(`SELECT value FROM ${q("meta")} WHERE key = 'version'`);
    const at = rows[0]?.value ?? 0;
    if (at > SCHEMA_VERSION) {
      const knows = `this version of the store knows up to ${SCHEMA_VERSION}`;
      throw new Error(`schema "${schema}" is at version ${at}; ${knows}`);
    }
    for (let version = at + 1; version <= SCHEMA_VERSION; version++) {
      await client.query((STEPS[version - 1] as (q: (name: string) => string) => string)(q));
    }
    await client.query(
      `INSERT INTO ${q("meta")} (key, value) VALUES ('version', $1) ON CONFLICT (key) DO UPDATE SET value = $1`,
      [SCHEMA_VERSION],
    );
    await client.query("COMMIT");
  } catch (error) {
    failed = error;
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.off("error", onLost);
    client.release(failed instanceof Error ? failed : undefined);
  }
}
