import { SandboxAgentError } from "./sandbox-agent-error.js";

/** A session method was called with no live connection: call `connect()` first (or again after `disconnect()`). */
export class NotConnectedError extends SandboxAgentError {
  override name = "NotConnectedError";
  readonly method: string;

  constructor(method: string, options?: { cause?: unknown }) {
    super(`${method}: not connected; call connect() first`, options);
    this.method = method;
  }
}
