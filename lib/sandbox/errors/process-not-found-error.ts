import { NotFoundError } from "./not-found-error.js";
import type { SandboxAgentHttpError } from "./http-error.js";

/** The server has no process with this id (never spawned, or removed): HTTP 404 `not_found` (a `NotFoundError`). */
export class ProcessNotFoundError extends NotFoundError {
  override name = "ProcessNotFoundError";
  readonly processId: string;

  constructor(processId: string, from: SandboxAgentHttpError) {
    super(from.operation, from.status, from.problem, from.bodyText, { cause: from });
    this.processId = processId;
  }
}
