import { SandboxAgentError } from "./sandbox-agent-error.js";

/** `reconnect`, `pause` or `resume` was asked for a sandbox the provider does not have (any more). */
export class SandboxNotFoundError extends SandboxAgentError {
  override name = "SandboxNotFoundError";
  readonly provider: string;
  readonly sandboxId: string;

  constructor(provider: string, sandboxId: string, options?: { cause?: unknown }) {
    super(`${provider}: no sandbox ${sandboxId}`, options);
    this.provider = provider;
    this.sandboxId = sandboxId;
  }
}
