import { SandboxAgentHttpError } from "./http-error.js";

/**
 * HTTP 404 from a control-plane route: the thing named does not exist (a config entry, a
 * recording, a window, an app on the sandbox's PATH). `kind` tells which (`session_not_found`
 * for config entries, `not_found`, `window_not_found`, `app_not_found`, `no_focused_window`).
 */
export class NotFoundError extends SandboxAgentHttpError {
  override name = "NotFoundError";
}
