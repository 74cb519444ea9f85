/** Sandboxes as a resource: the provider contract and the one-call start. */
import { SandboxAgentClient } from "../sandbox/client.js";
import { launchSandbox, type Launched, type StartSandboxOptions } from "./launch.js";

export type { SandboxProvider, SandboxInfo, SandboxCreateOptions, SandboxCallOptions } from "./contract.js";
export type { StartSandboxOptions } from "./launch.js";

/** A started sandbox: its connected client, and the means to tear both down. */
export type StartedSandbox = Launched<SandboxAgentClient>;

/**
 * Creates a sandbox with `options.sandbox`, waits (bounded backoff, abortable) for its server,
 * and connects a client to `options.agent`. On any failure the sandbox this call created is destroyed
 * and the error is rethrown (`SandboxStartError` when the server never became healthy).
 */
export function startSandbox(options: StartSandboxOptions): Promise<StartedSandbox> {
  return launchSandbox(options, (settings) => new SandboxAgentClient(settings));
}
