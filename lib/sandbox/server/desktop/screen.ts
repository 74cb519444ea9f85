import { Observable } from "rxjs";
import type { CallOptions } from "../../call-options.js";
import { DESKTOP_DEFAULTS } from "../../defaults.js";
import { CallAbortedError } from "../../errors.js";
import type { DesktopFile } from "./routes.js";
import type { Region, ScreenshotOptions } from "./schemas.js";

/** Options of `desktop.screen$`. */
export interface ScreenOptions extends ScreenshotOptions {
  /** Least time between the starts of two screenshots, in ms (default 1000). */
  intervalMs?: number;
  /** Only this part of the screen. */
  region?: Region;
  /** Bound on each screenshot request, in ms (default 10000); passing it errors the stream. */
  timeoutMs?: number;
}

/** One screenshot of `screen$`. */
export interface ScreenFrame {
  /** 0, 1, 2, ... per subscription. */
  sequence: number;
  bytes: Uint8Array;
  /** The server's media type, e.g. `image/png`. */
  contentType: string;
  /** `Date.now()` when the bytes had arrived. */
  capturedAt: number;
  /** How long the request took, in ms. */
  latencyMs: number;
}

/** How `screenStream` takes one screenshot. */
export type TakeScreenshot = (
  options: ScreenshotOptions & { region?: Region },
  call: CallOptions,
) => Promise<DesktopFile>;

/**
 * A cold stream of screenshots: each subscription starts its own loop. There is never more than
 * one request in flight; the next starts `intervalMs` after the previous one started, or as soon
 * as the subscriber's `next` returns when that took longer, so a slow consumer slows the loop
 * down instead of queueing frames. Unsubscribing aborts the request in flight. A failed request
 * errors the stream with its typed error (before `desktop.start()`, a `SandboxAgentHttpError` of
 * kind `desktop-runtime-inactive`).
 */
export function screenStream(take: TakeScreenshot, options: ScreenOptions = {}): Observable<ScreenFrame> {
  const {
    intervalMs = DESKTOP_DEFAULTS.screenIntervalMs,
    timeoutMs = DESKTOP_DEFAULTS.screenTimeoutMs,
    region,
    ...shot
  } = options;
  return new Observable<ScreenFrame>((subscriber) => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let sequence = 0;
    const tick = async (): Promise<void> => {
      const startedAt = performance.now();
      let file: DesktopFile;
      try {
        file = await take({ ...shot, ...(region ? { region } : {}) }, { signal: controller.signal, timeoutMs });
      } catch (error) {
        if (!controller.signal.aborted) subscriber.error(error);
        return;
      }
      if (controller.signal.aborted) return;
      const latencyMs = performance.now() - startedAt;
      const { bytes, contentType } = file;
      subscriber.next({ sequence: sequence++, bytes, contentType, capturedAt: Date.now(), latencyMs });
      if (controller.signal.aborted) return;
      timer = setTimeout(() => void tick(), Math.max(0, intervalMs - (performance.now() - startedAt)));
    };
    void tick();
    return () => {
      if (timer !== undefined) clearTimeout(timer);
      controller.abort(new CallAbortedError("desktop.screen$ was unsubscribed"));
    };
  });
}
