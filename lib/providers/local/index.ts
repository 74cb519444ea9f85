/**
 * `sandbox-agent-rx/local`: the embedded provider, sandbox-agent as a child process. Node only
 * (it spawns processes); browsers import the main entry point, which never loads this.
 *
 * @module sandbox-agent-rx/local
 */
export { local, type LocalProviderOptions, type LocalProvider, type LocalSandbox } from "./local.js";
export { demoAgent, resolveBinary, sandboxAgentBinary, type CorsOptions } from "./server-setup.js";
