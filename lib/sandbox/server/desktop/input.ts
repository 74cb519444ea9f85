import type { CallOptions } from "../../call-options.js";
import type { DesktopRoutes } from "./routes.js";
import {
  ActionResultSchema,
  MousePositionSchema,
  type ActionResult,
  type KeyModifiers,
  type MouseButton,
  type MousePosition,
} from "./schemas.js";

type Point = { x: number; y: number };

/** The pointer (xdotool on the server). Every call answers with where the pointer is afterwards. */
export class DesktopMouse {
  readonly #routes: DesktopRoutes;

  constructor(routes: DesktopRoutes) {
    this.#routes = routes;
  }

  /** Where the pointer is, and the window under it. */
  position(call?: CallOptions): Promise<MousePosition> {
    return this.#routes.json("desktop.mouse.position", MousePositionSchema, "get", "/mouse/position", {}, call);
  }

  move(x: number, y: number, call?: CallOptions): Promise<MousePosition> {
    return this.#post("move", { x, y }, call);
  }

  /** Moves to (x, y) and clicks; `clickCount: 2` double-clicks. */
  click(
    x: number,
    y: number,
    options: { button?: MouseButton; clickCount?: number } = {},
    call?: CallOptions,
  ): Promise<MousePosition> {
    return this.#post("click", { x, y, ...options }, call);
  }

  /** Presses and holds a button, first moving to (x, y) when given. */
  down(options: { button?: MouseButton; x?: number; y?: number } = {}, call?: CallOptions): Promise<MousePosition> {
    return this.#post("down", options, call);
  }

  up(options: { button?: MouseButton; x?: number; y?: number } = {}, call?: CallOptions): Promise<MousePosition> {
    return this.#post("up", options, call);
  }

  drag(from: Point, to: Point, options: { button?: MouseButton } = {}, call?: CallOptions): Promise<MousePosition> {
    return this.#post("drag", { startX: from.x, startY: from.y, endX: to.x, endY: to.y, ...options }, call);
  }

  /** Scrolls at (x, y); positive `deltaY` scrolls down, positive `deltaX` right (in wheel clicks). */
  scroll(x: number, y: number, delta: { deltaX?: number; deltaY?: number }, call?: CallOptions) {
    return this.#post("scroll", { x, y, ...delta }, call);
  }

  #post(action: string, body: object, call: CallOptions | undefined): Promise<MousePosition> {
    const operation = `desktop.mouse.${action}`;
    return this.#routes.json(operation, MousePositionSchema, "post", `/mouse/${action}`, { json: body }, call);
  }
}

/** The keyboard (xdotool key names: `Return`, `ctrl+l`, `a`, `shift`, ...). */
export class DesktopKeyboard {
  readonly #routes: DesktopRoutes;

  constructor(routes: DesktopRoutes) {
    this.#routes = routes;
  }

  /** Types `text` into the focused window, `delayMs` between keystrokes. */
  type(text: string, options: { delayMs?: number } = {}, call?: CallOptions): Promise<ActionResult> {
    return this.#post("type", { text, ...options }, call);
  }

  /** Presses and releases `key`, holding `modifiers` meanwhile. */
  press(key: string, modifiers?: KeyModifiers, call?: CallOptions): Promise<ActionResult> {
    return this.#post("press", { key, ...(modifiers ? { modifiers } : {}) }, call);
  }

  down(key: string, call?: CallOptions): Promise<ActionResult> {
    return this.#post("down", { key }, call);
  }

  up(key: string, call?: CallOptions): Promise<ActionResult> {
    return this.#post("up", { key }, call);
  }

  #post(action: string, body: object, call: CallOptions | undefined): Promise<ActionResult> {
    const operation = `desktop.keyboard.${action}`;
    return this.#routes.json(operation, ActionResultSchema, "post", `/keyboard/${action}`, { json: body }, call);
  }
}
