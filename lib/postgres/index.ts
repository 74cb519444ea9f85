/**
 * `sandbox-agent-rx/postgres`: a session store in PostgreSQL for Node, shared by a fleet of workers,
 * on node-postgres (`pg` 8, an optional peer dependency that only this entry point imports). Besides
 * the `SessionStore` contract it has leases (`restoreSessions({ claim: true })` splits open sessions
 * among workers, each driven by one at a time) and batch writes (`insertEvents`).
 *
 * @module sandbox-agent-rx/postgres
 */
export { postgresStore, defaultOwner, type PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
export { PostgresStoreError } from "./postgres-errors.js";
export { SCHEMA_VERSION } from "./migrations.js";
