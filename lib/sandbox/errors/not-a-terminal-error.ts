import { ConflictError } from "./conflict-error.js";
import type { SandboxAgentHttpError } from "./http-error.js";

/** The process was not spawned with `tty: true`, so it has no terminal to attach or resize (HTTP 409). */
export class NotATerminalError extends ConflictError {
  override name = "NotATerminalError";
  readonly processId: string;

  constructor(processId: string, from: SandboxAgentHttpError) {
    super(from.operation, from.status, from.problem, from.bodyText, { cause: from });
    this.processId = processId;
  }
}
