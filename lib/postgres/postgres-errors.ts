import { StoreError } from "../sandbox/kit.js";

/**
 * A failure of the database (or of the connection to it). The message is PostgreSQL's or the
 * driver's with the connection string and its password cut out; the driver's error object is not
 * kept (its fields can hold connection parameters), only its SQLSTATE `code`.
 */
export class PostgresStoreError extends StoreError {
  override name = "PostgresStoreError";
  /** The SQLSTATE (e.g. `57P01`) or the system error code (e.g. `ECONNREFUSED`), when there was one. */
  readonly code: string | undefined;

  constructor(error: unknown, scrub: (text: string) => string) {
    const code = (error as { code?: unknown })?.code;
    // Read as a field, not through `instanceof Error`: a driver error made in another realm (a VM
    // context, a test runner's sandbox) is still an error with a message.
    const message = (error as { message?: unknown })?.message;
    super(`postgres: ${scrub(typeof message === "string" ? message : String(error))}`);
    this.code = typeof code === "string" ? code : undefined;
  }
}

/** Replaces the connection string, its password and its user:password part in a text. */
export function scrubber(connectionString: string | undefined): (text: string) => string {
  const secrets: string[] = [];
  if (connectionString) {
    secrets.push(connectionString);
    try {
      const url = new URL(connectionString);
      if (url.password) {
        secrets.push(url.password, decodeURIComponent(url.password));
      }
    } catch {
      // Not a URL (a keyword/value string): the whole string is still cut out.
    }
  }
  const found = secrets.filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length);
  return (text) => found.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
}

/** SQLSTATE classes and socket errors after which a retry on a new connection can succeed. */
const TRANSIENT_STATES = /^(08|57P0[123]|53300|40001|40P01)/;
const TRANSIENT_SOCKET = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ENOTCONN", "EAI_AGAIN"]);
/** node-postgres's messages for a connection that went away. */
const TRANSIENT_MESSAGE = new RegExp(
  [
    "Connection terminated",
    "connection is closed",
    "Client has encountered a connection error",
    "timeout exceeded when trying to connect",
    // `query_timeout` on a connection that went silent: the pool drops it, a new one can succeed.
    "Query read timeout",
  ].join("|"),
  "i",
);

export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && (TRANSIENT_STATES.test(code) || TRANSIENT_SOCKET.has(code))) return true;
  const message = error instanceof Error ? error.message : "";
  return TRANSIENT_MESSAGE.test(message);
}
