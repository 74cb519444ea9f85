// A store that cannot be reached: the errors name the call the user made (restoreSessions,
// resumeSession, transcript$), and postgresStore says what it retries before it gives up. The
// PostgreSQL here is an address nobody listens on (connection refused): no database is needed.
import { createServer } from "node:net";
import { firstValueFrom, take, timeout, toArray, type Observable } from "rxjs";
import { postgresStore } from "../../lib/postgres/index.js";
import { memoryStore, SandboxAgentClient, StoreError, type SessionStore } from "../../lib/sandbox/index.js";

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

/** The error an observable ends with (its values ignored), within `ms`. */
const streamError = (source: Observable<unknown>, ms: number) =>
  new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no error within ${ms} ms`)), ms);
    source.subscribe({
      error: (error: unknown) => {
        clearTimeout(timer);
        resolve(error);
      },
    });
  });

describe("store failures name the user's call", () => {
  /** A store whose every read fails as a driver's would, with no name of ours in it. */
  const broken = (): SessionStore => {
    const fail = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"));
    return { ...memoryStore(), getSession: fail, listSessions: fail, listEvents: fail };
  };
  const client = (store: SessionStore) =>
    new SandboxAgentClient({ baseUrl: "http://127.0.0.1:9", agent: "mock", store, autoConnect: false });

  it("restoreSessions, resumeSession and transcript$: a StoreError whose message starts with the call", async () => {
    const c = client(broken());
    const restore = (await failure(c.restoreSessions())) as StoreError;
    expect(restore).toBeInstanceOf(StoreError);
    expect(restore.message).toBe("restoreSessions: the store failed: connect ECONNREFUSED 127.0.0.1:5432");
    expect((restore.cause as Error).message).toContain("ECONNREFUSED");

    const resume = (await failure(c.resumeSession("s1"))) as StoreError;
    expect(resume).toBeInstanceOf(StoreError);
    expect(resume.message).toMatch(/^resumeSession: the store failed on session s1: connect ECONNREFUSED/);
    expect(resume.sessionId).toBe("s1");

    const transcript = (await streamError(c.session("s1").transcript$, 3000)) as StoreError;
    expect(transcript).toBeInstanceOf(StoreError);
    expect(transcript.message).toMatch(/^transcript\$: the store failed on session s1: connect ECONNREFUSED/);
    expect(transcript.message).not.toContain("history$");

    const history = (await streamError(c.session("s1").history$(), 3000)) as StoreError;
    expect(history.message).toMatch(/^history\$: /);
  });

  it("a claim whose store fails names restoreSessions too, and keeps a store error's kind", async () => {
    const store = memoryStore();
    const invalid = StoreError.invalidRecord("session record", "id: missing");
    const c = client({ ...store, listSessions: () => Promise.reject(invalid) });
    const error = (await failure(c.restoreSessions({ claim: true }))) as StoreError;
    expect(error.message).toMatch(/^restoreSessions: /);
    expect(error.kind).toBe("invalid-record");
    expect(error.issues).toBe("id: missing");
  });

  it("an unreachable PostgreSQL: the retry is said at the first failure, the call's error names it", async () => {
    const port = await closedPort();
    const warnings: string[] = [];
    const debug: string[] = [];
    const store = postgresStore({
      connectionString: `postgres://someone:pa55word@127.0.0.1:${port}/nothing`,
      retries: 3,
      logger: { warn: (message) => warnings.push(message), debug: (message) => debug.push(message) },
    });
    try {
      const c = client(store);
      const errors = firstValueFrom(c.storeErrors$.pipe(take(1), toArray(), timeout(10_000)));
      const error = (await failure(c.restoreSessions())) as StoreError;
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toMatch(/^restoreSessions: the store failed: postgres: connect ECONNREFUSED/);
      // Said once, when the first operation met the refusal, with what is retried and for how long.
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^postgres: connect ECONNREFUSED 127\.0\.0\.1:\d+: retrying up to 3 times \(350 ms in all\)$/);
      expect(debug).toHaveLength(3);
      for (const line of [...warnings, ...debug, error.message]) expect(line).not.toContain("pa55word");

      const transcript = (await streamError(c.session("s1").transcript$, 10_000)) as Error;
      expect(transcript.message).toMatch(/^transcript\$: the store failed on session s1: postgres: connect ECONNREFUSED/);
      expect((await errors)[0]?.message).toMatch(/^transcript\$/);
    } finally {
      await store.close();
    }
  });
});
