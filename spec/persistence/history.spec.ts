import { Subject } from "rxjs";
import {
  createRecorder,
  history$,
  memoryStore,
  StoreError,
  type HistoryEvent,
  type NewSessionEvent,
} from "../../lib/sandbox/persistence/index.js";
import { event } from "./store-contract.js";
import { gatedStore, settle, until } from "./gated-store.js";

const n = (value: NewSessionEvent) => Number(value.id.split(":").at(-1));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function prefilled(count: number) {
  const inner = memoryStore();
  for (let i = 1; i <= count; i++) await inner.insertEvent("s", event("s", i));
  return gatedStore(inner);
}

describe("history$", () => {
  it.each([
    ["written partly during the load", 3, 5],
    ["all still queued at the seam", -1, -1],
  ])("no gap, no duplicate when live events arrive while history pages load (%s)", async (_, openAt, closeAt) => {
    const store = await prefilled(50);
    const recorder = createRecorder(store);
    const live = new Subject<NewSessionEvent>();
    live.pipe(recorder.record((value) => value)).subscribe();
    // Accepted before the subscription and still unwritten: only the recorder's queue has them.
    store.inserts.close();
    live.next(event("s", 51));
    live.next(event("s", 52));
    store.listing.close();
    const seen: HistoryEvent[] = [];
    let complete = false;
    const subscription = history$(recorder, "s", { pageSize: 10 }).subscribe({
      next: (value) => seen.push(value),
      complete: () => (complete = true),
    });
    let next = 53;
    let pages = 0;
    for (let loading = true; loading; pages++) {
      // Events arrive mid-load; some get written before the load reaches the store's tail.
      live.next(event("s", next++));
      live.next(event("s", next++));
      if (pages === openAt) store.inserts.open();
      if (pages === closeAt) store.inserts.close();
      await until(() => store.listing.waiting > 0 || seen.some((value) => n(value) === next - 1), "a page or the seam");
      loading = store.listing.waiting > 0;
      store.listing.step();
      await settle();
    }
    expect(pages).toBeGreaterThanOrEqual(6); // live events arrived during every page of the load
    store.listing.open();
    store.inserts.open();
    await recorder.flush();
    live.next(event("s", next++));
    await until(() => seen.length >= next - 1, "every event");
    expect(seen.map(n)).toEqual(range(1, next - 1));
    // The stored part carries indexes, in order; what was still unwritten at the seam comes live.
    const indexes = seen.flatMap((value) => (value.eventIndex === undefined ? [] : [value.eventIndex]));
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(indexes.slice(0, 50)).toEqual(range(1, 50));
    if (openAt < 0) expect(indexes).toHaveLength(50);
    else expect(indexes.length).toBeGreaterThan(52);
    expect(complete).toBe(false);
    subscription.unsubscribe();
  });

  it("emits an event accepted but never stored (a failing store) at its place", async () => {
    const inner = memoryStore();
    await inner.insertEvent("s", event("s", 1));
    const store = gatedStore(inner);
    let refuse = true;
    const recorder = createRecorder({
      ...store,
      insertEvent: async (id, value) => (refuse ? Promise.reject(new Error("no")) : store.insertEvent(id, value)),
    });
    store.listing.close();
    recorder.enqueue(event("s", 2));
    const seen: number[] = [];
    history$(recorder, "s").subscribe((value) => seen.push(n(value)));
    await recorder.flush();
    refuse = false;
    store.listing.open();
    recorder.enqueue(event("s", 3));
    await until(() => seen.length >= 3, "three events");
    expect(seen).toEqual([1, 2, 3]);
  });

  it("drops a live event that repeats one it has already emitted (a replayed stream)", async () => {
    const recorder = createRecorder(await prefilled(3));
    const seen: number[] = [];
    history$(recorder, "s").subscribe((value) => seen.push(n(value)));
    await until(() => seen.length === 3, "history");
    recorder.enqueue(event("s", 3));
    recorder.enqueue(event("s", 4));
    await until(() => seen.length >= 4, "live");
    await recorder.flush();
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("shows only its own session and stops paging once unsubscribed", async () => {
    const store = await prefilled(30);
    await store.insertEvent("other", event("other", 1));
    const recorder = createRecorder(store);
    store.listing.close();
    const seen: string[] = [];
    const subscription = history$(recorder, "s", { pageSize: 10 }).subscribe((value) => seen.push(value.sessionId));
    recorder.enqueue(event("other", 2));
    store.listing.step();
    await until(() => seen.length === 10, "the first page");
    subscription.unsubscribe();
    store.listing.open();
    await settle();
    expect(store.listCalls).toBe(2);
    expect(seen).toEqual(Array(10).fill("s"));
  });

  it("errors with a StoreError when the store cannot be read", async () => {
    const inner = memoryStore();
    const recorder = createRecorder({ ...inner, listEvents: () => Promise.reject(new Error("gone")) });
    const failure = await new Promise((resolve) => history$(recorder, "s").subscribe({ error: resolve }));
    expect(failure).toBeInstanceOf(StoreError);
    expect(((failure as StoreError).cause as Error).message).toBe("gone");
  });
});
