// Scenario 10: scenario 4's burst (the scripted agent's `burst N`, N session/update lines back to
// back through the real server) into SandboxAgentClient with a recorded session on postgresStore.
// Measures what reaches events$ (distinct updates; the 0.4.2 server drops some under bursts), what
// the store holds afterwards, the store's lag (from an event's arrival, its `createdAt`, to the
// write that stored it resolving), the write rate, and the recorder's largest backlog (updates
// delivered but not yet stored), with the store errors (a full queue would show as a StoreError of kind store_backlog).
import { tmpdir } from "node:os";
import { SandboxAgentClient, type NewSessionEvent, type SessionStore } from "../../lib/sandbox/index.js";
import { quantile, sleep } from "../support/measure.js";
import type { BenchServer } from "../support/server.js";

const QUIET_MS = 1500;

export interface StoreBurstResult {
  sent: number;
  /** Distinct updates handed to events$ subscribers. */
  delivered: number;
  /** Distinct updates of the burst in the store once the recorder is idle. */
  stored: number;
  storeErrors: number;
  backlogErrors: number;
  toLastDeliveredMs: number;
  /** From the prompt to the last write of the burst resolving. */
  toAllStoredMs: number;
  lagP50Ms: number;
  lagP95Ms: number;
  lagMaxMs: number;
  /** Events stored per second between the first and the last write of the burst. */
  writesPerSecond: number;
  /** Largest count of delivered updates not yet stored. */
  maxBacklog: number;
  batches: number;
}

const textOf = (payload: unknown): string | undefined => {
  const update = (payload as { params?: { update?: { sessionUpdate?: string; content?: { text?: string } } } }).params?.update;
  return update?.sessionUpdate === "agent_message_chunk" ? update.content?.text : undefined;
};

export async function storeBurst(server: BenchServer, inner: SessionStore, count: number): Promise<StoreBurstResult> {
  const lags: number[] = [];
  let storedCount = 0;
  let delivered = 0;
  let maxBacklog = 0;
  let batches = 0;
  let measuring = false;
  let firstWrite = 0;
  let lastWrite = 0;
  const note = (events: NewSessionEvent[], inserted: number) => {
    if (!measuring) return;
    const now = performance.now();
    const wall = Date.now();
    batches++;
    firstWrite ||= now;
    lastWrite = now;
    for (const event of events) lags.push(wall - event.createdAt);
    storedCount += inserted;
    maxBacklog = Math.max(maxBacklog, delivered - storedCount);
  };
  // The same store, with its writes timed (as a user's wrapper could).
  const store: SessionStore = {
    getSession: (id) => inner.getSession(id),
    listSessions: (request) => inner.listSessions(request),
    updateSession: (record) => inner.updateSession(record),
    listEvents: (request) => inner.listEvents(request),
    insertEvent: async (sessionId, event) => {
      const outcome = await inner.insertEvent(sessionId, event);
      note([event], outcome.inserted ? 1 : 0);
      return outcome;
    },
    ...(inner.insertEvents
      ? {
        insertEvents: async (events: NewSessionEvent[]) => {
          const outcomes = await (inner.insertEvents as NonNullable<SessionStore["insertEvents"]>)(events);
          note(events, outcomes.filter((outcome) => outcome.inserted).length);
          return outcomes;
        },
      }
      : {}),
  };
  const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
  let storeErrors = 0;
  let backlogErrors = 0;
  client.storeErrors$.subscribe((error) => {
    if (!measuring) return;
    storeErrors++;
    if (error.kind === "store-backlog") backlogErrors++;
  });
  const seen = new Set<string>();
  let lastAt = 0;
  client.events$.subscribe((event) => {
    if (!measuring || event.kind !== "update" || event.update.sessionUpdate !== "agent_message_chunk") return;
    const text = (event.update.content as { text?: string }).text ?? "";
    if (seen.has(text)) return;
    seen.add(text);
    delivered++;
    lastAt = performance.now();
  });
  try {
    await client.ready;
    const { sessionId } = await client.newSession({ cwd: tmpdir() });
    await client.prompt(sessionId, "chunks 50"); // warm-up, not measured
    await sleep(200);
    measuring = true;
    const start = performance.now();
    const response = client.prompt(sessionId, `burst ${count}`);
    await response;
    const answeredAt = performance.now();
    while (delivered < count && performance.now() - Math.max(lastAt, answeredAt) < QUIET_MS) await sleep(20);
    // The recorder's writes of the burst (its flush is internal; wait until writes stop).
    while (storedCount + storeErrors < delivered && performance.now() - lastWrite < QUIET_MS) await sleep(20);
    measuring = false;
    // The burst's updates in the store: the chunks after its prompt (the last client event), distinct.
    const texts = new Set<string>();
    let afterPrompt = false;
    let cursor: string | undefined;
    do {
      const page = await inner.listEvents({ sessionId, limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const event of page.items) {
        if (event.sender === "client") {
          afterPrompt = true;
          texts.clear();
          continue;
        }
        const text = textOf(event.payload);
        if (afterPrompt && text !== undefined) texts.add(text);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const sorted = [...lags].sort((a, b) => a - b);
    return {
      sent: count,
      delivered,
      stored: texts.size,
      storeErrors,
      backlogErrors,
      toLastDeliveredMs: lastAt - start,
      toAllStoredMs: lastWrite - start,
      lagP50Ms: quantile(sorted, 0.5),
      lagP95Ms: quantile(sorted, 0.95),
      lagMaxMs: sorted.at(-1) ?? Number.NaN,
      writesPerSecond: storedCount / Math.max(0.001, (lastWrite - firstWrite) / 1000),
      maxBacklog,
      batches,
    };
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

export interface RecorderBurstResult {
  sent: number;
  stored: number;
  storeErrors: number;
  /** From the first event queued to the last one stored. */
  allStoredMs: number;
  lagP50Ms: number;
  lagP95Ms: number;
  writesPerSecond: number;
}

/**
 * The same burst without the server (which drops events of a live stream under bursts): `count`
 * session/update envelopes handed to the client's recorder as fast as the client would queue them
 * (100 at a time, the rest of the event loop free between), all then awaited in the store.
 */
export async function recorderBurst(store: SessionStore, count: number): Promise<RecorderBurstResult> {
  const { createRecorder } = await import("../../lib/sandbox/index.js");
  const recorder = createRecorder(store);
  const lags: number[] = [];
  let storeErrors = 0;
  recorder.storeErrors$.subscribe(() => storeErrors++);
  recorder.stored$.subscribe((event) => lags.push(Date.now() - event.createdAt));
  const sessionId = `burst-${Date.now()}`;
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    recorder.enqueue({
      id: `sse:bench:connection:${i + 1}`,
      sessionId,
      createdAt: Date.now(),
      connectionId: "bench",
      sender: "agent",
      payload: {
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `c${i}` } }, _meta: { seq: i } },
      },
    });
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  await recorder.flush();
  const allStoredMs = performance.now() - start;
  const sorted = [...lags].sort((a, b) => a - b);
  return {
    sent: count,
    stored: lags.length,
    storeErrors,
    allStoredMs,
    lagP50Ms: quantile(sorted, 0.5),
    lagP95Ms: quantile(sorted, 0.95),
    writesPerSecond: lags.length / (allStoredMs / 1000),
  };
}
