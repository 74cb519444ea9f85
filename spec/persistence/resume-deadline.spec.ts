// resumeSession and restoreSessions keep the one deadline a call has: its `timeoutMs` bounds the
// whole call (store reads, connect attempts, the session calls), and once it passes the call fails
// with its CallTimeoutError. Stand-ins: a store whose reads never answer (a database gone quiet:
// stores are the user's to implement, and a PostgreSQL that stops answering looks like this to the
// client) and a loopback HTTP server that accepts requests and never answers them.
import { createServer, type Server } from "node:http";
import { CallTimeoutError, memoryStore, SandboxAgentClient, type SessionStore } from "../../lib/sandbox/index.js";
import { localLeases } from "../../lib/sandbox/persistence/index.js";

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

/** A store whose reads (and claims) never answer. */
function quietStore(): SessionStore {
  const inner = memoryStore();
  const leases = inner.leases && { ...inner.leases, claim: () => never<never>() };
  return {
    ...inner,
    getSession: () => never(),
    listSessions: () => never(),
    listEvents: () => never(),
    ...(leases ? { leases } : {}),
  };
}

/** A server that takes every request and never answers it. */
async function silentServer(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server: Server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("resumeSession and restoreSessions keep one deadline", () => {
  const clients: SandboxAgentClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.disconnect()));
  });
  const client = (options: { baseUrl: string; store: SessionStore }) => {
    const made = new SandboxAgentClient({ ...options, agent: "mock", autoConnect: false, serverApi: "v1" });
    clients.push(made);
    return made;
  };

  it("end at their timeoutMs when the store never answers", async () => {
    const quiet = client({ baseUrl: "http://127.0.0.1:9", store: quietStore() });
    const calls = {
      restore: quiet.restoreSessions({ timeoutMs: 300 }),
      claim: quiet.restoreSessions({ claim: true, timeoutMs: 300 }),
      resume: quiet.resumeSession("s1", {}, { timeoutMs: 300 }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const error = await failure(call);
      expect([name, error]).toEqual([name, expect.any(CallTimeoutError)]);
      expect((error as Error).message).toMatch(/(restoreSessions|resumeSession) timed out after 300 ms/);
    }
  });

  it("restoreSessions({ claim }) ends at its timeoutMs when the store goes quiet after the claim", async () => {
    const inner = memoryStore();
    await inner.updateSession({ id: "s1", agent: "mock", agentSessionId: "s1", lastConnectionId: "old", createdAt: 1 });
    const leases = { ...localLeases(inner), release: () => never<void>() };
    const store: SessionStore = { ...inner, leases, getSession: () => never(), listEvents: () => never() };
    const quiet = client({ baseUrl: "http://127.0.0.1:9", store });
    const error = await failure(quiet.restoreSessions({ claim: true, timeoutMs: 300 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as Error).message).toBe("restoreSessions timed out after 300 ms");
  });

  it("fail with their CallTimeoutError when the server never answers, not a connect error per attempt", async () => {
    const server = await silentServer();
    try {
      const store = memoryStore();
      await store.updateSession({ id: "s1", agent: "mock", agentSessionId: "s1", lastConnectionId: "old", createdAt: 1 });
      const stuck = client({ baseUrl: server.baseUrl, store });
      const resumed = await failure(stuck.resumeSession("s1", {}, { timeoutMs: 500 }));
      expect(resumed).toBeInstanceOf(CallTimeoutError);
      expect((resumed as Error).message).toBe("resumeSession timed out after 500 ms");
      const restored = await failure(stuck.restoreSessions({ timeoutMs: 500 }));
      expect(restored).toBeInstanceOf(CallTimeoutError);
      expect((restored as Error).message).toBe("restoreSessions timed out after 500 ms");
    } finally {
      await server.close();
    }
  });
});
