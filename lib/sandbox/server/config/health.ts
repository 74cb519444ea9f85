import * as v from "valibot";
import { healthWaitSettings } from "../../client-options.js";
import type { HealthWaitOptions } from "../../types.js";

export type { HealthWaitOptions };
import type { ControlPlaneHttp } from "../control-plane.js";
import { CallAbortedError, CallTimeoutError, SandboxAgentError, SandboxAgentHttpError } from "../../errors.js";
import { stoppedBy } from "../../deadline.js";
import { sleep } from "../../../internal/abort.js";

/** How the wait ended. */
export interface HealthWaitResult {
  /** The status of the answer that ended the wait. */
  status: number;
  attempts: number;
  elapsedMs: number;
}

const HealthBodySchema = v.looseObject({ status: v.string() });

/**
 * Polls the health route until the server says `{"status":"ok"}`, backing off between attempts:
 * a server in a sandbox often starts after its client. Refused connections, 5xx (a proxy in front
 * of a booting sandbox), 404 and other answers keep it waiting; 401 and 403 end it at once
 * (waiting cannot fix a token). Ends with `CallTimeoutError` or `CallAbortedError`; every attempt
 * is bounded by the time left. The timeout's `cause` is the last refusal or answer, which a later
 * attempt that merely ran out of time does not replace (only when every attempt ran out is it that
 * timeout); its message counts the attempts that failed and those that ran out of time.
 */
export async function waitForHealth(
  http: ControlPlaneHttp,
  options: HealthWaitOptions = {},
): Promise<HealthWaitResult> {
  const settings = healthWaitSettings(options);
  const { timeoutMs, signal, path, initialDelayMs, maxDelayMs, upStatuses, attemptTimeoutMs } = settings;
  const startedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  let delay = initialDelayMs;
  let attempts = 0;
  // What the server did (a refusal, an answer) tells more than an attempt that ran out of its slot,
  // which on a loaded machine can be the last one even when the port refuses: kept apart.
  let lastFailure: unknown;
  let failed = 0;
  let lastTimeout: CallTimeoutError | undefined;
  let timedOut = 0;
  /** Whether the latest attempt is the one that ran out of time (the cause is then an earlier one's). */
  let lastTimedOut = false;
  const notHealthy = (): CallTimeoutError => {
    const cause = lastFailure ?? lastTimeout;
    const counts = timedOut > 0 ? ` (${failed} failed, ${timedOut} ran out of time)` : "";
    const what = lastFailure !== undefined && lastTimedOut ? "last failure" : "last attempt";
    const why = cause instanceof Error ? `: ${what}: ${cause.message}` : "";
    const message = `the server was not healthy within ${timeoutMs} ms after ${attempts} attempts${counts}${why}`;
    return new CallTimeoutError(message, { cause });
  };
  // The caller's signal ended the wait: a deadline made above (connect's, with the same timeoutMs)
  // still ends it with the wait's own account; an abort is an abort.
  const stopped = (): SandboxAgentError =>
    signal?.reason instanceof CallTimeoutError ? notHealthy() : stoppedBy(signal?.reason, "waitForHealth");
  for (;;) {
    if (signal?.aborted) throw stopped();
    const left = deadline - Date.now();
    if (left <= 0) break;
    attempts++;
    try {
      const attemptMs = Math.max(1, Math.min(left, attemptTimeoutMs));
      // The attempt's bound covers the body: headers then a stalled body is an attempt out of time.
      const answer = await http.read("waitForHealth", "get", path, { signal, timeoutMs: attemptMs });
      const body = parseJson(answer.bytes);
      if (v.is(HealthBodySchema, body) && body.status === "ok") {
        return { status: answer.status, attempts, elapsedMs: Date.now() - startedAt };
      }
      lastFailure = new SandboxAgentHttpError("waitForHealth", answer.status, undefined, "no status ok");
      failed++;
      lastTimedOut = false;
    } catch (error) {
      // The caller's signal (with a deadline made above, e.g. by connect): not an attempt's failure.
      if (signal?.aborted) throw stopped();
      if (error instanceof CallAbortedError) throw error;
      if (error instanceof SandboxAgentHttpError && upStatuses.includes(error.status)) {
        return { status: error.status, attempts, elapsedMs: Date.now() - startedAt };
      }
      if (error instanceof SandboxAgentHttpError && (error.status === 401 || error.status === 403)) throw error;
      const retryable =
        error instanceof SandboxAgentHttpError || (error instanceof SandboxAgentError && error.kind === "network");
      if (error instanceof CallTimeoutError) {
        lastTimeout = error;
        timedOut++;
        lastTimedOut = true;
      } else if (retryable) {
        lastFailure = error;
        failed++;
        lastTimedOut = false;
      } else throw error;
    }
    // Cut short by the signal, which the loop's first check then reports.
    await sleep(Math.min(delay, Math.max(0, deadline - Date.now())), signal);
    delay = Math.min(maxDelayMs, delay * 2);
  }
  throw notHealthy();
}

/** The body as JSON, or undefined when it is not JSON (a health answer is then not "ok"). */
function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
