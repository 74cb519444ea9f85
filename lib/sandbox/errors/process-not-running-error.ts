import { ConflictError } from "./conflict-error.js";
import type { SandboxAgentHttpError } from "./http-error.js";

/** The process has exited (or takes no input), so it cannot be written to (HTTP 409). */
export class ProcessNotRunningError extends ConflictError {
  override name = "ProcessNotRunningError";
  readonly processId: string;

  constructor(processId: string, from: SandboxAgentHttpError) {
    super(from.operation, from.status, from.problem, from.bodyText, { cause: from });
    this.processId = processId;
  }
}
