import type { CloseInfo } from "./client-options.js";
import { AcpAbortError } from "./errors/abort-error.js";
import { AcpConnectionClosedError } from "./errors/connection-closed-error.js";
import { AcpInterruptedError } from "./errors/interrupted-error.js";
import { AcpTimeoutError } from "./errors/timeout-error.js";
import type { PendingOptions } from "./rpc-correlator.js";
import { SessionStreamStoppedError, type SessionStreams } from "./session-streams.js";
import { startDeadline } from "../internal/abort.js";

/**
 * How `attachSession` resumes a session's stream; `signal` and `timeoutMs` bound the wait for the server.
 * It resolves once the server accepted the stream. It rejects with `AcpConnectionClosedError` when the
 * connection closed (`connection-lost`: the server no longer knows it, a 404; fall back with `reattach()`
 * or a new client and `loadSession`), `AcpInterruptedError` when it was rebuilt meanwhile, `AcpHttpError`
 * when the server refused the stream (403: the connection no longer owns the session; `loadSession` it),
 * `AcpAbortError` / `AcpTimeoutError` when the caller stopped waiting, and `TypeError` without
 * `sessionStreams` (over HTTP) or a connection id.
 */
export interface AttachSessionOptions extends PendingOptions {
  /**
   * The session stream's cursor as `onCursor` last reported it for this session: the server
   * replays the events after it. Absent: "0", every event the server still keeps.
   */
  lastEventId?: string | undefined;
}

/** What `attachSession` needs of the connection. */
export interface AttachTarget {
  readonly streams: SessionStreams;
  readonly closeInfo: CloseInfo | undefined;
}

const METHOD = "attachSession";

/**
 * Opens `sessionId`'s stream from its cursor and waits until the server accepted it. The
 * failure says what happened: the connection closed (`AcpConnectionClosedError`; a 404 is
 * `connection-lost`), was rebuilt meanwhile (`AcpInterruptedError`), the server refused the
 * stream (`AcpHttpError`, e.g. 403 when the connection no longer owns the session), or the
 * caller stopped waiting (`AcpAbortError`, `AcpTimeoutError`; the stream is closed then).
 */
export function attachSession(target: AttachTarget, sessionId: string, options: AttachSessionOptions): Promise<void> {
  const { signal, timeoutMs } = options;
  if (signal?.aborted) return Promise.reject(new AcpAbortError(METHOD, signal.reason));
  return new Promise<void>((resolve, reject) => {
    const giveUp = (error: Error) => {
      target.streams.close(sessionId);
      reject(error);
    };
    const onAbort = () => giveUp(new AcpAbortError(METHOD, signal?.reason));
    const cancelDeadline = startDeadline(timeoutMs, () => giveUp(new AcpTimeoutError(METHOD, timeoutMs ?? 0)));
    signal?.addEventListener("abort", onAbort, { once: true });
    target.streams.attach(sessionId, options.lastEventId).then(
      resolve,
      (error: unknown) => reject(attachFailure(error, target.closeInfo)),
    ).finally(() => {
      cancelDeadline();
      signal?.removeEventListener("abort", onAbort);
    });
  });
}

function attachFailure(error: unknown, closed: CloseInfo | undefined): unknown {
  // Read after the stream failed: a 404 has closed the connection (or started a recovery) by then.
  const cause = closed?.error?.cause ?? error;
  if (closed) return new AcpConnectionClosedError(closed.reason, { method: METHOD, cause });
  return error instanceof SessionStreamStoppedError ? new AcpInterruptedError(METHOD, error) : error;
}
