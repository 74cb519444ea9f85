import { SandboxAgentHttpError } from "../../errors.js";
import { refineHttpError } from "../../error-mapping.js";

/** What a call was about, so a status code can be read as the right error. */
export type ProcessSubject = { processId: string } | { command: string };

/**
 * Turns the server's process answers into typed errors: a `NotFoundError` of kind
 * `process-not-found`, a 409 `SandboxAgentHttpError` of kind `process-running`, `process-not-running`
 * or `not-a-terminal` (each with `processId`), a `spawn-failed` error with the `command`. The server
 * tells its 409s apart only by message ("still running", "not running", "not running in tty mode"),
 * so the message is read here, once; anything else gets the general class of its status.
 */
export function toProcessError(error: unknown, subject: ProcessSubject): unknown {
  if (!(error instanceof SandboxAgentHttpError) || error.constructor !== SandboxAgentHttpError) return error;
  const message = `${error.problem?.detail ?? ""} ${error.bodyText ?? ""}`;
  if ("command" in subject) {
    const spawnFailed = error.status === 502 && /spawn/i.test(message);
    return refineHttpError(error, spawnFailed ? { kind: "spawn-failed", command: subject.command } : {});
  }
  const processId = subject.processId;
  if (error.status === 404 && (error.code === undefined || error.code === "not_found")) {
    return refineHttpError(error, { kind: "process-not-found", processId });
  }
  if (error.status !== 409) return refineHttpError(error);
  if (/tty mode/i.test(message)) return refineHttpError(error, { kind: "not-a-terminal", processId });
  if (/still running/i.test(message)) return refineHttpError(error, { kind: "process-running", processId });
  if (/not running/i.test(message)) return refineHttpError(error, { kind: "process-not-running", processId });
  return refineHttpError(error);
}

/** Runs `call`, rethrowing its failure as a typed process error. */
export async function mapProcessErrors<T>(subject: ProcessSubject, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toProcessError(error, subject);
  }
}
