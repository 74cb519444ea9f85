// Resume when the stored connection is gone (the first client disconnected, which on the 0.4.2
// server ends the agent process): with an agent that advertises loadSession the session is
// `session/load`ed on a new connection; without, a new session gets a bounded replay of the stored
// history ahead of the user's next text (the scripted agent echoes the text blocks it received).
// And a store that throws on every call does not break a session.
import { tmpdir } from "node:os";
import { filter, firstValueFrom, take, timeout, toArray } from "rxjs";
import {
  SandboxAgentClient,
  memoryStore,
  type SandboxEvent,
  type SessionStore,
  type StoreError,
} from "../../lib/sandbox/index.js";
import { startV2ContractServer, type V2ContractServer } from "../support/v2-contract-server.js";
import { allEvents, chunkText, statelessServers } from "./client-helpers.js";

const client = (baseUrl: string, store: SessionStore, extra = {}) =>
  new SandboxAgentClient({ baseUrl, agent: "mock", store, cwd: tmpdir(), ...extra });

/** A first client that had a session with `turns` finished turns, then disconnected (the agent process ends). */
async function previousLife(baseUrl: string, store: SessionStore, turns: string[]): Promise<string> {
  const first = client(baseUrl, store);
  await first.ready;
  const { sessionId } = await first.newSession();
  for (const turn of turns) await first.prompt(sessionId, turn);
  await first.disconnect();
  return sessionId;
}

describe("resume on the 0.4.2 server once the stored connection is gone", () => {
  const servers = statelessServers();
  const clients = servers.clients;

  it("uses session/load when the agent advertises loadSession", async () => {
    const store = memoryStore();
    const localId = await previousLife(servers.withLoad.baseUrl, store, ["chunks 3"]);
    const second = client(servers.withLoad.baseUrl, store, { autoConnect: false });
    clients.push(second);
    const resumed = await second.resumeSession(localId, {}, { timeoutMs: 20_000 });
    expect(resumed).toMatchObject({ localId, sessionId: localId, resumedBy: "loaded" });
    const outcome = await second.prompt(localId, "chunks 2");
    expect(outcome.stopReason).toBe("end_turn");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stored = (await allEvents(store, localId)).map((e) => chunkText(e.payload)).filter(Boolean);
    expect(stored).toEqual(["c0", "c1", "c2", "c0", "c1"]);
  }, 60_000);

  it("without loadSession: a new session, the replay reaches the agent before the user's text", async () => {
    const store = memoryStore();
    const localId = await previousLife(servers.withoutLoad.baseUrl, store, ["chunks 3", "chunks 4"]);
    const second = client(servers.withoutLoad.baseUrl, store, { autoConnect: false });
    clients.push(second);
    const resumed = await second.resumeSession(localId, {}, { timeoutMs: 20_000 });
    expect(resumed).toMatchObject({ localId, resumedBy: "replayed", replay: { omittedEvents: 0 } });
    const outcome = await second.prompt(localId, "what did you say?");
    const seen = (outcome.raw._meta as { promptTexts: string[] }).promptTexts;
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/^Earlier in this session/);
    expect(seen[0]).toContain("user: chunks 3");
    expect(seen[0]).toContain("c0c1c2");
    expect(seen[0]).toContain("c0c1c2c3");
    expect(seen[1]).toBe("what did you say?");
    // Sent once: the turn after carries the user's text only.
    const next = await second.prompt(localId, "again");
    expect((next.raw._meta as { promptTexts: string[] }).promptTexts).toEqual(["again"]);
  }, 60_000);

  it("keeps the newest part of a long history within the bound and says what was cut", async () => {
    const store = memoryStore();
    const turns = Array.from({ length: 8 }, (_, i) => `chunks ${i + 2}`);
    const localId = await previousLife(servers.withoutLoad.baseUrl, store, turns);
    const second = client(servers.withoutLoad.baseUrl, store, { autoConnect: false, replay: { maxChars: 500 } });
    clients.push(second);
    const resumed = await second.resumeSession(localId, {}, { timeoutMs: 20_000 });
    expect(resumed?.resumedBy).toBe("replayed");
    expect(resumed?.replay?.omittedEvents).toBeGreaterThan(0);
    const outcome = await second.prompt(localId, "go on");
    const [replay = "", user] = (outcome.raw._meta as { promptTexts: string[] }).promptTexts;
    expect(replay.length).toBeLessThanOrEqual(500);
    expect(replay).toMatch(/older events omitted/);
    expect(replay).toContain("user: chunks 9");
    expect(replay).toContain("c0c1c2c3c4c5c6c7c8");
    expect(replay).not.toContain("user: chunks 2");
    expect(user).toBe("go on");
  }, 60_000);
});

describe("a store that throws", () => {
  let server: V2ContractServer;
  beforeAll(async () => (server = await startV2ContractServer({ mockChunkDelayMs: 5 })));
  afterAll(() => server?.stop());

  it("does not break the session: events arrive, errors go to storeErrors$", async () => {
    const broken = (): never => {
      throw new Error("disk on fire");
    };
    const store: SessionStore = {
      getSession: async () => broken(),
      listSessions: async () => broken(),
      updateSession: async () => broken(),
      listEvents: async () => broken(),
      insertEvent: async () => broken(),
    };
    const c = client(server.baseUrl, store);
    const errors: StoreError[] = [];
    c.storeErrors$.subscribe((error) => errors.push(error));
    await c.ready;
    const { sessionId } = await c.newSession();
    const updates = c.events$.pipe(
      filter((e: SandboxEvent) => e.kind === "update" && e.sessionId === sessionId),
      take(3),
      toArray(),
      timeout(10_000),
    );
    const received = firstValueFrom(updates);
    const outcome = await c.prompt(sessionId, "one two");
    expect(outcome.stopReason).toBe("end_turn");
    expect(await received).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The record write, the prompt and the three updates each failed, and said so.
    expect(errors.length).toBeGreaterThanOrEqual(5);
    expect(errors.every((e) => e.name.startsWith("Store"))).toBe(true);
    const second = await c.prompt(sessionId, "three");
    expect(second.stopReason).toBe("end_turn");
    await c.disconnect();
  }, 30_000);
});
