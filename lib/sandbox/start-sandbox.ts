// Sandboxes as a resource: the one-call start, `launchSandbox` with `new SandboxAgentClient`.
// Apart from launch.ts so that the client can use `launchSandbox` (`SandboxAgentClient.start`)
// without an import cycle.
import { SandboxAgentClient } from "./client.js";
import { launchSandbox, type Launched, type StartSandboxOptions } from "./launch.js";

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
