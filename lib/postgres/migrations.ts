import type pg from "pg";

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
];

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
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`sandbox-agent-rx:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${q("meta")} (key text PRIMARY KEY, value integer NOT NULL)`);
    const { rows } = await client.query<{ value: number }>(`SELECT value FROM ${q("meta")} WHERE key = 'version'`);
    const at = rows[0]?.value ?? 0;
    if (at > SCHEMA_VERSION) {
      throw new Error(`schema "${schema}" is at version ${at}; this version of the store knows up to ${SCHEMA_VERSION}`);
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
