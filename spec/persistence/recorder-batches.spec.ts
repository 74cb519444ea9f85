// The recorder with a store that writes batches (insertEvents): a 100,000-event burst that arrives
// all at once, against a store that needs 20 ms per write, is stored whole (the default queue of a
// batching store holds it; an earlier recorder kept 10,000 and reported the rest lost), in large
// batches, in order; and a batch one session's lease refuses costs only that session's events.
import { Subject } from "rxjs";
import {
  createRecorder,
  LeaseLostError,
  memoryStore,
  type InsertOutcome,
  type NewSessionEvent,
  type SessionStore,
  type StoreError,
} from "../../lib/sandbox/persistence/index.js";
import { event } from "./store-contract.js";

/** memoryStore with a batch write that takes `delayMs` and may refuse a session. */
function batchingStore(delayMs: number, refuse?: string): SessionStore & { batches: number[] } {
  const inner = memoryStore({ maxEventsPerSession: 200_000 });
  const batches: number[] = [];
  return {
    ...inner,
    batches,
    async insertEvents(events: NewSessionEvent[]): Promise<InsertOutcome[]> {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (refuse && events.some((e) => e.sessionId === refuse)) throw new LeaseLostError(refuse, 1);
      batches.push(events.length);
      const outcomes: InsertOutcome[] = [];
      for (const e of events) outcomes.push(await inner.insertEvent(e.sessionId, e));
      return outcomes;
    },
  };
}

describe("createRecorder with a batching store", () => {
  it("stores a 100,000-event burst whole, in order, in batches of at most 5000", async () => {
    const store = batchingStore(20);
    const recorder = createRecorder(store);
    const errors: StoreError[] = [];
    recorder.storeErrors$.subscribe((error) => errors.push(error));
    const source = new Subject<NewSessionEvent>();
    let passed = 0;
    source.pipe(recorder.record((value: NewSessionEvent) => value)).subscribe(() => passed++);
    for (let i = 1; i <= 100_000; i++) source.next(event("s", i));
    expect(passed).toBe(100_000);
    await recorder.flush();
    expect(errors.map((error) => error.name)).toEqual([]);
    const stored = await store.listEvents({ sessionId: "s", afterIndex: 99_990, limit: 100 });
    expect(stored.items.map((e) => [e.eventIndex, e.id])).toEqual(
      Array.from({ length: 10 }, (_, i) => [99_991 + i, event("s", 99_991 + i).id]),
    );
    expect(Math.max(...store.batches)).toBeLessThanOrEqual(5000);
    expect(store.batches.length).toBeLessThanOrEqual(100_000 / 1000);
  }, 60_000);

  it("still bounds its queue: past maxBacklog, events are reported, not queued", async () => {
    const store = batchingStore(20);
    const recorder = createRecorder(store, { maxBacklog: 1000 });
    const errors: StoreError[] = [];
    recorder.storeErrors$.subscribe((error) => errors.push(error));
    for (let i = 1; i <= 1500; i++) recorder.enqueue(event("s", i));
    expect(recorder.pending()).toHaveLength(1000);
    expect(errors).toHaveLength(500);
    expect(errors.every((error) => error.kind === "store-backlog")).toBe(true);
    await recorder.flush();
  });

  it("a batch refused for one session's lease is written again per session: the others' events are stored", async () => {
    const store = batchingStore(1, "lost");
    const recorder = createRecorder(store);
    const errors: StoreError[] = [];
    recorder.storeErrors$.subscribe((error) => errors.push(error));
    for (let i = 1; i <= 3; i++) {
      recorder.enqueue(event("kept", i));
      recorder.enqueue(event("lost", i));
    }
    await recorder.flush();
    expect((await store.listEvents({ sessionId: "kept" })).items.map((e) => e.eventIndex)).toEqual([1, 2, 3]);
    expect(errors).toHaveLength(3);
    expect(errors.every((error) => error.cause instanceof LeaseLostError)).toBe(true);
  });
});
