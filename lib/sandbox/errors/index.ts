export { SandboxAgentError } from "./sandbox-agent-error.js";
export { NotConnectedError } from "./not-connected-error.js";
export { AlreadyConnectedError } from "./already-connected-error.js";
export { SandboxAgentHttpError, type Problem } from "./http-error.js";
export { UnsupportedFeatureError } from "./unsupported-feature-error.js";
export { AgentExitedError } from "./agent-exited-error.js";
export { AgentError } from "./agent-error.js";
export { ConnectionLostError } from "./connection-lost-error.js";
export { CallTimeoutError, CallAbortedError, ProtocolError, NetworkError } from "./call-errors.js";
