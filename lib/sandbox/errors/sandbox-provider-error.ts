import { SandboxAgentError } from "./sandbox-agent-error.js";

/** The engine behind a provider failed an operation (the Docker API refused, a binary is missing). */
export class SandboxProviderError extends SandboxAgentError {
  override name = "SandboxProviderError";
  readonly provider: string;
  /** `create`, `destroy`, `pause`, `resume`, `reconnect`, `sweep`, ... */
  readonly operation: string;

  constructor(provider: string, operation: string, detail: string, options?: { cause?: unknown }) {
    super(`${provider}.${operation}: ${detail}`, options);
    this.provider = provider;
    this.operation = operation;
  }
}
