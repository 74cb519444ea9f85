/** Sandboxes as a resource: the provider contract and the one-call start. */
export type { SandboxProvider, SandboxInfo, SandboxCreateOptions, SandboxCallOptions } from "./contract.js";
export type { StartSandboxOptions } from "./launch.js";
export { startSandbox, type StartedSandbox } from "./start-sandbox.js";
