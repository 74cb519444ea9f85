import type { CallOptions } from "../../call-options.js";
import { normalizeTimeout } from "../../../internal/abort.js";
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
   * is therefore bounded (`timeoutMs`, default 3 s, for the whole call): the POST waits for that
   * bound less a share kept for a read-back (1 s, at most half), then the clipboard is read back
   * once in what is left; it resolves if the text is there, else fails with `CallTimeoutError`.
   */
  async set(text: string, options: { selection?: string } = {}, call: CallOptions = {}): Promise<ActionResult> {
    const timeoutMs = normalizeTimeout(call.timeoutMs ?? CLIPBOARD_SET_TIMEOUT_MS);
    const body = { text, ...(options.selection !== undefined ? { selection: options.selection } : {}) };
    const operation = "desktop.clipboard.set";
    const post = (bound: CallOptions) =>
      this.#routes.json(operation, ActionResultSchema, "post", "/clipboard", { json: body }, bound);
    if (timeoutMs === undefined) return post(call);
    // One deadline for the call: the read-back gets what the POST left of it, not a fresh one.
    const deadline = performance.now() + timeoutMs;
    const readBackMs = Math.min(DESKTOP_DEFAULTS.clipboardReadBackMs, Math.floor(timeoutMs / 2));
    try {
      return await post({ ...call, timeoutMs: timeoutMs - readBackMs });
    } catch (error) {
      if (!(error instanceof CallTimeoutError)) throw error;
      const left = Math.max(0, deadline - performance.now());
      const readBack = { ...(call.signal ? { signal: call.signal } : {}), timeoutMs: left };
      const current = await this.get(options, readBack).catch((readError: unknown) => {
        if (readError instanceof CallTimeoutError) return undefined;
        throw readError;
      });
      if (current?.text === text) return { ok: true };
      const found = current ? "the clipboard lacks the text" : "the clipboard could not be read back in time";
      throw new CallTimeoutError(`${operation}: no answer within ${timeoutMs} ms and ${found}`, { cause: error });
    }
  }
}
