import * as v from "valibot";

/**
 * Response shapes of `/v1/desktop/*` as the 0.4.2 server sends them (probed; see
 * docs/desktop-and-config.md). Loose objects: required members checked, extras kept.
 */

const int = v.number();
const optionalNullable = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema));

export const DesktopResolutionSchema = v.looseObject({ width: int, height: int, dpi: optionalNullable(int) });
export type DesktopResolution = v.InferOutput<typeof DesktopResolutionSchema>;

export const DesktopStateSchema = v.picklist([
  "inactive",
  "install_required",
  "starting",
  "active",
  "stopping",
  "failed",
]);
export type DesktopState = v.InferOutput<typeof DesktopStateSchema>;

export const DesktopWindowSchema = v.looseObject({
  id: v.string(),
  title: v.string(),
  x: int,
  y: int,
  width: int,
  height: int,
  isActive: v.boolean(),
});
export type DesktopWindow = v.InferOutput<typeof DesktopWindowSchema>;

/** One of the runtime's own processes (Xvfb, openbox, dbus). */
export const DesktopProcessSchema = v.looseObject({
  name: v.string(),
  pid: optionalNullable(int),
  running: v.boolean(),
  logPath: optionalNullable(v.string()),
});

export const DesktopStatusSchema = v.looseObject({
  // A state this client does not know yet is kept as a string rather than failing the call.
  state: v.union([DesktopStateSchema, v.string()]),
  display: optionalNullable(v.string()),
  resolution: optionalNullable(DesktopResolutionSchema),
  startedAt: optionalNullable(v.string()),
  lastError: optionalNullable(v.looseObject({ code: v.string(), message: v.string() })),
  missingDependencies: v.optional(v.array(v.string())),
  installCommand: optionalNullable(v.string()),
  processes: v.optional(v.array(DesktopProcessSchema)),
  runtimeLogPath: optionalNullable(v.string()),
  windows: v.optional(v.array(DesktopWindowSchema)),
});
export type DesktopStatus = v.InferOutput<typeof DesktopStatusSchema>;

export const DesktopDisplayInfoSchema = v.looseObject({ display: v.string(), resolution: DesktopResolutionSchema });
export type DesktopDisplayInfo = v.InferOutput<typeof DesktopDisplayInfoSchema>;

export const MousePositionSchema = v.looseObject({
  x: int,
  y: int,
  screen: optionalNullable(int),
  window: optionalNullable(v.string()),
});
export type MousePosition = v.InferOutput<typeof MousePositionSchema>;

export const ActionResultSchema = v.looseObject({ ok: v.boolean() });
export type ActionResult = v.InferOutput<typeof ActionResultSchema>;

export const WindowListSchema = v.looseObject({ windows: v.array(DesktopWindowSchema) });

export const ClipboardSchema = v.looseObject({ text: v.string(), selection: v.string() });
export type Clipboard = v.InferOutput<typeof ClipboardSchema>;

export const LaunchResultSchema = v.looseObject({
  processId: v.string(),
  pid: optionalNullable(int),
  windowId: optionalNullable(v.string()),
});
export type LaunchResult = v.InferOutput<typeof LaunchResultSchema>;

export const OpenResultSchema = v.looseObject({ processId: v.string(), pid: optionalNullable(int) });
export type OpenResult = v.InferOutput<typeof OpenResultSchema>;

export const RecordingSchema = v.looseObject({
  id: v.string(),
  status: v.union([v.picklist(["recording", "completed", "failed"]), v.string()]),
  fileName: v.string(),
  bytes: int,
  startedAt: v.string(),
  endedAt: optionalNullable(v.string()),
  processId: optionalNullable(v.string()),
});
export type Recording = v.InferOutput<typeof RecordingSchema>;
export const RecordingListSchema = v.looseObject({ recordings: v.array(RecordingSchema) });

export const StreamStatusSchema = v.looseObject({
  active: v.boolean(),
  processId: optionalNullable(v.string()),
  windowId: optionalNullable(v.string()),
});
export type StreamStatus = v.InferOutput<typeof StreamStatusSchema>;

// --- requests (what the caller passes; the server rejects bad values with 422) -----------------

export type ScreenshotFormat = "png" | "jpeg" | "webp";
export type MouseButton = "left" | "middle" | "right";

export interface DesktopStartOptions {
  width?: number;
  height?: number;
  dpi?: number;
  /** X display number (`:N`); the server's default is 99, shared by every server on the host. */
  displayNum?: number;
  recordingFps?: number;
  stateDir?: string;
  streamVideoCodec?: string;
  streamAudioCodec?: string;
  streamFrameRate?: number;
  webrtcPortRange?: string;
}

export interface ScreenshotOptions {
  format?: ScreenshotFormat;
  /** 1-100, for jpeg and webp. */
  quality?: number;
  /** Scale factor, e.g. 0.5 halves both sides. */
  scale?: number;
  showCursor?: boolean;
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface KeyModifiers {
  ctrl?: boolean;
  shift?: boolean;
  alt?: boolean;
  cmd?: boolean;
}
