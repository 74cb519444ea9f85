// postgresStore against a real PostgreSQL server (a throwaway cluster, spec/support/postgres-cluster.ts):
// the shared SessionStore contract (store-contract.ts), then what is specific to it: migrations under
// concurrent start, batches, two stores writing one session, and secrets kept out of errors.
import type pg from "pg";
import { postgresStore, SCHEMA_VERSION, type PostgresStore } from "../../lib/postgres/index.js";
import type { NewSessionEvent } from "../../lib/sandbox/persistence/index.js";
import { POSTGRES, startPostgresCluster, type PostgresCluster } from "../support/postgres-cluster.js";
import { describeWith } from "../support/system-component.js";
import { durableChecks, event, session, storeChecks, type StoreFactory } from "./store-contract.js";

const describePg = describeWith([POSTGRES]);

describePg("postgresStore", () => {
  let cluster: PostgresCluster;
  let pool: pg.Pool;
  const opened: PostgresStore[] = [];
  let counter = 0;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    pool = cluster.pool(20);
  }, 60_000);
  afterAll(async () => {
    for (const store of opened) await store.close().catch(() => undefined);
    await cluster?.stop();
  });

  const open = (schema: string) => {
    const store = postgresStore({ connectionString: cluster.connectionString, schema });
    opened.push(store);
    return store;
  };
  const factory: StoreFactory = async () => {
    const schema = `contract_${++counter}`;
    const store = open(schema);
    return {
      store,
      reopen: async () => {
        await store.close();
        return open(schema);
      },
    };
  };

  describe("the SessionStore contract", () => {
    for (const [title, check] of Object.entries(storeChecks)) it(title, () => check(factory));
    for (const [title, check] of Object.entries(durableChecks)) it(title, () => check(factory));
  });

  it("migrates a new schema once when eight stores start at the same moment", async () => {
    const stores = Array.from({ length: 8 }, () => postgresStore({ pool, schema: "racing" }));
    await Promise.all(stores.map((store) => store.ready()));
    const { rows } = await pool.query<{ value: number }>(`SELECT value FROM racing.meta WHERE key = 'version'`);
    expect(rows).toEqual([{ value: SCHEMA_VERSION }]);
    await Promise.all(stores.map((store, i) => store.insertEvent("s", event("s", i))));
    expect((await stores[0]?.listEvents({ sessionId: "s" }))?.items.map((item) => item.eventIndex))
      .toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("refuses a schema written by a newer version of the store", async () => {
    const store = postgresStore({ pool, schema: "future" });
    await store.ready();
    await pool.query(`UPDATE future.meta SET value = $1 WHERE key = 'version'`, [SCHEMA_VERSION + 1]);
    const later = postgresStore({ pool, schema: "future" });
    await expect(later.getSession("a")).rejects.toThrow(/version/);
  });

  it("writes a batch of several sessions in one call: each event once, each session numbered on its own", async () => {
    const store = open("batch");
    await store.insertEvent("a", event("a", 1));
    const batch: NewSessionEvent[] = [event("b", 1), event("a", 1), event("a", 2), event("b", 2), event("a", 2), event("a", 3)];
    const outcomes = await store.insertEvents(batch);
    expect(outcomes.map((outcome) => [outcome.inserted, outcome.event?.sessionId, outcome.event?.eventIndex])).toEqual([
      [true, "b", 1], [false, "a", 1], [true, "a", 2], [true, "b", 2], [false, "a", 2], [true, "a", 3],
    ]);
    expect((await store.listEvents({ sessionId: "a" })).items.map((item) => item.id))
      .toEqual([event("a", 1).id, event("a", 2).id, event("a", 3).id]);
  });

  it("two stores writing the same stream into one session store each event once, numbered without gaps", async () => {
    const one = open("shared");
    const two = open("shared");
    const events = Array.from({ length: 300 }, (_, i) => event("s", i + 1));
    const chunks = (list: NewSessionEvent[], size: number) =>
      Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
    await Promise.all([
      (async () => { for (const chunk of chunks(events, 7)) await one.insertEvents(chunk); })(),
      (async () => { for (const chunk of chunks(events, 11)) await two.insertEvents(chunk); })(),
    ]);
    const stored = [];
    let cursor: string | undefined;
    do {
      const page = await one.listEvents({ sessionId: "s", limit: 1000, ...(cursor ? { cursor } : {}) });
      stored.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(stored.map((item) => item.eventIndex)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(new Set(stored.map((item) => item.id)).size).toBe(300);
  });

  it("keeps its tables in the schema it is given", async () => {
    const store = open("tenant_a");
    await store.updateSession(session("x", 1));
    const { rows } = await pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'tenant_a' ORDER BY table_name`,
    );
    expect(rows.map((row) => row.table_name)).toEqual(["events", "heads", "lease_log", "leases", "meta", "sessions"]);
    expect(await open("tenant_b").getSession("x")).toBeUndefined();
  });

  it("never puts the connection string or its password in an error", async () => {
    const wrong = cluster.connectionString.replace(cluster.password, "not-the-password-123");
    const store = postgresStore({ connectionString: wrong, schema: "x", retries: 0 });
    const error = await store.getSession("a").then(() => undefined, (e: unknown) => e as Error);
    await store.close();
    expect(error?.name).toBe("PostgresStoreError");
    expect(error?.message).toMatch(/password authentication failed/);
    expect(`${error?.message} ${error?.stack} ${JSON.stringify(error)}`).not.toContain("not-the-password-123");
    expect((error as Error & { cause?: unknown }).cause).toBeUndefined();

    const closedPort = cluster.connectionString.replace(`:${cluster.port}/`, ":1/");
    const unreachable = postgresStore({ connectionString: closedPort, schema: "x", retries: 1 });
    const refused = await unreachable.getSession("a").then(() => undefined, (e: unknown) => e as Error);
    await unreachable.close();
    expect(refused?.name).toBe("PostgresStoreError");
    expect(`${refused?.message} ${refused?.stack}`).not.toContain(cluster.password);
  });

  it("rejects a schema name that is not a plain identifier", () => {
    expect(() => postgresStore({ pool, schema: 'x"; DROP TABLE y; --' })).toThrow(TypeError);
  });
});
