import type { CallOptions } from "../../call-options.js";
import { CallTimeoutError } from "../../errors.js";
import { segment, type DesktopRoutes } from "./routes.js";
import {
  ActionResultSchema,
  ClipboardSchema,
  DesktopWindowSchema,
  WindowListSchema,
  type ActionResult,
  type Clipboard,
  type DesktopWindow,
} from "./schemas.js";
import { DESKTOP_DEFAULTS } from "../../defaults.js";

/** Top-level windows of the desktop (ids are X window ids as decimal strings). */
export class DesktopWindows {
  readonly #routes: DesktopRoutes;

  constructor(routes: DesktopRoutes) {
    this.#routes = routes;
  }

  async list(call?: CallOptions): Promise<DesktopWindow[]> {
    return (await this.#routes.json("desktop.windows.list", WindowListSchema, "get", "/windows", {}, call)).windows;
  }

  /** The window with focus; `NotFoundError` (`no_focused_window`) when none has it. */
  focused(call?: CallOptions): Promise<DesktopWindow> {
    return this.#routes.json("desktop.windows.focused", DesktopWindowSchema, "get", "/windows/focused", {}, call);
  }

  /** Focuses a window; `NotFoundError` (`window_not_found`) for an unknown id. */
  focus(windowId: string, call?: CallOptions): Promise<DesktopWindow> {
    return this.#window("focus", windowId, undefined, call);
  }

  /** Moves a window; the answer is where the window manager put it (decorations shift it). */
  move(windowId: string, x: number, y: number, call?: CallOptions): Promise<DesktopWindow> {
    return this.#window("move", windowId, { x, y }, call);
  }

  resize(windowId: string, width: number, height: number, call?: CallOptions): Promise<DesktopWindow> {
    return this.#window("resize", windowId, { width, height }, call);
  }

  #window(action: string, windowId: string, json: object | undefined, call: CallOptions | undefined) {
    const path = `/windows/${segment(windowId)}/${action}`;
    return this.#routes.json(`desktop.windows.${action}`, DesktopWindowSchema, "post", path, { json }, call);
  }
}

/** How long `clipboard.set` waits for the server's answer unless told otherwise. */
export const CLIPBOARD_SET_TIMEOUT_MS = DESKTOP_DEFAULTS.clipboardSetTimeoutMs;

/** The X clipboard (needs `xclip` in the sandbox). `selection` is `clipboard` (default) or `primary`. */
export class DesktopClipboard {
  readonly #routes: DesktopRoutes;

  constructor(routes: DesktopRoutes) {
    this.#routes = routes;
  }

  get(options: { selection?: string } = {}, call?: CallOptions): Promise<Clipboard> {
    const query = { selection: options.selection };
    return this.#routes.json("desktop.clipboard.get", ClipboardSchema, "get", "/clipboard", { query }, call);
  }

  /**
   * Sets the clipboard. The 0.4.2 server answers this only when the `xclip` it starts exits, and
   * that `xclip` keeps running to own the selection, so the answer usually never comes. The call
   * is therefore bounded (`timeoutMs`, default 3 s); when the bound passes it reads the clipboard
   * back once and resolves if the text is there, else fails with `CallTimeoutError`.
   */
  async set(text: string, options: { selection?: string } = {}, call: CallOptions = {}): Promise<ActionResult> {
    const timeoutMs = call.timeoutMs ?? CLIPBOARD_SET_TIMEOUT_MS;
    const body = { text, ...(options.selection !== undefined ? { selection: options.selection } : {}) };
    try {
      const bounded = { ...call, timeoutMs };
      const operation = "desktop.clipboard.set";
      return await this.#routes.json(operation, ActionResultSchema, "post", "/clipboard", { json: body }, bounded);
    } catch (error) {
      if (!(error instanceof CallTimeoutError)) throw error;
      const current = await this.get(options, { ...(call.signal ? { signal: call.signal } : {}), timeoutMs });
      if (current.text === text) return { ok: true };
      const message = `desktop.clipboard.set: no answer within ${timeoutMs} ms and the clipboard lacks the text`;
      throw new CallTimeoutError(message, { cause: error });
    }
  }
}
