import { SandboxAgentHttpError } from "../errors/http-error.js";
import { refineHttpError } from "../errors/refine.js";
import { NotATerminalError } from "../errors/not-a-terminal-error.js";
import { ProcessNotFoundError } from "../errors/process-not-found-error.js";
import { ProcessNotRunningError } from "../errors/process-not-running-error.js";
import { ProcessRunningError } from "../errors/process-running-error.js";
import { ProcessSpawnError } from "../errors/process-spawn-error.js";

/** What a call was about, so a status code can be read as the right error. */
export type ProcessSubject = { processId: string } | { command: string };

/**
 * Turns the server's process answers into typed errors. The server tells its 409s apart
 * only by message ("still running", "not running", "not running in tty mode"), so the
 * message is read here, once; anything else gets the general class of its status (`NotFoundError`,
 * `ConflictError`, `InvalidRequestError`) or stays a {@link SandboxAgentHttpError}.
 */
export function toProcessError(error: unknown, subject: ProcessSubject): unknown {
  if (!(error instanceof SandboxAgentHttpError) || error.constructor !== SandboxAgentHttpError) return error;
  const message = `${error.problem?.detail ?? ""} ${error.bodyText ?? ""}`;
  if ("command" in subject) {
    const spawnFailed = error.status === 502 && /spawn/i.test(message);
    return spawnFailed ? new ProcessSpawnError(subject.command, error) : refineHttpError(error);
  }
  const id = subject.processId;
  if (error.status === 404 && error.kind === "not_found") return new ProcessNotFoundError(id, error);
  if (error.status !== 409) return refineHttpError(error);
  if (/tty mode/i.test(message)) return new NotATerminalError(id, error);
  if (/still running/i.test(message)) return new ProcessRunningError(id, error);
  if (/not running/i.test(message)) return new ProcessNotRunningError(id, error);
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
