import { SandboxAgentError } from "./sandbox-agent-error.js";

/**
 * A terminal WebSocket problem: the server sent an error frame (`fromServer`: the socket
 * stays open), or the socket failed or closed before the process exited.
 */
export class TerminalError extends SandboxAgentError {
  override name = "TerminalError";
  readonly processId: string;
  /** True for a `{"type":"error"}` frame from the server; false for a local or connection failure. */
  readonly fromServer: boolean;

  constructor(processId: string, message: string, options: { fromServer: boolean; cause?: unknown }) {
    super(`terminal ${processId}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.processId = processId;
    this.fromServer = options.fromServer;
  }
}
