// Leases on postgresStore (a throwaway PostgreSQL cluster): claims split the open sessions among
// workers, never one session twice; an expired lease goes to another worker with the next
// generation and the old holder's writes are refused (fencing); a worker whose renewals do not get
// through says so on lost$ before another worker can claim; and through the client on the real
// 0.4.2 server: restoreSessions({ claim }) splits sessions, a lost lease stops the client driving it.
// The in-process memoryStore gets local claims.
import { firstValueFrom, timeout } from "rxjs";
import { postgresStore, type PostgresStore } from "../../lib/postgres/index.js";
import { LeaseLostError, memoryStore, SandboxAgentClient, type SessionStore } from "../../lib/sandbox/index.js";
import { LeaseKeeper, type LeaseLost, type SessionLeases } from "../../lib/sandbox/persistence/index.js";
import { POSTGRES, startPostgresCluster, type PostgresCluster } from "../support/postgres-cluster.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { describeWith } from "../support/system-component.js";
import { event, session } from "./store-contract.js";

const describePg = describeWith([POSTGRES]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `attempt` every 10 ms until it returns a value (bounded). */
async function until<T>(attempt: () => Promise<T | undefined>, what: string, boundMs = 10_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${boundMs} ms`);
    await sleep(10);
  }
}

describePg("postgresStore leases", () => {
  let cluster: PostgresCluster;
  const opened: PostgresStore[] = [];
  let schemas = 0;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 60_000);
  afterAll(async () => {
    for (const store of opened) await store.close().catch(() => undefined);
    await cluster?.stop();
  });
  /** `count` stores (workers) on one new schema. */
  const workers = (count: number) => {
    const schema = `leases_${++schemas}`;
    return Array.from({ length: count }, () => {
      const store = postgresStore({ connectionString: cluster.connectionString, schema, poolSize: 4 });
      opened.push(store);
      return store;
    });
  };

  it("splits the open sessions among workers claiming at once, none twice, ended ones never", async () => {
    const stores = workers(5);
    const late = stores.pop() as PostgresStore;
    const first = stores[0] as PostgresStore;
    for (let n = 1; n <= 12; n++) await first.updateSession(session(`s${n}`, n));
    await first.updateSession(session("done", 0, { endedAt: 5 }));
    const claims = await Promise.all(
      stores.map((store, i) => store.leases.claim({ owner: `w${i}`, ttlMs: 30_000, max: 3 })),
    );
    expect(claims.map((claimed) => claimed.length)).toEqual([3, 3, 3, 3]);
    const ids = claims.flat().map((lease) => lease.sessionId);
    expect(new Set(ids).size).toBe(12);
    expect(ids).not.toContain("done");
    expect(claims.flat().every((lease) => lease.generation === 1)).toBe(true);
    expect(await late.leases.claim({ owner: "late", ttlMs: 30_000, max: 10 })).toEqual([]);
  });

  it("gives an expired lease to another worker with the next generation and refuses the old holder's writes", async () => {
    const [a, b] = workers(2) as [PostgresStore, PostgresStore];
    await a.updateSession(session("s", 1));
    const [held] = await a.leases.claim({ owner: "a", ttlMs: 300, max: 1 });
    expect(held?.generation).toBe(1);
    expect((await a.insertEvent("s", event("s", 1))).inserted).toBe(true);
    expect(await b.leases.claim({ owner: "b", ttlMs: 30_000, max: 1 })).toEqual([]);
    const [taken] = await until(async () => {
      const claimed = await b.leases.claim({ owner: "b", ttlMs: 30_000, max: 1 });
      return claimed.length > 0 ? claimed : undefined;
    }, "takeover");
    expect(taken).toMatchObject({ sessionId: "s", owner: "b", generation: 2 });
    await expect(a.insertEvent("s", event("s", 2))).rejects.toBeInstanceOf(LeaseLostError);
    await expect(a.updateSession(session("s", 1, { endedAt: 9 }))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await a.leases.renew("a", [held!], 30_000)).toEqual([]);
    expect((await b.insertEvent("s", event("s", 2))).event?.eventIndex).toBe(2);
    const owners = await cluster.pool().query<{ generation: string; owner: string }>(
      `SELECT generation, owner FROM leases_${schemas}.lease_log WHERE session_id = 's' ORDER BY generation`,
    );
    expect(owners.rows).toEqual([{ generation: "1", owner: "a" }, { generation: "2", owner: "b" }]);
  });

  it("lets another worker claim a released lease at once, with a higher generation", async () => {
    const [a, b] = workers(2) as [PostgresStore, PostgresStore];
    await a.updateSession(session("s", 1));
    const [held] = await a.leases.claim({ owner: "a", ttlMs: 60_000, max: 1 });
    await a.leases.release(held!);
    expect(await b.leases.claim({ owner: "b", ttlMs: 60_000, max: 1 })).toMatchObject([{ sessionId: "s", generation: 2 }]);
  });

  it("a worker whose renewals do not get through says so on lost$ before another worker can claim", async () => {
    const [a, b] = workers(2) as [PostgresStore, PostgresStore];
    await a.updateSession(session("s", 1));
    // Worker a's store becomes unreachable after its claim: renewals never answer (a partition).
    const partitioned: SessionLeases = { ...a.leases, renew: () => new Promise(() => undefined) };
    const keeper = new LeaseKeeper(partitioned, "a", 600);
    const lost = firstValueFrom(keeper.lost$.pipe(timeout(5000)));
    let lostAt = 0;
    void lost.then(() => (lostAt = Date.now()));
    const claimedAt = Date.now();
    expect(await keeper.claim(1)).toHaveLength(1);
    const takenAt = await until(async () => {
      const claimed = await b.leases.claim({ owner: "b", ttlMs: 60_000, max: 1 });
      return claimed.length > 0 ? Date.now() : undefined;
    }, "takeover");
    expect(await lost).toEqual({ sessionId: "s", generation: 1, reason: "expired" });
    expect(lostAt).toBeGreaterThan(0);
    expect(lostAt).toBeLessThan(takenAt);
    expect(takenAt - claimedAt).toBeGreaterThanOrEqual(600);
    expect(() => keeper.check("s")).toThrow(LeaseLostError);
  });

  it("a worker whose lease the store gave to another says so at the next renewal", async () => {
    const [a] = workers(1) as [PostgresStore];
    await a.updateSession(session("s", 1));
    const keeper = new LeaseKeeper(a.leases, "a", 900);
    await keeper.claim();
    await cluster.pool().query(`UPDATE leases_${schemas}.leases SET generation = generation + 1, owner = 'other'`);
    expect(await firstValueFrom(keeper.lost$.pipe(timeout(5000)))).toEqual({ sessionId: "s", generation: 1, reason: "taken" });
  });

  describe("through the client, on the real server", () => {
    let server: SandboxAgentServer;
    const clients: SandboxAgentClient[] = [];
    beforeAll(async () => {
      server = await startSandboxAgent();
    }, 60_000);
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.disconnect().catch(() => undefined);
    });
    afterAll(async () => {
      await server?.stop();
    });
    const client = (store: SessionStore) => {
      const made = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
      clients.push(made);
      return made;
    };
    /** A producer opens `count` sessions (no turn) and leaves. */
    const produce = async (store: SessionStore, count: number) => {
      const producer = client(store);
      await producer.ready;
      const ids: string[] = [];
      for (let n = 0; n < count; n++) ids.push((await producer.newSession({ metadata: { task: n } })).sessionId);
      await producer.disconnect();
      return ids;
    };

    it("splits stored open sessions between two workers, each driving its own", async () => {
      const [p, x, y] = workers(3) as [PostgresStore, PostgresStore, PostgresStore];
      const ids = await produce(p, 4);
      const one = client(x);
      const two = client(y);
      await Promise.all([one.ready, two.ready]);
      const [mine, theirs] = await Promise.all([
        one.restoreSessions({ claim: { max: 2, ttlMs: 5000 } }),
        two.restoreSessions({ claim: { max: 2, ttlMs: 5000 } }),
      ]);
      const local = (list: typeof mine) => list.map((s) => s.localId).sort();
      expect([...local(mine), ...local(theirs)].sort()).toEqual([...ids].sort());
      expect(local(mine).filter((id) => local(theirs).includes(id))).toEqual([]);
      const outcome = await one.prompt(mine[0]!.localId, "chunks 3");
      expect(outcome.stopReason).toBe("end_turn");
      await one.disconnect(); // releases its leases
      const three = client(p);
      await three.ready;
      expect(local(await three.restoreSessions({ claim: { max: 10 } }))).toEqual(local(mine));
    }, 60_000);

    it("a client whose lease was taken stops driving the session: leaseLost$, then prompts refused", async () => {
      const [p, x] = workers(2) as [PostgresStore, PostgresStore];
      const [id] = await produce(p, 1);
      const worker = client(x);
      await worker.ready;
      const lostEvents: LeaseLost[] = [];
      worker.leaseLost$.subscribe((lost) => lostEvents.push(lost));
      const [resumed] = await worker.restoreSessions({ claim: { ttlMs: 900 } });
      expect(resumed?.localId).toBe(id);
      const lost = firstValueFrom(worker.leaseLost$.pipe(timeout(5000)));
      await cluster.pool().query(`UPDATE leases_${schemas}.leases SET generation = generation + 1, owner = 'other'`);
      expect(await lost).toMatchObject({ sessionId: id, reason: "taken" });
      await expect(worker.prompt(id!, "chunks 1")).rejects.toBeInstanceOf(LeaseLostError);
      expect(lostEvents).toHaveLength(1);
    }, 60_000);

    it("stores neither the client's token nor the database password, in any table", async () => {
      const token = `tok-${Math.random().toString(36).slice(2)}`;
      const guarded = await startSandboxAgent({ token });
      try {
        const [store] = workers(1) as [PostgresStore];
        const worker = new SandboxAgentClient({ baseUrl: guarded.baseUrl, agent: "mock", store, token });
        clients.push(worker);
        await worker.ready;
        const { sessionId } = await worker.newSession({ metadata: { title: "secrets" } });
        await worker.prompt(sessionId, "chunks 3");
        await worker.disconnect();
        const dump = await cluster.pool().query<{ row: string }>(
          `SELECT row_to_json(t)::text AS row FROM (
             SELECT id AS a, record::text AS b FROM leases_${schemas}.sessions
             UNION ALL SELECT id, payload::text || connection_id FROM leases_${schemas}.events
             UNION ALL SELECT session_id, owner FROM leases_${schemas}.leases) t`,
        );
        expect(dump.rows.length).toBeGreaterThan(3);
        const text = dump.rows.map((row) => row.row).join("\n");
        expect(text).toContain("chunks 3");
        expect(text).not.toContain(token);
        expect(text).not.toContain(cluster.password);
      } finally {
        await guarded.stop();
      }
    }, 60_000);

    it("endSession finishes a claimed session: stored as ended, its lease released, no worker offered it again", async () => {
      const [p, x, y] = workers(3) as [PostgresStore, PostgresStore, PostgresStore];
      const [done, open] = await produce(p, 2);
      const worker = client(x);
      await worker.ready;
      const claimed = await worker.restoreSessions({ claim: { max: 2, ttlMs: 5000 } });
      expect(claimed.map((s) => s.localId).sort()).toEqual([done, open].sort());
      await worker.prompt(done!, "chunks 2");
      await worker.endSession(done!);
      expect((await p.getSession(done!))?.endedAt).toEqual(expect.any(Number));
      expect((await p.getSession(open!))?.endedAt).toBeUndefined();
      // Released at once: the other worker would get it now if it were still open; it gets neither,
      // since the open one is still held by the first worker.
      const other = client(y);
      await other.ready;
      expect(await other.restoreSessions({ claim: { max: 10 } })).toEqual([]);
      await worker.releaseSession(open!);
      expect((await other.restoreSessions({ claim: { max: 10 } })).map((s) => s.localId)).toEqual([open]);
    }, 60_000);

    it("endSession refuses a session whose lease is gone, and leaves its record open", async () => {
      const [p, x] = workers(2) as [PostgresStore, PostgresStore];
      const [id] = await produce(p, 1);
      const worker = client(x);
      await worker.ready;
      await worker.restoreSessions({ claim: { ttlMs: 900 } });
      const lost = firstValueFrom(worker.leaseLost$.pipe(timeout(5000)));
      await cluster.pool().query(`UPDATE leases_${schemas}.leases SET generation = generation + 1, owner = 'other'`);
      await lost;
      await expect(worker.endSession(id!)).rejects.toBeInstanceOf(LeaseLostError);
      expect((await p.getSession(id!))?.endedAt).toBeUndefined();
    }, 60_000);

    it("endSession without claims: restoreSessions no longer resumes the session", async () => {
      const store = memoryStore();
      const [done, open] = await produce(store, 2);
      const one = client(store);
      await one.ready;
      await one.endSession(done!);
      expect((await store.getSession(done!))?.endedAt).toEqual(expect.any(Number));
      expect((await one.restoreSessions()).map((s) => s.localId)).toEqual([open]);
    }, 60_000);

    it("in-process stores: two clients of one process split a memoryStore's sessions (local claims)", async () => {
      const store = memoryStore();
      const ids = await produce(store, 3);
      const one = client(store);
      const two = client(store);
      await Promise.all([one.ready, two.ready]);
      const first = await one.restoreSessions({ claim: { max: 2 } });
      const second = await two.restoreSessions({ claim: true });
      expect(first).toHaveLength(2);
      expect(second).toHaveLength(1);
      expect([...first, ...second].map((s) => s.localId).sort()).toEqual([...ids].sort());
    }, 60_000);
  });
});
