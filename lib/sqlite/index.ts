/**
 * `sandbox-agent-rx/sqlite`: a session store in SQLite for Node, on better-sqlite3 12 (an optional
 * peer dependency that only this entry point imports, so the main entry stays browser-safe).
 *
 * @module sandbox-agent-rx/sqlite
 */
export { sqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";
