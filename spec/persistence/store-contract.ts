// The behaviour every SessionStore driver must have, as plain async checks so the same suite runs
// under jest in Node (memory, SQLite) and inside a real Chromium page (IndexedDB). Browser-safe:
// no Node imports, its own tiny assertions.
import { StoreError, type NewSessionEvent, type SessionRecord, type SessionStore, type StoreErrorKind } from "../../lib/sandbox/persistence/index.js";

export interface StoreUnderTest {
  store: SessionStore;
  /** Closes the store and opens the same data again (drivers that persist). */
  reopen?: () => Promise<SessionStore>;
}
export type StoreFactory = () => Promise<StoreUnderTest>;
export type StoreCheck = (make: StoreFactory) => Promise<void>;

function fail(message: string): never {
  throw new Error(message);
}
function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) fail(`${what}: expected ${e}, got ${a}`);
}
/** The call fails with a `StoreError` of `kind`. */
async function rejectsWith(promise: Promise<unknown>, kind: StoreErrorKind, what: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StoreError && error.kind === kind) return;
    fail(`${what}: expected a StoreError of kind ${kind}, got ${(error as Error).name}: ${(error as Error).message}`);
  }
  fail(`${what}: expected a StoreError of kind ${kind}, but it resolved`);
}

export const session = (id: string, createdAt: number, extra: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  agent: "mock",
  agentSessionId: `agent-${id}`,
  lastConnectionId: "conn-1",
  createdAt,
  ...extra,
});

export const event = (sessionId: string, n: number, id = `sse:conn-1::${n}`): NewSessionEvent => ({
  id,
  sessionId,
  createdAt: 1_700_000_000_000 + n,
  connectionId: "conn-1",
  sender: "agent",
  payload: {
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `w${n} ` } } },
  },
});

async function allEvents(store: SessionStore, sessionId: string, limit: number) {
  const items = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await store.listEvents({ sessionId, limit, ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      if (cursors.has(cursor)) fail("a cursor repeated");
      cursors.add(cursor);
    }
  } while (cursor !== undefined);
  return items;
}

export const storeChecks: Record<string, StoreCheck> = {
  "stores, replaces and returns a session record": async (make) => {
    const { store } = await make();
    same(await store.getSession("nope"), undefined, "unknown id");
    await store.updateSession(session("a", 10, { metadata: { title: "t" }, modes: null, sessionInit: { cwd: "/w" } }));
    same((await store.getSession("a"))?.metadata, { title: "t" }, "metadata");
    await store.updateSession(session("a", 10, { endedAt: 20, lastEventId: "42" }));
    const back = await store.getSession("a");
    same([back?.endedAt, back?.lastEventId, back?.metadata], [20, "42", undefined], "replaced record");
  },

  "lists sessions oldest first in pages whose cursors cover each once": async (make) => {
    const { store } = await make();
    const order = [["c", 3], ["a", 1], ["b2", 2], ["b1", 2], ["d", 4]] as const;
    for (const [id, at] of order) await store.updateSession(session(id, at));
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listSessions({ limit: 2, ...(cursor ? { cursor } : {}) });
      if (page.items.length > 2) fail("page larger than its limit");
      ids.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    same(ids, ["a", "b1", "b2", "c", "d"], "session order");
  },

  "numbers each session's events 1, 2, 3, ... on its own": async (make) => {
    const { store } = await make();
    const a1 = await store.insertEvent("s1", event("s1", 1));
    const b1 = await store.insertEvent("s2", event("s2", 1));
    const a2 = await store.insertEvent("s1", event("s1", 2));
    same([a1.event?.eventIndex, b1.event?.eventIndex, a2.event?.eventIndex], [1, 1, 2], "indexes");
    const payloads = (await store.listEvents({ sessionId: "s1" })).items.map((item) => item.payload);
    same(payloads, [event("s1", 1).payload, event("s1", 2).payload], "payloads");
  },

  "writes each event once: a repeated id is reported and takes no index": async (make) => {
    const { store } = await make();
    await store.insertEvent("s", event("s", 1));
    const again = await store.insertEvent("s", { ...event("s", 1), createdAt: 5 });
    const kept = [again.inserted, again.event?.eventIndex, again.event?.createdAt];
    same(kept, [false, 1, event("s", 1).createdAt], "duplicate");
    const next = await store.insertEvent("s", event("s", 2));
    same(next.event?.eventIndex, 2, "index after a duplicate");
    const elsewhere = await store.insertEvent("t", event("t", 1, event("s", 1).id));
    same(elsewhere.inserted, true, "the same id in another session");
    same((await store.listEvents({ sessionId: "s" })).items.length, 2, "stored count");
  },

  "pages events by ascending index with opaque cursors and afterIndex": async (make) => {
    const { store } = await make();
    for (let n = 1; n <= 250; n++) await store.insertEvent("s", event("s", n));
    const items = await allEvents(store, "s", 100);
    same(items.map((item) => item.eventIndex), Array.from({ length: 250 }, (_, i) => i + 1), "indexes once, in order");
    const after = await store.listEvents({ sessionId: "s", afterIndex: 245 });
    const tail = [after.items.map((item) => item.eventIndex), after.nextCursor];
    same(tail, [[246, 247, 248, 249, 250], undefined], "afterIndex");
    same((await store.listEvents({ sessionId: "none" })).items, [], "unknown session");
  },

  "rejects cursors it did not issue for that listing": async (make) => {
    const { store } = await make();
    for (let n = 1; n <= 3; n++) await store.insertEvent("s", event("s", n));
    const page = await store.listEvents({ sessionId: "s", limit: 1 });
    if (!page.nextCursor) fail("expected a next cursor");
    const other = store.listEvents({ sessionId: "other", cursor: page.nextCursor });
    await rejectsWith(other, "invalid-cursor", "other session");
    await rejectsWith(store.listSessions({ cursor: page.nextCursor }), "invalid-cursor", "sessions listing");
    await rejectsWith(store.listEvents({ sessionId: "s", cursor: "%%%" }), "invalid-cursor", "garbage");
  },

  "rejects invalid events and records without storing anything": async (make) => {
    const { store } = await make();
    await rejectsWith(store.insertEvent("s", event("t", 1)), "invalid-record", "session mismatch");
    const bad = { ...event("s", 1), payload: { hello: 1 } } as unknown as NewSessionEvent;
    await rejectsWith(store.insertEvent("s", bad), "invalid-record", "not an envelope");
    await rejectsWith(store.updateSession({ id: "" } as SessionRecord), "invalid-record", "bad record");
    same((await store.listEvents({ sessionId: "s" })).items, [], "nothing stored");
    same((await store.insertEvent("s", event("s", 1))).event?.eventIndex, 1, "first valid event gets index 1");
  },

  "keeps indexes unique and events single under concurrent inserts": async (make) => {
    const { store } = await make();
    const inserts = Array.from({ length: 60 }, (_, i) => store.insertEvent("s", event("s", i % 40)));
    const outcomes = await Promise.all(inserts);
    same(outcomes.filter((outcome) => outcome.inserted).length, 40, "inserted");
    const items = await allEvents(store, "s", 1000);
    same(items.map((item) => item.eventIndex), Array.from({ length: 40 }, (_, i) => i + 1), "indexes");
    same(new Set(items.map((item) => item.id)).size, 40, "distinct ids");
  },

  "hands out copies, never its own objects": async (make) => {
    const { store } = await make();
    await store.updateSession(session("a", 1, { metadata: { k: "v" } }));
    const record = await store.getSession("a");
    (record?.metadata as Record<string, unknown>).k = "changed";
    same((await store.getSession("a"))?.metadata, { k: "v" }, "record");
    const inserted = await store.insertEvent("a", event("a", 1));
    (inserted.event?.payload as Record<string, unknown>).method = "changed";
    same((await store.listEvents({ sessionId: "a" })).items[0]?.payload, event("a", 1).payload, "event");
  },

};

/** For drivers whose data outlives the store object (SQLite, IndexedDB). */
export const durableChecks: Record<string, StoreCheck> = {
  "keeps everything across a reopen and goes on numbering": async (make) => {
    const { store, reopen } = await make();
    if (!reopen) fail("a durable driver's factory must provide reopen()");
    await store.updateSession(session("a", 1));
    for (let n = 1; n <= 5; n++) await store.insertEvent("a", event("a", n));
    const again = await reopen();
    same((await again.getSession("a"))?.agentSessionId, "agent-a", "record after reopen");
    same((await again.insertEvent("a", event("a", 3))).inserted, false, "duplicate after reopen");
    same((await again.insertEvent("a", event("a", 6))).event?.eventIndex, 6, "index after reopen");
    await again.close?.();
  },
};
