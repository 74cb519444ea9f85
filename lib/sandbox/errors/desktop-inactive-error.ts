import { ConflictError } from "./conflict-error.js";

/** HTTP 409 `desktop_runtime_inactive`: the call needs a started desktop (`desktop.start()`). */
export class DesktopInactiveError extends ConflictError {
  override name = "DesktopInactiveError";
}
