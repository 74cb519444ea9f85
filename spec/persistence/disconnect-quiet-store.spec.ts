// disconnect() of a worker that claimed sessions writes its last events and gives the leases back,
// but a store that stopped answering (a database gone quiet) holds it no longer than the leases
// would last by themselves: past that, any worker may claim the sessions and nothing is left to give
// back. On the real 0.4.2 server with the scripted agent; the store is a memoryStore whose writes
// and lease releases stop answering when told to (stores are the user's to implement).
import { memoryStore, SandboxAgentClient, type SessionStore } from "../../lib/sandbox/index.js";
import { localLeases, type SessionLeases } from "../../lib/sandbox/persistence/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A memoryStore with leases of its own whose writes and releases never answer once `quiet` is set. */
function quietingStore(): SessionStore & { quiet: boolean } {
  const inner = memoryStore();
  const local = localLeases(inner);
  const store = Object.create(inner) as SessionStore & { quiet: boolean };
  store.quiet = false;
  const leases: SessionLeases = { ...local, release: (lease) => (store.quiet ? never() : local.release(lease)) };
  Object.defineProperty(store, "leases", { value: leases });
  store.updateSession = (session) => (store.quiet ? never() : inner.updateSession(session));
  store.insertEvent = (sessionId, event) => (store.quiet ? never() : inner.insertEvent(sessionId, event));
  return store;
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
});
