// desktop.screen$ against the real 0.4.2 server: cold, one request in flight, a slow consumer slows
// the loop instead of piling requests up, and unsubscribing aborts the request in flight.
import { jest } from "@jest/globals";
import { firstValueFrom, take, toArray } from "rxjs";
import type { Desktop, ScreenFrame } from "../../../lib/sandbox/server/desktop/index.js";
import { } from "../../../lib/sandbox/errors.js";
import { describeWith } from "../../support/system-component.js";
import { DESKTOP, freeDisplayNumber } from "./desktop-component.js";
import { startDesktopServer, type DesktopServer } from "./desktop-server.js";
import { pngSize } from "./images.js";

jest.setTimeout(60_000);

/** A fetch that counts screenshot requests: started, in flight now, most in flight at once, their signals. */
class CountingFetch {
  started = 0;
  inFlight = 0;
  maxInFlight = 0;
  readonly signals: AbortSignal[] = [];
  onStart: (() => void) | undefined;

  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes("/desktop/screenshot")) return globalThis.fetch(input, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal) this.signals.push(signal);
    this.started++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.onStart?.();
    try {
      const response = await globalThis.fetch(input, init);
      // Count the request as in flight until its body is read, as the client does.
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, headers: response.headers });
    } finally {
      this.inFlight--;
    }
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describeWith([DESKTOP])("desktop.screen$ against the real 0.4.2 server", () => {
  let running: DesktopServer;
  let counting: CountingFetch;
  let desktop: Desktop;

  beforeAll(async () => {
    counting = new CountingFetch();
    running = await startDesktopServer({ fetch: counting.fetch });
    ({ desktop } = running);
  });

  afterAll(async () => {
    await running?.stop();
  });

  beforeEach(() => {
    counting.started = 0;
    counting.maxInFlight = 0;
    counting.signals.length = 0;
    counting.onStart = undefined;
  });

  it("errors with a desktop_runtime_inactive 409 before the desktop is started", async () => {
    await expect(firstValueFrom(desktop.screen$({ intervalMs: 10 }))).rejects.toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "desktop-runtime-inactive" });
    await desktop.start({ width: 320, height: 200, displayNum: freeDisplayNumber(process.pid + 211) });
  });

  it("is cold: nothing is requested until someone subscribes, and each subscriber gets its own loop", async () => {
    const screen$ = desktop.screen$({ intervalMs: 10, format: "jpeg", quality: 40 });
    await sleep(300);
    expect(counting.started).toBe(0);
    const frames = await firstValueFrom(screen$.pipe(take(3), toArray()));
    expect(frames.map((f) => f.sequence)).toEqual([0, 1, 2]);
    for (const frame of frames) {
      expect(frame.contentType).toBe("image/jpeg");
      expect(Buffer.from(frame.bytes.subarray(0, 3)).toString("hex")).toBe("ffd8ff");
      expect(frame.latencyMs).toBeGreaterThan(0);
    }
    // take(3) unsubscribes after the third frame: no fourth request is started.
    await sleep(300);
    expect(counting.started).toBe(3);
    expect(counting.maxInFlight).toBe(1);
    const again = await firstValueFrom(screen$.pipe(take(1)));
    expect(again.sequence).toBe(0);
  });

  it("keeps one request in flight: a slow consumer slows the loop instead of queueing requests", async () => {
    const received: ScreenFrame[] = [];
    await new Promise<void>((resolve, reject) => {
      const subscription = desktop.screen$({ intervalMs: 0 }).subscribe({
        next: (frame) => {
          received.push(frame);
          // A consumer that blocks for 300 ms per frame (decoding, painting) while the interval is 0.
          const until = Date.now() + 300;
          while (Date.now() < until) {
            // busy on purpose
          }
          expect(counting.inFlight).toBe(0);
          if (received.length === 4) {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: reject,
      });
    });
    await sleep(300);
    expect(counting.maxInFlight).toBe(1);
    // One request per frame delivered: none was started while the consumer was busy.
    expect(counting.started).toBe(4);
    expect(received.map((f) => f.sequence)).toEqual([0, 1, 2, 3]);
  });

  it("waits intervalMs between the starts of two requests", async () => {
    const frames = await firstValueFrom(desktop.screen$({ intervalMs: 400, scale: 0.5 }).pipe(take(3), toArray()));
    const gaps = frames.slice(1).map((frame, i) => frame.capturedAt - frames[i]!.capturedAt);
    // Each gap is at least the interval less the jitter of one request's latency.
    const slowest = Math.max(...frames.map((f) => f.latencyMs));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(400 - 50 - slowest);
    expect(counting.maxInFlight).toBe(1);
  });

  it("takes only the region when given one", async () => {
    const region = { x: 10, y: 10, width: 64, height: 32 };
    const frame = await firstValueFrom(desktop.screen$({ intervalMs: 10, region }));
    expect(frame.contentType).toBe("image/png");
    expect(pngSize(frame.bytes)).toEqual({ width: 64, height: 32 });
  });

  it("aborts the request in flight when unsubscribed, and starts no other", async () => {
    let subscription: { unsubscribe(): void } | undefined;
    const inFlight = new Promise<void>((resolve) => {
      counting.onStart = resolve;
    });
    const values: ScreenFrame[] = [];
    subscription = desktop.screen$({ intervalMs: 0 }).subscribe({ next: (frame) => values.push(frame) });
    await inFlight;
    subscription.unsubscribe();
    expect(counting.signals).toHaveLength(1);
    expect(counting.signals[0]!.aborted).toBe(true);
    await sleep(500);
    expect(counting.started).toBe(1);
    expect(values).toEqual([]);
  });
});
