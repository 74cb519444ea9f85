// The shared store behaviour (store-contract.ts) against the Node drivers, plus what is specific to
// each: the memory store's bounds and eviction, SQLite's file on disk shared by two handles.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { memoryStore, type SessionStore } from "../../lib/sandbox/persistence/index.js";
import { sqliteStore } from "../../lib/sqlite/index.js";
import { durableChecks, event, session, storeChecks, type StoreFactory } from "./store-contract.js";

const dir = mkdtempSync(join(tmpdir(), "sarx-stores-"));
const opened: SessionStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close?.();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
const sqliteFactory: StoreFactory = async () => {
  const file = join(dir, `store-${++counter}.db`);
  const store = sqliteStore({ database: file });
  opened.push(store);
  return {
    store,
    reopen: async () => {
      await store.close?.();
      const again = sqliteStore({ database: file });
      opened.push(again);
      return again;
    },
  };
};

const drivers: Array<[string, StoreFactory, boolean]> = [
  ["memoryStore", async () => ({ store: memoryStore() }), false],
  ["sqliteStore", sqliteFactory, true],
];

for (const [name, make, durable] of drivers) {
  describe(`${name}: the SessionStore contract`, () => {
    for (const [title, check] of Object.entries(storeChecks)) it(title, () => check(make));
    if (durable) for (const [title, check] of Object.entries(durableChecks)) it(title, () => check(make));
  });
}

describe("memoryStore bounds", () => {
  it("evicts the session created longest ago, with its events, past maxSessions", async () => {
    const store = memoryStore({ maxSessions: 2 });
    await store.updateSession(session("new", 30));
    await store.updateSession(session("old", 10));
    await store.insertEvent("old", event("old", 1));
    await store.updateSession(session("mid", 20));
    expect((await store.listSessions()).items.map((item) => item.id)).toEqual(["mid", "new"]);
    expect((await store.listEvents({ sessionId: "old" })).items).toEqual([]);
  });

  it("drops a session's oldest events past maxEventsPerSession and still refuses their ids", async () => {
    const store = memoryStore({ maxEventsPerSession: 3 });
    for (let n = 1; n <= 5; n++) await store.insertEvent("s", event("s", n));
    expect((await store.listEvents({ sessionId: "s" })).items.map((item) => item.eventIndex)).toEqual([3, 4, 5]);
    expect(await store.insertEvent("s", event("s", 1))).toEqual({ inserted: false });
    expect((await store.insertEvent("s", event("s", 6))).event?.eventIndex).toBe(6);
  });
});

describe("sqliteStore on a shared database", () => {
  it("two handles on one file never store an event twice nor reuse an index", async () => {
    const file = join(dir, "shared.db");
    const one = sqliteStore({ database: file });
    const two = sqliteStore({ database: new Database(file) });
    opened.push(one, two);
    for (let n = 1; n <= 20; n++) {
      await one.insertEvent("s", event("s", n));
      await two.insertEvent("s", event("s", n));
      await two.insertEvent("s", event("s", 100 + n));
    }
    const { items } = await one.listEvents({ sessionId: "s", limit: 1000 });
    expect(items.map((item) => item.eventIndex)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(items.map((item) => item.id)).size).toBe(40);
  });

  it("rejects a table prefix that is not a plain identifier", () => {
    expect(() => sqliteStore({ database: ":memory:", tablePrefix: "x; DROP TABLE y" })).toThrow(TypeError);
  });
});
