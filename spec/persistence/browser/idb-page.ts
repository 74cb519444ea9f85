// Bundled for the page (esbuild): the shared store checks against indexedDbStore in a real
// browser, and a recorder the reload test drives across page loads.
import { createRecorder, indexedDbStore, type SessionStore } from "../../../lib/sandbox/persistence/index.js";
import { durableChecks, event, storeChecks, type StoreFactory } from "../store-contract.js";

let counter = 0;
const factory: StoreFactory = async () => {
  const name = `contract-${Date.now()}-${++counter}`;
  const store = indexedDbStore({ name });
  return {
    store,
    reopen: async () => {
      await store.close?.();
      return indexedDbStore({ name });
    },
  };
};

async function runChecks(): Promise<Array<{ title: string; error?: string }>> {
  const results = [];
  for (const [title, check] of Object.entries({ ...storeChecks, ...durableChecks })) {
    try {
      await check(factory);
      results.push({ title });
    } catch (error) {
      results.push({ title, error: String((error as Error).stack ?? error) });
    }
  }
  return results;
}

/**
 * Records `from..to` as a stream would deliver them (a resumed stream starts again below what is
 * stored). With `stallAt`, stops there for good with its writes in flight, for the page to be
 * reloaded under it.
 */
async function record(from: number, to: number, stallAt?: number): Promise<number> {
  const store: SessionStore = indexedDbStore({ name: "reload" });
  const recorder = createRecorder(store);
  for (let n = from; n <= to; n++) {
    recorder.enqueue(event("s", n));
    if (n === stallAt) {
      localStorage.setItem("stalled", String(n));
      await new Promise(() => undefined);
    }
    if (n % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  await recorder.flush();
  return (await store.listEvents({ sessionId: "s", limit: 1 })).items.length;
}

async function stored(): Promise<number[]> {
  const store = indexedDbStore({ name: "reload" });
  const ids: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listEvents({ sessionId: "s", limit: 100, ...(cursor ? { cursor } : {}) });
    ids.push(...page.items.map((item) => item.eventIndex * 100000 + Number(item.id.split(":").at(-1))));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

Object.assign(globalThis, { runChecks, record, stored });
