import { SandboxAgentHttpError } from "./http-error.js";

/**
 * The thing named does not exist: any 404 from the server (a process, a config entry, a recording,
 * a window, an app on the sandbox's PATH, an agent not installed, a session), and the filesystem's
 * 400 "path not found". `kind` tells which (`not_found`, `session_not_found` for config entries,
 * `window_not_found`, `app_not_found`, `no_focused_window`, `agent_not_installed`,
 * `client_not_found`, `invalid_request` for a path); `status` is the server's own.
 */
export class NotFoundError extends SandboxAgentHttpError {
  override name = "NotFoundError";
}
