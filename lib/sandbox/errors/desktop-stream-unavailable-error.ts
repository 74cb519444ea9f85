import { ConflictError } from "./conflict-error.js";

/**
 * HTTP 409 from `desktop/stream/start`: the WebRTC stream could not start, either because the
 * desktop is not running or because the sandbox has no `neko` binary (Debian ships none).
 */
export class DesktopStreamUnavailableError extends ConflictError {
  override name = "DesktopStreamUnavailableError";

  /** Why, as far as the server's message says. */
  get reason(): "desktop-inactive" | "streamer-missing" | "other" {
    const detail = this.problem?.detail ?? "";
    if (/not active/i.test(detail)) return "desktop-inactive";
    if (/neko|No such file/i.test(detail)) return "streamer-missing";
    return "other";
  }
}
