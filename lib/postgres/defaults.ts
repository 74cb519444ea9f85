// Every default of `postgresStore()`'s options, and the bounds of the connections the store opens
// itself, in one module that imports nothing. postgres-store.ts applies them; migrations.ts reads the
// idle-in-transaction bound for its one multi-statement transaction.

/** The defaults of `postgresStore()`, each documented on its option too. */
export const POSTGRES_DEFAULTS = {
  /** `schema`: where the tables live. */
  schema: "sandbox_agent",
  /** `retries`: connection failures retried this many times (about 8 s in all). */
  retries: 8,
  /** `poolSize`: connections of the pool the store opens. */
  poolSize: 10,
  /**
   * `connectionTimeoutMs`: how long the store's own pool waits for a new connection (TCP, TLS,
   * authentication) before the attempt fails and is retried.
   */
  connectionTimeoutMs: 10_000,
  /**
   * `queryTimeoutMs`: how long one statement may take on the store's own connections, on both sides:
   * the server cancels it (`statement_timeout`) and the client stops waiting (`query_timeout`), so a
   * connection that went silent (a dropped route, a vanished host: no reset ever comes) fails and
   * the operation is retried on a new connection instead of waiting for TCP keepalive.
   */
  queryTimeoutMs: 30_000,
  /**
   * The server ends a connection of the store's that sits inside a transaction doing nothing this
   * long (`idle_in_transaction_session_timeout`): a backstop that frees the locks of a client gone
   * mid-transaction. Every write of the store is one statement; only the migration is a transaction
   * of several, and it sets this bound on a pool passed in too.
   */
  idleInTransactionMs: 10_000,
} as const;
