import { SandboxAgentError } from "./sandbox-agent-error.js";

/** The agent process behind this connection has exited; its sessions are gone. */
export class AgentExitedError extends SandboxAgentError {
  override name = "AgentExitedError";
  readonly exitCode: number | null;

  constructor(exitCode: number | null, method?: string) {
    super(
      `${method ? `${method}: ` : ""}the agent process exited` +
        `${exitCode === null ? " (killed by a signal)" : ` with code ${exitCode}`}` +
        "; call disconnect() and connect() to start a new one",
    );
    this.exitCode = exitCode;
  }
}
