/**
 * The EventStream's ids, gaps, cursor and watchdog: opaque ids, session ids on gaps, cursor
 * advances, and a stall watchdog that measures the server, not us.
 */
import { EventStream, type CursorAdvance, type EventGap, type EventStreamOwner, type EventStreamSettings, type EventStreamStatus } from "../../../lib/acp-http/event-stream.js";
import { normalizeReconnectPolicy } from "../../../lib/internal/backoff.js";
import { ACP_DEFAULTS } from "../../../lib/acp-http/defaults.js";
import type { SseFrame } from "../../../lib/internal/sse.js";

const silent = { debug: () => undefined, warn: () => undefined };
const encoder = new TextEncoder();

interface Opened {
  lastEventId: string | undefined;
  push(text: string): void;
  end(): void;
}

interface Rig {
  stream: EventStream;
  opens: Opened[];
  frames: SseFrame[];
  gaps: EventGap[];
  cursors: CursorAdvance[];
  statuses: EventStreamStatus[];
  fatal: Error[];
}

function rig(options: Partial<EventStreamSettings> & { stallTimeoutMs?: number } = {}, onFrame?: (frame: SseFrame) => void): Rig {
  const r: Omit<Rig, "stream"> = { opens: [], frames: [], gaps: [], cursors: [], statuses: [], fatal: [] };
  const owner: EventStreamOwner = {
    openStream: async (_stream, lastEventId, signal) => {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      signal.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")), { once: true });
      r.opens.push({ lastEventId, push: (text) => controller.enqueue(encoder.encode(text)), end: () => controller.close() });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
    streamStatus: (_stream, status) => r.statuses.push(status),
    streamGap: (gap) => r.gaps.push(gap),
    streamRetrying: () => undefined,
    streamDropped: () => undefined,
    streamGaveUp: (_stream, error) => r.fatal.push(error),
  };
  const stream = new EventStream(
    {
      name: options.name ?? "connection",
      policy: normalizeReconnectPolicy({ initialDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetries: 3, stallTimeoutMs: options.stallTimeoutMs }, ACP_DEFAULTS.reconnect),
      lastEventId: options.lastEventId,
      ...(options.contiguousIds === undefined ? {} : { contiguousIds: options.contiguousIds }),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      logger: silent,
      sink: {
        frame: (frame) => {
          r.frames.push(frame);
          onFrame?.(frame);
        },
        readDone: () => undefined,
        tooLarge: () => undefined,
      },
      onCursor: (advance) => r.cursors.push(advance),
    },
    owner,
  );
  live.push(stream);
  return { stream, ...r };
}

const live: EventStream[] = [];
afterEach(() => {
  for (const stream of live.splice(0)) stream.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}
const event = (id: string, data = `{"n":"${id}"}`) => `id: ${id}\ndata: ${data}\n\n`;

describe("SSE ids are opaque unless the server promises contiguous numbering", () => {
  it("ids 10, 20, 30 on a stream without that promise: three frames, no gap, no reopen", async () => {
    const r = rig({ contiguousIds: false });
    r.stream.start();
    await until(() => r.opens.length === 1, "the GET");
    r.opens[0]?.push(event("10") + event("20"));
    r.opens[0]?.push(event("30"));
    await until(() => r.frames.length === 3, "three frames");
    await sleep(30);
    expect(r.frames.map((f) => f.id)).toEqual(["10", "20", "30"]);
    expect(r.gaps).toEqual([]);
    expect(r.opens).toHaveLength(1);
    expect(r.stream.lastEventId).toBe("30");
  });

  it("still drops a replayed id there (opaque dedupe)", async () => {
    const r = rig({ contiguousIds: false });
    r.stream.start();
    await until(() => r.opens.length === 1, "the GET");
    r.opens[0]?.push(event("10") + event("20") + event("10"));
    await until(() => r.frames.length === 2, "two frames");
    await sleep(20);
    expect(r.frames.map((f) => f.id)).toEqual(["10", "20"]);
  });

  it("with the promise (the default), a skipped id mid-stream is still recovered by reopening from the cursor", async () => {
    const r = rig();
    r.stream.start();
    await until(() => r.opens.length === 1, "the GET");
    r.opens[0]?.push(event("1") + event("3"));
    await until(() => r.opens.length === 2, "the recovery GET");
    expect(r.opens[1]?.lastEventId).toBe("1");
  });
});

describe("a gap on a per-session stream names its session", () => {
  it("reports sessionId with the gap", async () => {
    const r = rig({ name: "sess-1", sessionId: "sess-1", lastEventId: "0" });
    r.stream.start();
    await until(() => r.opens.length === 1, "the GET");
    r.opens[0]?.push(event("5"));
    await until(() => r.gaps.length === 1, "the gap");
    expect(r.gaps[0]).toEqual({ stream: "sess-1", sessionId: "sess-1", firstMissing: 1, lastMissing: 4 });
  });

  it("the connection stream's gaps carry no sessionId", async () => {
    const r = rig({ lastEventId: "2" });
    r.stream.start();
    await until(() => r.opens.length === 1, "the GET");
    r.opens[0]?.push(event("6"));
    await until(() => r.gaps.length === 1, "the gap");
    expect(r.gaps[0]).toEqual({ stream: "connection", firstMissing: 3, lastMissing: 5 });
  });
});

describe("cursor advances are observable and the cursor outlives the stream", () => {
  it("reports every advance, before the frame is dispatched, and keeps lastEventId after stop", async () => {
    const seenAtDispatch: (string | undefined)[] = [];
    const r = rig({ name: "s-9", sessionId: "s-9", contiguousIds: false }, () => seenAtDispatch.push(r.cursors.at(-1)?.lastEventId));
    r.stream.start();
    await until(() => r.opens.length === 1, "the GET");
    r.opens[0]?.push(event("a") + `data: {"no":"id"}\n\n` + event("b"));
    await until(() => r.frames.length === 3, "three frames");
    expect(r.cursors).toEqual([
      { stream: "s-9", sessionId: "s-9", lastEventId: "a" },
      { stream: "s-9", sessionId: "s-9", lastEventId: "b" },
    ]);
    expect(seenAtDispatch).toEqual(["a", "a", "b"]);
    r.stream.stop();
    expect(r.stream.lastEventId).toBe("b");
  });
});

describe("the stall watchdog measures the server, never our consumer", () => {
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      // A subscriber doing synchronous work.
    }
  };

  it("a 25 ms-per-frame consumer of a 12-frame chunk (300 ms) under a 100 ms stall timeout: no reconnect", async () => {
    const r = rig({ stallTimeoutMs: 100 }, () => busy(25));
    r.stream.start();
    await until(() => r.opens.length === 1, "the GET");
    r.opens[0]?.push(Array.from({ length: 12 }, (_, i) => event(String(i + 1))).join(""));
    await until(() => r.frames.length === 12, "twelve frames");
    // The server stays silent for 40 ms after we were done, well within its 100 ms, then sends a heartbeat.
    await sleep(40);
    r.opens[0]?.push(": heartbeat\n\n");
    await sleep(20);
    expect(r.statuses).not.toContain("reconnecting");
    expect(r.opens).toHaveLength(1);
  });

  it("a server that sends nothing for the stall timeout is still a stall", async () => {
    const r = rig({ stallTimeoutMs: 60 });
    r.stream.start();
    await until(() => r.opens.length === 1, "the GET");
    r.opens[0]?.push(event("1"));
    await until(() => r.opens.length === 2, "the reconnect after the stall", 3000);
    expect(r.statuses).toContain("reconnecting");
    expect(r.opens[1]?.lastEventId).toBe("1");
  });
});
