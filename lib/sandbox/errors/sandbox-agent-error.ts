/** The base of every error the sandbox client throws. */
export class SandboxAgentError extends Error {
  override name = "SandboxAgentError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
