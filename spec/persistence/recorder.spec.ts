import { Subject, toArray, firstValueFrom, lastValueFrom, from } from "rxjs";
import {
  createRecorder,
  memoryStore,
  StoreError,
  type NewSessionEvent,
  type SessionStore,
} from "../../lib/sandbox/persistence/index.js";
import { event } from "./store-contract.js";
import { gatedStore } from "./gated-store.js";

const n = (value: NewSessionEvent) => Number(value.id.split(":").at(-1));
const same = (value: NewSessionEvent) => value;

describe("createRecorder", () => {
  it("delivers every value at once and in order while a slow store has written none of them", async () => {
    const store = gatedStore();
    store.inserts.close();
    const recorder = createRecorder(store);
    const source = new Subject<NewSessionEvent>();
    const seen: number[] = [];
    source.pipe(recorder.record(same)).subscribe((value) => seen.push(n(value)));
    for (let i = 1; i <= 100; i++) source.next(event("s", i));
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect((await store.listEvents({ sessionId: "s" })).items).toEqual([]);
    expect(recorder.pending("s")).toHaveLength(100);
    store.inserts.open();
    await recorder.flush();
    const { items } = await store.listEvents({ sessionId: "s", limit: 1000 });
    expect(items.map((item) => [item.eventIndex, n(item)])).toEqual(seen.map((value) => [value, value]));
    expect(recorder.pending()).toEqual([]);
  });

  it("surfaces a throwing and a rejecting store on storeErrors$; the stream and later writes live on", async () => {
    const inner = memoryStore();
    let calls = 0;
    const flaky: SessionStore = {
      ...inner,
      insertEvent: (sessionId, value) => {
        calls += 1;
        if (calls === 2) throw new Error("disk on fire"); // synchronous, not even a rejected promise
        if (calls === 3) return Promise.reject(new Error("quota exceeded"));
        return inner.insertEvent(sessionId, value);
      },
    };
    const recorder = createRecorder(flaky);
    const errors: StoreError[] = [];
    recorder.storeErrors$.subscribe((error) => errors.push(error));
    const source = from([1, 2, 3, 4].map((i) => event("s", i)));
    const delivered = await lastValueFrom(source.pipe(recorder.record(same), toArray()));
    expect(delivered.map(n)).toEqual([1, 2, 3, 4]);
    await recorder.flush();
    const described = errors.map((error) => {
      const { eventId } = error;
      return [error.constructor, error.kind, eventId, (error.cause as Error).message];
    });
    expect(described).toEqual([
      [StoreError, "store-write", event("s", 2).id, "disk on fire"],
      [StoreError, "store-write", event("s", 3).id, "quota exceeded"],
    ]);
    expect((await inner.listEvents({ sessionId: "s" })).items.map(n)).toEqual([1, 4]);
  });

  it("reports a value it cannot map and still delivers it", async () => {
    const recorder = createRecorder(memoryStore());
    const errors = firstValueFrom(recorder.storeErrors$);
    const delivered = await lastValueFrom(
      from([1, 2]).pipe(
        recorder.record((i) => {
          if (i === 1) throw new Error("no session id");
          return event("s", i);
        }),
        toArray(),
      ),
    );
    expect(delivered).toEqual([1, 2]);
    expect(await errors).toBeInstanceOf(StoreError);
    await recorder.flush();
    expect((await recorder.store.listEvents({ sessionId: "s" })).items.map(n)).toEqual([2]);
  });

  it("bounds its queue: past maxBacklog an event is reported as not stored, never delayed", async () => {
    const store = gatedStore();
    store.inserts.close();
    const recorder = createRecorder(store, { maxBacklog: 3 });
    const errors: StoreError[] = [];
    recorder.storeErrors$.subscribe((error) => errors.push(error));
    const source = from([1, 2, 3, 4, 5].map((i) => event("s", i)));
    const delivered = await lastValueFrom(source.pipe(recorder.record(same), toArray()));
    expect(delivered.map(n)).toEqual([1, 2, 3, 4, 5]);
    expect(errors.map((error) => [error.constructor, error.kind, error.eventId])).toEqual([
      [StoreError, "store-backlog", event("s", 4).id],
      [StoreError, "store-backlog", event("s", 5).id],
    ]);
    store.inserts.open();
    await recorder.flush();
    expect((await store.listEvents({ sessionId: "s" })).items.map(n)).toEqual([1, 2, 3]);
  });

  it("passes the source's error on and still writes what it had accepted", async () => {
    const recorder = createRecorder(memoryStore());
    const source = new Subject<NewSessionEvent>();
    let failure: unknown;
    source.pipe(recorder.record(same)).subscribe({ error: (error) => (failure = error) });
    source.next(event("s", 1));
    source.error(new Error("stream lost"));
    await recorder.flush();
    expect((failure as Error).message).toBe("stream lost");
    expect((await recorder.store.listEvents({ sessionId: "s" })).items.map(n)).toEqual([1]);
  });

  it("stores a replayed event once and announces only real inserts on stored$", async () => {
    const recorder = createRecorder(memoryStore());
    const stored: number[] = [];
    recorder.stored$.subscribe((value) => stored.push(value.eventIndex));
    for (const i of [1, 2, 3, 2, 3, 4]) recorder.enqueue(event("s", i));
    await recorder.flush();
    expect(stored).toEqual([1, 2, 3, 4]);
    expect((await recorder.store.listEvents({ sessionId: "s" })).items.map(n)).toEqual([1, 2, 3, 4]);
  });
});
