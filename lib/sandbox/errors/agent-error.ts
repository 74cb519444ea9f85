import { SandboxAgentError } from "./sandbox-agent-error.js";

/** The agent (or the server acting for it) answered a call with an error. */
export class AgentError extends SandboxAgentError {
  override name = "AgentError";
  readonly code: number;
  readonly data: unknown;
  readonly method: string;

  constructor(method: string, code: number, message: string, data: unknown) {
    super(`${method} failed: ${message} (code ${code})`);
    this.method = method;
    this.code = code;
    this.data = data;
  }
}
