import { SandboxAgentError } from "./sandbox-agent-error.js";

/** A call's own deadline (`timeoutMs`) passed. */
export class CallTimeoutError extends SandboxAgentError {
  override name = "TimeoutError";
}

/** The caller aborted the call (AbortSignal or unsubscription). */
export class CallAbortedError extends SandboxAgentError {
  override name = "AbortError";
}

/** The server answered with something this client cannot read (a malformed result, an unreadable header). */
export class ProtocolError extends SandboxAgentError {
  override name = "ProtocolError";
}

/** The HTTP exchange itself failed (refused, reset): the server could not be reached. */
export class NetworkError extends SandboxAgentError {
  override name = "NetworkError";
}
