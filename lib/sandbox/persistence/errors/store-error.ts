import { SandboxAgentError } from "../../errors/sandbox-agent-error.js";

/** A session store rejected a call or returned data that does not validate. */
export class StoreError extends SandboxAgentError {
  override name = "StoreError";
}
