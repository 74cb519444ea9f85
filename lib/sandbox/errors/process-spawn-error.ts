import { SandboxAgentHttpError } from "./http-error.js";

/**
 * The server could not start the command (missing binary, not executable, bad cwd):
 * HTTP 502 `stream_error` "failed to spawn process: …". A command that starts and then
 * exits non-zero is a result, not this error.
 */
export class ProcessSpawnError extends SandboxAgentHttpError {
  override name = "ProcessSpawnError";
  readonly command: string;

  constructor(command: string, from: SandboxAgentHttpError) {
    super(from.operation, from.status, from.problem, from.bodyText, { cause: from });
    this.command = command;
  }
}
