/** Sandboxes as a resource: the provider contract and the one-call start. */
export type { SandboxProvider, SandboxInfo, SandboxCreateOptions, SandboxCallOptions } from "./types.js";
export { startSandbox, type StartSandboxOptions, type StartedSandbox } from "./start-sandbox.js";
