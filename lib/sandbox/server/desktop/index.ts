export { Desktop } from "./desktop.js";
export type { DesktopMouse, DesktopKeyboard } from "./input.js";
export type { DesktopWindows, DesktopClipboard } from "./windows.js";
export type { DesktopRecordings, DesktopStream } from "./recordings.js";
export type { DesktopFile } from "./routes.js";
export type { ScreenFrame, ScreenOptions } from "./screen.js";
export type {
  DesktopStatus,
  DesktopState,
  DesktopResolution,
  DesktopDisplayInfo,
  DesktopWindow,
  DesktopStartOptions,
  MousePosition,
  MouseButton,
  KeyModifiers,
  ActionResult,
  Clipboard,
  LaunchResult,
  OpenResult,
  Recording,
  StreamStatus,
  ScreenshotOptions,
  ScreenshotFormat,
  Region,
} from "./schemas.js";
