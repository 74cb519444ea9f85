import { SandboxAgentError } from "./sandbox-agent-error.js";

/** `connect()` was called while a connection exists or is being made (auto-connect: await `client.ready`). */
export class AlreadyConnectedError extends SandboxAgentError {
  override name = "AlreadyConnectedError";

  constructor() {
    super(
      "already connected (or connecting); one client holds one connection; " +
        "call disconnect() first, or await client.ready",
    );
  }
}
