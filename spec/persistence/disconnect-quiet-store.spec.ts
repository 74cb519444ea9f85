// disconnect() of a worker that claimed sessions writes its last events and gives the leases back,
// but a store that stopped answering (a database gone quiet) holds it no longer than the leases
// would last by themselves: past that, any worker may claim the sessions and nothing is left to give
// back. On the real 0.4.2 server with the scripted agent; the store is a memoryStore whose writes
// and lease releases stop answering when told to (stores are the user's to implement).
import { memoryStore, SandboxAgentClient, type SessionStore } from "../../lib/sandbox/index.js";
import { localLeases, type SessionLeases } from "../../lib/sandbox/persistence/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { Gate } from "./gated-store.js";

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/**
 * A memoryStore with leases of its own: once `quiet` is set its writes, releases and renewals never
 * answer; while `writes` is closed its event writes wait (the rest answers). `renewals` counts the
 * renewals answered.
 */
function quietingStore(): SessionStore & { quiet: boolean; writes: Gate; renewals: number; inner: SessionStore } {
  const inner = memoryStore();
  const local = localLeases(inner);
  const store = Object.create(inner) as SessionStore & { quiet: boolean; writes: Gate; renewals: number; inner: SessionStore };
  Object.assign(store, { quiet: false, writes: new Gate(), renewals: 0, inner });
  const leases: SessionLeases = {
    ...local,
    release: (lease) => (store.quiet ? never() : local.release(lease)),
    renew: (owner, held, ttlMs) => {
      if (store.quiet) return never();
      store.renewals++;
      return local.renew(owner, held, ttlMs);
    },
  };
  Object.defineProperty(store, "leases", { value: leases });
  store.updateSession = (session) => (store.quiet ? never() : inner.updateSession(session));
  store.insertEvent = async (sessionId, event) => {
    if (store.quiet) return never();
    await store.writes.pass();
    return inner.insertEvent(sessionId, event);
  };
  return store;
}

/** Waits (bounded) until `fact` holds, looking every 20 ms. */
async function until(fact: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fact()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("disconnect() of a worker whose store went quiet", () => {
  let server: SandboxAgentServer;
  beforeAll(async () => {
    server = await startSandboxAgent();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("resolves once the claimed leases would have expired by themselves, not never", async () => {
    const store = quietingStore();
    const producer = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    const { sessionId } = await producer.newSession();
    await producer.disconnect();

    const worker = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    const [claimed] = await worker.restoreSessions({ claim: { ttlMs: 1500 } });
    expect(claimed?.localId).toBe(sessionId);
    store.quiet = true;
    const outcome = await Promise.race([
      worker.disconnect().then(() => "resolved"),
      new Promise<string>((resolve) => setTimeout(() => resolve("still waiting after 15 s"), 15_000).unref()),
    ]);
    expect(outcome).toBe("resolved");
    // Another worker takes the session over once the store lets the quiet worker's lease expire
    // (a moment after the worker gave it up locally: its deadline keeps a margin before the store's).
    store.quiet = false;
    const other = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    let taken: string | undefined;
    for (let attempt = 0; attempt < 50 && taken === undefined; attempt++) {
      [taken] = (await other.restoreSessions({ claim: { ttlMs: 5000 } })).map((session) => session.localId);
      if (taken === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(taken).toBe(sessionId);
    await other.disconnect();
  }, 30_000);

  it("waits for slow writes while the store still renews the leases, then releases them", async () => {
    const store = quietingStore();
    const producer = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    const { sessionId } = await producer.newSession();
    await producer.disconnect();

    const worker = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    await worker.restoreSessions({ claim: { ttlMs: 1500 } });
    store.writes.close();
    await worker.prompt(sessionId, "hello");
    let resolved = false;
    const done = worker.disconnect().then(() => (resolved = true));
    // Past the deadline the leases had when disconnect() began: renewals every 500 ms, 5 of them.
    const renewed = store.renewals;
    await until(() => store.renewals >= renewed + 5, "five more renewals");
    expect(resolved).toBe(false);
    store.writes.open();
    await done;
    const stored = await store.inner.listEvents({ sessionId, limit: 1000 });
    expect(stored.items.some((event) => (event.payload as { method?: string }).method === "session/prompt")).toBe(true);
    // Released, not left to expire: another worker claims the session at once.
    const other = await localLeases(store.inner).claim({ owner: "other", ttlMs: 5000, max: 10 });
    expect(other.map((lease) => lease.sessionId)).toEqual([sessionId]);
  }, 30_000);

  it("resolves within one ttl when the leases already ran out and the store stays quiet", async () => {
    const store = quietingStore();
    const producer = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    const { sessionId } = await producer.newSession();
    await producer.disconnect();

    const worker = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    const lost: string[] = [];
    worker.leaseLost$.subscribe(({ sessionId: id, reason }) => lost.push(`${id}:${reason}`));
    await worker.restoreSessions({ claim: { ttlMs: 1000 } });
    store.quiet = true;
    await worker.prompt(sessionId, "hello").catch(() => undefined);
    await until(() => lost.length > 0, "the lease lost");
    expect(lost).toEqual([`${sessionId}:expired`]);
    const outcome = await Promise.race([
      worker.disconnect().then(() => "resolved"),
      new Promise<string>((resolve) => setTimeout(() => resolve("still waiting after 15 s"), 15_000).unref()),
    ]);
    expect(outcome).toBe("resolved");
  }, 30_000);
});
