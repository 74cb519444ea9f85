// endSession on a store that fails its write: the call rejects with a StoreError naming it, the
// session stays open in the store, and a claimed session keeps its lease (another worker cannot take
// it and run its task again), on the real 0.4.2 server with the scripted agent.
import { memoryStore, SandboxAgentClient, StoreError, type SessionStore } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";

/** A memoryStore whose session writes fail while `failing` is set. */
function flakyStore(): SessionStore & { failing: boolean } {
  const inner = memoryStore();
  const store = Object.create(inner) as SessionStore & { failing: boolean };
  store.failing = false;
  store.updateSession = (session) =>
    store.failing ? Promise.reject(new Error("disk full (scripted)")) : inner.updateSession(session);
  return store;
}

describe("endSession when the store cannot write", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];
  beforeAll(async () => {
    server = await startSandboxAgent();
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.disconnect().catch(() => undefined);
    await server?.stop();
  });
  const client = (store: SessionStore) => {
    const made = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    clients.push(made);
    return made;
  };

  it("rejects with a StoreError naming endSession, and the session stays open and held", async () => {
    const store = flakyStore();
    const producer = client(store);
    const { sessionId } = await producer.newSession();
    await producer.disconnect();

    const worker = client(store);
    const [claimed] = await worker.restoreSessions({ claim: { ttlMs: 5000 } });
    expect(claimed?.localId).toBe(sessionId);
    store.failing = true;
    const error = await worker.endSession(sessionId).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/^endSession: the store failed on session \S+: disk full \(scripted\)$/);
    expect((await store.getSession(sessionId))?.endedAt).toBeUndefined();
    // Still this worker's: another worker gets nothing to claim.
    const other = client(store);
    expect(await other.restoreSessions({ claim: { ttlMs: 5000 } })).toEqual([]);

    // Once the store writes again, the same call finishes the session.
    store.failing = false;
    await worker.endSession(sessionId);
    expect((await store.getSession(sessionId))?.endedAt).toEqual(expect.any(Number));
  }, 60_000);
});
