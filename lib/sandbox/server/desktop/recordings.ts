import type { CallOptions } from "../../call-options.js";
import type { HttpErrorKind } from "../../errors.js";
import { segment, type DesktopFile, type DesktopRoutes } from "./routes.js";
import {
  RecordingListSchema,
  RecordingSchema,
  StreamStatusSchema,
  type Recording,
  type StreamStatus,
} from "./schemas.js";

/** Screen recordings (ffmpeg, mp4). One at a time: a second `start` is a 409 `SandboxAgentHttpError`. */
export class DesktopRecordings {
  readonly #routes: DesktopRoutes;

  constructor(routes: DesktopRoutes) {
    this.#routes = routes;
  }

  start(options: { fps?: number } = {}, call?: CallOptions): Promise<Recording> {
    const operation = "desktop.recordings.start";
    return this.#routes.json(operation, RecordingSchema, "post", "/recording/start", { json: options }, call);
  }

  /** Stops the running recording; a 409 `SandboxAgentHttpError` when none runs. The answer has its final size. */
  stop(call?: CallOptions): Promise<Recording> {
    return this.#routes.json("desktop.recordings.stop", RecordingSchema, "post", "/recording/stop", {}, call);
  }

  async list(call?: CallOptions): Promise<Recording[]> {
    const operation = "desktop.recordings.list";
    const list = await this.#routes.json(operation, RecordingListSchema, "get", "/recordings", {}, call);
    return list.recordings;
  }

  /** `NotFoundError` for an unknown id. */
  get(id: string, call?: CallOptions): Promise<Recording> {
    return this.#routes.json("desktop.recordings.get", RecordingSchema, "get", `/recordings/${segment(id)}`, {}, call);
  }

  /** The mp4 file's bytes (`video/mp4`). */
  async download(id: string, call?: CallOptions): Promise<Uint8Array> {
    return (await this.downloadFile(id, call)).bytes;
  }

  /** The file with its media type. */
  downloadFile(id: string, call?: CallOptions): Promise<DesktopFile> {
    return this.#routes.bytes("desktop.recordings.download", `/recordings/${segment(id)}/download`, undefined, call);
  }

  /** Deletes the recording and its file; `NotFoundError` once it is gone. */
  delete(id: string, call?: CallOptions): Promise<void> {
    return this.#routes.empty("desktop.recordings.delete", "delete", `/recordings/${segment(id)}`, call);
  }
}

/**
 * The WebRTC stream (a `neko` process on the server). Debian has no `neko` package, so on a
 * Debian sandbox `start` fails with a 409 `SandboxAgentHttpError` of kind `desktop-streamer-missing`
 * (`desktop-runtime-inactive` before `desktop.start()`).
 */
export class DesktopStream {
  readonly #routes: DesktopRoutes;
  readonly #desktopUrl: string;

  constructor(routes: DesktopRoutes, desktopUrl: string) {
    this.#routes = routes;
    this.#desktopUrl = desktopUrl;
  }

  /**
   * The WebSocket address of the stream's signaling (neko's WebRTC offer/answer exchange). The
   * 0.4.2 server takes the token only as an `Authorization` header here (`?access_token=` is 401
   * on this route), so connect with a client that can send headers (e.g. `ws` in Node); a
   * browser cannot reach it on a server started with a token. Before `start()` it answers 409.
   */
  signalingUrl(): string {
    return `${this.#desktopUrl.replace(/^http/, "ws")}/stream/signaling`;
  }

  status(call?: CallOptions): Promise<StreamStatus> {
    return this.#routes.json("desktop.stream.status", StreamStatusSchema, "get", "/stream/status", {}, call);
  }

  start(call?: CallOptions): Promise<StreamStatus> {
    const operation = "desktop.stream.start";
    return this.#routes.json(operation, StreamStatusSchema, "post", "/stream/start", {}, call, streamUnavailableKind);
  }

  stop(call?: CallOptions): Promise<StreamStatus> {
    return this.#routes.json("desktop.stream.stop", StreamStatusSchema, "post", "/stream/stop", {}, call);
  }
}

/**
 * Why the stream could not start (a 409), as far as the server's message says: the desktop is not
 * running, or the sandbox has no `neko` binary.
 */
function streamUnavailableKind(detail: string): HttpErrorKind | undefined {
  if (/not active/i.test(detail)) return "desktop-runtime-inactive";
  if (/neko|No such file/i.test(detail)) return "desktop-streamer-missing";
  return undefined;
}
