// What a fleet relies on when the network or the clock misbehaves (a throwaway PostgreSQL cluster, a
// loopback TCP proxy that makes a connection go silent as a dropped route does): a worker gone
// mid-write leaves no lock that holds a takeover up past its lease; a renewal that never returns
// stops only itself; the store's own pool gives up on a silent connection or an unanswered connect;
// a wall-clock step cannot make two workers both believe they hold a session; one store object
// fences one claimant; a renewal after a release does not bring the lease back; a claimed session
// that ended before it was resumed is given back.
import { firstValueFrom, filter, timeout } from "rxjs";
import { postgresStore, PostgresStoreError, type PostgresStore } from "../../lib/postgres/index.js";
import { SandboxAgentClient, StoreError, type SessionStore } from "../../lib/sandbox/index.js";
import { LeaseKeeper, type SessionLease, type SessionLeases } from "../../lib/sandbox/persistence/index.js";
import { POSTGRES, startPostgresCluster, type PostgresCluster } from "../support/postgres-cluster.js";
import { startSilentTcpProxy, type SilentTcpProxy } from "../support/silent-tcp-proxy.js";
import { describeWith } from "../support/system-component.js";
import { event, session } from "./store-contract.js";

const describePg = describeWith([POSTGRES]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `attempt` every 20 ms until it returns a value, for at most `boundMs` (monotonic: one test moves Date). */
async function until<T>(attempt: () => Promise<T | undefined>, what: string, boundMs: number): Promise<T> {
  const deadline = performance.now() + boundMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`no ${what} within ${boundMs} ms`);
    await sleep(20);
  }
}

/** `promise`, or a rejection naming `what` after `boundMs`. */
function within<T>(promise: Promise<T>, what: string, boundMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${boundMs} ms`)), boundMs);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

describePg("postgresStore leases when connections go silent, clocks step, or clients share a store", () => {
  let cluster: PostgresCluster;
  const opened: PostgresStore[] = [];
  const proxies: SilentTcpProxy[] = [];
  let schemas = 0;
  let schema = "";
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 60_000);
  beforeEach(() => {
    schema = `liveness_${++schemas}`;
  });
  afterEach(async () => {
    // The proxies first: a connection left silent would keep its pool's end() waiting.
    for (const proxy of proxies.splice(0)) await proxy.stop();
    for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  /** A store on this test's schema, straight to the cluster or through `proxy`. */
  const store = (
    extra: { proxy?: SilentTcpProxy; retries?: number; queryTimeoutMs?: number; connectionTimeoutMs?: number } = {},
  ) => {
    const url = new URL(cluster.connectionString);
    if (extra.proxy) url.port = String(extra.proxy.port);
    const { proxy: _proxy, ...options } = extra;
    // Quiet: the retries these faults cause are expected.
    const logger = { warn: () => undefined };
    const made = postgresStore({ connectionString: url.href, schema, poolSize: 4, logger, ...options });
    opened.push(made);
    return made;
  };
  const proxy = async () => {
    const started = await startSilentTcpProxy(cluster.port);
    proxies.push(started);
    return started;
  };
  /** Claims with `b` until it holds `count` sessions (bounded); the leases, in claim order. */
  const takeover = async (b: PostgresStore, owner: string, boundMs: number, count = 1) => {
    const taken: SessionLease[] = [];
    await until(async () => {
      taken.push(...(await b.leases.claim({ owner, ttlMs: 60_000, max: 10 })));
      return taken.length >= count ? true : undefined;
    }, `takeover of ${count}`, boundMs);
    return taken;
  };

  it.each([
    {
      write: "its session record",
      sessions: ["s1"],
      // The write's first statement that names the session (the fence check, or the one call).
      carries: (chunk: Buffer) => chunk.includes("s1"),
      run: (a: PostgresStore) => a.updateSession(session("s1", 1, { metadata: { step: 2 } })),
    },
    {
      write: "a batch of two sessions' events",
      sessions: ["s1", "s2"],
      carries: (chunk: Buffer) => chunk.includes("insert_event"),
      run: (a: PostgresStore) => a.insertEvents([event("s1", 1), event("s2", 1)]).then(() => undefined),
    },
  ])("a worker gone silent while writing $write holds no lock: the sessions are taken over once its lease runs out",
    async ({ sessions, carries, run }) => {
      const b = store();
      for (const [n, id] of sessions.entries()) await b.updateSession(session(id, n + 1));
      const silent = await proxy();
      // Its own query timeout is far off: only the database's side decides here.
      const a = store({ proxy: silent, retries: 0, queryTimeoutMs: 120_000 });
      const claimed = await a.leases.claim({ owner: "a", ttlMs: 1000, max: 10 });
      expect(claimed.map((lease) => lease.sessionId).sort()).toEqual(sessions);
      const gone = silent.silenceAfter(carries, true);
      const writing = run(a).catch(() => undefined);
      await within(gone, "the write's statement", 5000);
      const taken = await takeover(b, "b", 10_000, sessions.length);
      expect(taken.map((lease) => [lease.sessionId, lease.generation]).sort()).toEqual(sessions.map((id) => [id, 2]));
      void writing;
    }, 30_000);

  it("a renewal whose connection goes silent stops only itself: later renewals go out and later leases are kept",
    async () => {
      const direct = store();
      for (const id of ["s1", "s2"]) await direct.updateSession(session(id, id === "s1" ? 1 : 2));
      const silent = await proxy();
      const a = store({ proxy: silent, queryTimeoutMs: 120_000 });
      const renewedIds: string[] = [];
      const counting: SessionLeases = {
        ...a.leases,
        renew: async (owner, held, ttlMs) => {
          const renewed = await a.leases.renew(owner, held, ttlMs);
          renewedIds.push(...renewed.map((lease) => lease.sessionId));
          return renewed;
        },
      };
      const keeper = new LeaseKeeper(counting, "a", 1500);
      const lostS1 = firstValueFrom(keeper.lost$.pipe(filter((lost) => lost.sessionId === "s1"), timeout(8000)));
      const renewalGone = silent.silenceAfter((chunk) => chunk.includes("unnest($3::text[]"), false);
      expect((await keeper.claim(1)).map((lease) => lease.sessionId)).toEqual(["s1"]);
      await within(renewalGone, "the first renewal", 5000);
      expect(await lostS1).toEqual({ sessionId: "s1", generation: 1, reason: "expired" });
      expect((await keeper.claim(1)).map((lease) => lease.sessionId)).toEqual(["s2"]);
      await until(async () => (renewedIds.includes("s2") ? true : undefined), "renewal of s2", 8000);
      expect(keeper.holds("s2")).toBe(true);
      await keeper.releaseAll();
    }, 30_000);

  it("a statement on a connection gone silent fails after queryTimeoutMs and is retried on a new connection",
    async () => {
      await store().updateSession(session("s1", 1));
      const silent = await proxy();
      const a = store({ proxy: silent, retries: 2, queryTimeoutMs: 1000 });
      await a.ready();
      const gone = silent.silenceAfter((chunk) => chunk.includes("SELECT record"), true);
      const read = a.getSession("s1");
      await within(gone, "the read", 5000);
      expect(await within(read, "the read's answer", 10_000)).toMatchObject({ id: "s1" });
    }, 20_000);

  it("a connection attempt that gets no answer fails after connectionTimeoutMs", async () => {
    const silent = await proxy();
    silent.silenceNew();
    const a = store({ proxy: silent, retries: 0, connectionTimeoutMs: 500 });
    const error = await within(a.getSession("s1").then(() => undefined, (e: unknown) => e), "the connect", 10_000);
    expect(error).toBeInstanceOf(PostgresStoreError);
  }, 20_000);

  it("a wall clock stepped back during a renewal does not let a worker believe it holds a session taken over",
    async () => {
      const [a, b] = [store(), store()];
      await a.updateSession(session("s1", 1));
      const realNow = Date.now;
      let skew = 0;
      Date.now = () => realNow.call(Date) + skew;
      try {
        let stepped = false;
        let unreachable = false;
        // The first renewal is answered while the clock steps back 5 s; every later one fails.
        const stepping: SessionLeases = {
          ...a.leases,
          renew: async (owner: string, held: SessionLease[], ttlMs: number) => {
            if (unreachable) throw new Error("store unreachable");
            const answer = a.leases.renew(owner, held, ttlMs);
            if (!stepped) {
              stepped = true;
              skew -= 5000;
              unreachable = true;
            }
            return answer;
          },
        };
        const keeper = new LeaseKeeper(stepping, "a", 3000);
        expect(await keeper.claim(1)).toHaveLength(1);
        await until(async () => (stepped ? true : undefined), "the stepped renewal", 5000);
        const taken = await takeover(b, "b", 15_000);
        expect(taken).toMatchObject([{ sessionId: "s1", generation: 2 }]);
        expect(keeper.holds("s1")).toBe(false);
        await keeper.releaseAll();
      } finally {
        Date.now = realNow;
      }
    }, 30_000);

  it("one store object fences one claimant: a second owner's claim is refused, the first's goes on", async () => {
    const shared = store();
    await shared.updateSession(session("s1", 1));
    await shared.updateSession(session("s2", 2));
    expect(await shared.leases.claim({ owner: "client-a", ttlMs: 60_000, max: 1 })).toHaveLength(1);
    const refused = await shared.leases.claim({ owner: "client-b", ttlMs: 60_000, max: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as StoreError).kind).toBe("lease-claimant");
    const again = await shared.leases.claim({ owner: "client-a", ttlMs: 60_000, max: 1 });
    expect(again).toMatchObject([{ sessionId: "s2" }]);
    // A store of its own is what the second client needs.
    const own = store();
    await own.ready();
    expect(await own.leases.claim({ owner: "client-b", ttlMs: 60_000, max: 1 })).toEqual([]);
  });

  it("a claimed session that ended between the claim and the resume is given back, not renewed", async () => {
    const [a, producer] = [store(), store()];
    await producer.updateSession(session("s1", 1));
    // Another process ends the session right after this worker's claim, before its resume reads it.
    const endsMeanwhile: SessionStore = {
      ...a,
      leases: {
        ...a.leases,
        claim: async (request) => {
          const claimed = await a.leases.claim(request);
          await producer.updateSession(session("s1", 1, { endedAt: 5 }));
          return claimed;
        },
      },
    };
    const client = new SandboxAgentClient({
      baseUrl: "http://127.0.0.1:9",
      agent: "mock",
      store: endsMeanwhile,
      autoConnect: false,
    });
    try {
      expect(await client.restoreSessions({ claim: { owner: "a", ttlMs: 60_000 } })).toEqual([]);
      const { rows } = await cluster.pool(1).query<{ released: boolean }>(
        `SELECT expires_at = '-infinity'::timestamptz AS released FROM ${schema}.leases WHERE session_id = 's1'`,
      );
      expect(rows).toEqual([{ released: true }]);
    } finally {
      await client.disconnect();
    }
  });

  it("a renewal that arrives after the lease was released does not bring it back", async () => {
    const [a, b] = [store(), store()];
    await a.updateSession(session("s1", 1));
    const [held] = (await a.leases.claim({ owner: "a", ttlMs: 60_000, max: 1 })) as [SessionLease];
    await a.leases.release(held);
    expect(await a.leases.renew("a", [held], 60_000)).toEqual([]);
    const taken = await b.leases.claim({ owner: "b", ttlMs: 60_000, max: 1 });
    expect(taken).toMatchObject([{ sessionId: "s1", generation: 2 }]);
  });
});
