import type { Observable } from "rxjs";
import type { CallOptions } from "../../call-options.js";
import type { ControlPlaneHttp } from "../control-plane.js";
import { DesktopKeyboard, DesktopMouse } from "./input.js";
import { DesktopRecordings, DesktopStream } from "./recordings.js";
import { DesktopRoutes, type DesktopFile } from "./routes.js";
import { screenStream, type ScreenFrame, type ScreenOptions } from "./screen.js";
import {
  DesktopDisplayInfoSchema,
  DesktopStatusSchema,
  LaunchResultSchema,
  OpenResultSchema,
  type DesktopDisplayInfo,
  type DesktopStartOptions,
  type DesktopStatus,
  type LaunchResult,
  type OpenResult,
  type Region,
  type ScreenshotOptions,
} from "./schemas.js";
import { DesktopClipboard, DesktopWindows } from "./windows.js";
import { DESKTOP_DEFAULTS } from "../../defaults.js";

/**
 * The sandbox's virtual desktop (`/v1/desktop/*` of the 0.4.x server: Xvfb, openbox, xdotool,
 * ImageMagick, ffmpeg inside the sandbox). Without those programs every action fails with
 * `DesktopDependenciesMissingError`; before `start()` with a `SandboxAgentHttpError` of kind
 * `desktop-runtime-inactive`.
 */
export class Desktop {
  readonly mouse: DesktopMouse;
  readonly keyboard: DesktopKeyboard;
  readonly windows: DesktopWindows;
  readonly clipboard: DesktopClipboard;
  readonly recordings: DesktopRecordings;
  readonly stream: DesktopStream;
  readonly #routes: DesktopRoutes;

  /**
   * @param http the client's control-plane HTTP (auth, headers, fetch).
   * @param options `baseUrl` of the server (for the stream's WebSocket address); `prefix` of the
   * desktop routes (the 0.4.x server: `/v1/desktop`).
   */
  constructor(http: ControlPlaneHttp, options: { baseUrl: string; prefix?: string }) {
    const prefix = options.prefix ?? DESKTOP_DEFAULTS.prefix;
    this.#routes = new DesktopRoutes(http, prefix);
    this.mouse = new DesktopMouse(this.#routes);
    this.keyboard = new DesktopKeyboard(this.#routes);
    this.windows = new DesktopWindows(this.#routes);
    this.clipboard = new DesktopClipboard(this.#routes);
    this.recordings = new DesktopRecordings(this.#routes);
    this.stream = new DesktopStream(this.#routes, options.baseUrl.replace(/\/+$/, "") + prefix);
  }

  /** The runtime's state; with `install_required`, `missingDependencies` and `installCommand`. */
  status(call?: CallOptions): Promise<DesktopStatus> {
    return this.#routes.json("desktop.status", DesktopStatusSchema, "get", "/status", {}, call);
  }

  /** Starts the display (idempotent: a running desktop is returned as it is, options ignored). */
  start(options: DesktopStartOptions = {}, call?: CallOptions): Promise<DesktopStatus> {
    return this.#routes.json("desktop.start", DesktopStatusSchema, "post", "/start", { json: options }, call);
  }

  /** Stops the display and everything launched on it (idempotent). */
  stop(call?: CallOptions): Promise<DesktopStatus> {
    return this.#routes.json("desktop.stop", DesktopStatusSchema, "post", "/stop", {}, call);
  }

  displayInfo(call?: CallOptions): Promise<DesktopDisplayInfo> {
    return this.#routes.json("desktop.displayInfo", DesktopDisplayInfoSchema, "get", "/display/info", {}, call);
  }

  /** The whole screen as image bytes (png by default). */
  async screenshot(options: ScreenshotOptions = {}, call?: CallOptions): Promise<Uint8Array> {
    return (await this.screenshotFile(options, call)).bytes;
  }

  /** Part of the screen; a region past the edge is clipped by the server. */
  async screenshotRegion(region: Region & ScreenshotOptions, call?: CallOptions): Promise<Uint8Array> {
    return (await this.screenshotFile({ ...region, region }, call)).bytes;
  }

  /** A screenshot with its media type; `region` limits it to part of the screen. */
  screenshotFile(options: ScreenshotOptions & { region?: Region } = {}, call?: CallOptions): Promise<DesktopFile> {
    const { region, format, quality, scale, showCursor } = options;
    const query = { format, quality, scale, showCursor };
    if (!region) return this.#routes.bytes("desktop.screenshot", "/screenshot", query, call);
    const { x, y, width, height } = region;
    const regionQuery = { ...query, x, y, width, height };
    return this.#routes.bytes("desktop.screenshotRegion", "/screenshot/region", regionQuery, call);
  }

  /** Screenshots every `intervalMs`, one request at a time (see `ScreenOptions`). */
  screen$(options: ScreenOptions = {}): Observable<ScreenFrame> {
    return screenStream((shot, call) => this.screenshotFile(shot, call), options);
  }

  /**
   * Starts a program on the display by name (found on the sandbox's PATH, else `NotFoundError`
   * `app_not_found`). `wait: true` waits (about 5 s at most) for its window. The process is one of
   * the server's processes (owner `desktop`): its output is in the process logs under `processId`.
   */
  launch(app: string, options: { args?: string[]; wait?: boolean } = {}, call?: CallOptions): Promise<LaunchResult> {
    const json = { app, ...options };
    return this.#routes.json("desktop.launch", LaunchResultSchema, "post", "/launch", { json }, call);
  }

  /** Opens a file or URL with `xdg-open` (needs `xdg-utils` in the sandbox). */
  open(target: string, call?: CallOptions): Promise<OpenResult> {
    return this.#routes.json("desktop.open", OpenResultSchema, "post", "/open", { json: { target } }, call);
  }
}
