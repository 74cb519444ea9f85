import { SandboxAgentError } from "./sandbox-agent-error.js";

/** Why a sandbox's server did not come up. */
export type SandboxStartFailure = "spawn-failed" | "exited" | "timeout" | "port-in-use";

/**
 * A sandbox was created but its server never answered `GET /v1/health`, or could not be
 * started at all. `output` holds the tail of what the server wrote (tokens redacted).
 */
export class SandboxStartError extends SandboxAgentError {
  override name = "SandboxStartError";
  readonly provider: string;
  readonly reason: SandboxStartFailure;
  /** The last lines the server wrote before it failed; empty when nothing was seen. */
  readonly output: string;

  constructor(
    provider: string,
    reason: SandboxStartFailure,
    detail: string,
    output = "",
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${detail}${output ? `\n--- server output (tail) ---\n${output}` : ""}`, options);
    this.provider = provider;
    this.reason = reason;
    this.output = output;
  }
}
