import { ConflictError } from "./conflict-error.js";
import type { SandboxAgentHttpError } from "./http-error.js";

/** The process is still running, so its record cannot be removed; stop or kill it first (HTTP 409). */
export class ProcessRunningError extends ConflictError {
  override name = "ProcessRunningError";
  readonly processId: string;

  constructor(processId: string, from: SandboxAgentHttpError) {
    super(from.operation, from.status, from.problem, from.bodyText, { cause: from });
    this.processId = processId;
  }
}
