import { SandboxAgentError } from "./sandbox-agent-error.js";

/** Following a process's logs gave up: reconnecting failed too many times in a row; `cause` is the last failure. */
export class LogStreamError extends SandboxAgentError {
  override name = "LogStreamError";
  readonly processId: string;

  constructor(processId: string, message: string, options?: { cause?: unknown }) {
    super(`logs of ${processId}: ${message}`, options);
    this.processId = processId;
  }
}
