import { SandboxAgentError } from "./sandbox-agent-error.js";

/** The connection ended while a call was pending, or under it (server gone, stream could not come back). */
export class ConnectionLostError extends SandboxAgentError {
  override name = "ConnectionLostError";
  readonly reason: string;
  readonly method: string | undefined;

  constructor(reason: string, method: string | undefined, options?: { cause?: unknown }) {
    super(`${method ? `${method}: ` : ""}connection lost (${reason})`, options);
    this.reason = reason;
    this.method = method;
  }
}
