import type { CloseInfo } from "./client-options.js";
import type { AcpCookieStore } from "./cookie-store.js";
import { AcpConnectionClosedError, type CloseReason } from "./errors/connection-closed-error.js";
import { AcpHttpError } from "./errors/http-error.js";
import type { HttpTransport } from "./http.js";
import type { AcpLogger } from "./logger.js";

export interface ClosePolicyParts {
  readonly http: HttpTransport;
  /** Bound on the DELETE that tells the server the connection is over. */
  readonly closeTimeoutMs: number;
  /** The default cookie store is ours to clear on close; a caller's is not. */
  readonly ownCookies: AcpCookieStore | undefined;
  readonly logger: AcpLogger;
  /** Stops everything the connection runs; called once, after the close is recorded. */
  teardown(reason: CloseReason, cause: unknown): void;
}

/**
 * How a connection ends: the first close wins and is recorded (why, and the error callers
 * get from then on), the connection's parts are torn down, the server is told with a
 * bounded DELETE unless it no longer knows us (or refuses our credentials), and an affinity
 * cookie we own goes after it.
 */
export class ClosePolicy {
  /** Resolves once, when the connection has closed, with why. Never rejects. */
  readonly closed: Promise<CloseInfo>;
  readonly #parts: ClosePolicyParts;
  #resolveClosed!: (info: CloseInfo) => void;
  #info: CloseInfo | undefined;
  #deleting: Promise<void> | undefined;

  constructor(parts: ClosePolicyParts) {
    this.#parts = parts;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /** Why the connection closed; undefined while it is not closed. */
  get info(): CloseInfo | undefined {
    return this.#info;
  }

  /** Ends the connection (first call wins) and resolves once the bounded DELETE is done. */
  close(reason: CloseReason, cause?: unknown): Promise<void> {
    if (this.#info) return this.#deleting ?? Promise.resolve();
    const error = reason === "disconnected" ? undefined : new AcpConnectionClosedError(reason, { cause });
    const info: CloseInfo = (this.#info = error ? { reason, error } : { reason });
    this.#parts.logger.debug("connection closed", { reason });
    this.#parts.teardown(reason, cause);
    // 404: the server no longer knows us; 401/403: it refuses our credentials, a DELETE included.
    const gone = cause instanceof AcpHttpError && (cause.status === 404 || cause.status === 401 || cause.status === 403);
    const deleting = gone ? Promise.resolve() : this.#parts.http.delete(this.#parts.closeTimeoutMs);
    // The DELETE still carries the affinity cookie (it must reach the same backend); then it goes.
    this.#deleting = deleting.finally(() => this.#parts.ownCookies?.clear());
    this.#resolveClosed(info);
    return this.#deleting;
  }

  /** Throws the closed error for `method` once the connection has closed. */
  assertOpen(method: string): void {
    const info = this.#info;
    if (info) throw new AcpConnectionClosedError(info.reason, { method, cause: info.error?.cause });
  }
}
