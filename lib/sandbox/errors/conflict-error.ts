import { SandboxAgentHttpError } from "./http-error.js";

/**
 * HTTP 409: the request is valid but the server's current state refuses it (a recording is
 * already running, none is running, the desktop is not started, the stream cannot start).
 */
export class ConflictError extends SandboxAgentHttpError {
  override name = "ConflictError";
}
