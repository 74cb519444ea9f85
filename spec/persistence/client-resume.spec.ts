// The client's persistence end to end: a client "process" is cut off mid-turn (every request of it
// fails from then on, nothing is closed, its store handle goes away with writes still queued) and a
// new client with the same sqlite file resumes through the public API, on the v2 contract server
// and on the real 0.4.2 server. The store then holds every update once, in order, and the new
// client's events$ carries exactly the updates the store did not have yet.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { filter, firstValueFrom, timeout } from "rxjs";
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
import type { SandboxEvent, SessionEvent, SessionStore } from "../../lib/sandbox/index.js";
import { sqliteStore } from "../../lib/sqlite/index.js";
import { allEvents, chunkText, killableFetch } from "./client-helpers.js";
import { resumeCases, serverPerBlock } from "./resume-servers.js";

const UPDATES = 60;
const CASES = resumeCases(UPDATES, 40);

const texts = (events: SessionEvent[]) => events.map((e) => chunkText(e.payload)).filter((t) => t !== undefined);

describe.each(CASES)("resume after a client restart with sqliteStore on %s", (_, spec) => {
  const clients: SandboxAgentClient[] = [];
  const fixture = serverPerBlock(spec, "sarx-resume-", async () => {
    for (const client of clients) await client.disconnect().catch(() => undefined);
  });
  const baseUrl = () => fixture.server.baseUrl;

  /** The first client "process": its fetch can be cut, its store handle closed with writes queued. */
  async function killableClient(file: string) {
    const killable = killableFetch();
    const storeA = sqliteStore({ database: file });
    const options = { baseUrl: baseUrl(), agent: "mock", store: storeA, fetch: killable.fetch };
    const a = new SandboxAgentClient({ ...options, reconnect: { maxRetries: 0 } });
    clients.push(a);
    await a.ready;
    return { a, storeA, killable };
  }

  it("reattaches mid-turn with Last-Event-ID: each update stored once, in order; events$ without repeats", async () => {
    const file = join(fixture.dir, "sessions.db");
    const { a, storeA, killable } = await killableClient(file);
    const { sessionId } = await a.newSession({ cwd: tmpdir() });
    void a.prompt(sessionId, spec.prompt).catch(() => undefined);
    // The first client goes away a third into the turn, with whatever it has not written yet.
    const watcher = sqliteStore({ database: file });
    for (let i = 0; i < 600 && texts(await allEvents(watcher, sessionId)).length < UPDATES / 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    killable.kill();
    await storeA.close?.();

    const storeB = sqliteStore({ database: file });
    const b = new SandboxAgentClient({ baseUrl: baseUrl(), agent: "mock", store: storeB, autoConnect: false });
    clients.push(b);
    const liveTexts: string[] = [];
    b.events$.subscribe((event: SandboxEvent) => {
      if (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk") {
        liveTexts.push((event.update.content as { text: string }).text);
      }
    });
    const before = texts(await allEvents(watcher, sessionId));
    expect(before.length).toBeGreaterThanOrEqual(UPDATES / 3);
    expect(before.length).toBeLessThan(UPDATES);

    const resumed = await b.restoreSessions({ timeoutMs: 20_000 });
    expect(resumed.map((r) => [r.localId, r.resumedBy])).toEqual([[sessionId, "reattached"]]);
    const last = spec.texts.at(-1);
    await firstValueFrom(
      b.session(sessionId).history$().pipe(filter((e) => chunkText(e.payload) === last), timeout(60_000)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));

    const stored = await allEvents(storeB, sessionId);
    expect(texts(stored)).toEqual(spec.texts);
    expect(stored.map((e) => e.eventIndex)).toEqual(stored.map((_, i) => i + 1));
    expect(new Set(stored.map((e) => e.id)).size).toBe(stored.length);
    expect(stored.filter((e) => e.sender === "client")).toHaveLength(1);
    // What B emitted live is exactly what the store did not have when B resumed.
    expect([...before, ...liveTexts]).toEqual(spec.texts);
    const record = await storeB.getSession(sessionId);
    expect(record).toMatchObject({ id: sessionId, agent: "mock", agentSessionId: sessionId });

    // B's own requests are new ones: the first client's answers on the resumed stream (its ids counted
    // from 1) neither answer them nor stop their answers, and the store takes them as new events.
    for (let turn = 0; turn < 4; turn++) {
      await expect(b.prompt(sessionId, spec.quickPrompt, { timeoutMs: 10_000 })).resolves.toMatchObject({
        stopReason: "end_turn",
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await allEvents(storeB, sessionId)).filter((e) => e.sender === "client")).toHaveLength(5);
    await watcher.close?.();
  }, 120_000);

  it("restores two sessions of one connection mid-turn: both complete, once each", async () => {
    const file = join(fixture.dir, "two.db");
    const { a, storeA, killable } = await killableClient(file);
    const ids = [(await a.newSession({ cwd: tmpdir() })).sessionId, (await a.newSession({ cwd: tmpdir() })).sessionId];
    for (const id of ids) void a.prompt(id, spec.prompt).catch(() => undefined);
    const watcher = sqliteStore({ database: file });
    const counts = () => Promise.all(ids.map(async (id) => texts(await allEvents(watcher, id)).length));
    for (let i = 0; i < 600 && Math.min(...(await counts())) < UPDATES / 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    killable.kill();
    await storeA.close?.();

    const storeB = sqliteStore({ database: file });
    // Reading the second session is slow: its replayed events must still be recognised as its own.
    const slow: SessionStore = {
      getSession: (id) => storeB.getSession(id),
      listSessions: (request) => storeB.listSessions(request),
      updateSession: (record) => storeB.updateSession(record),
      insertEvent: (id, event) => storeB.insertEvent(id, event),
      listEvents: async (request) => {
        if (request.sessionId === ids[1]) await new Promise((resolve) => setTimeout(resolve, 1500));
        return storeB.listEvents(request);
      },
    };
    const b = new SandboxAgentClient({ baseUrl: baseUrl(), agent: "mock", store: slow, autoConnect: false });
    clients.push(b);
    const resumed = await b.restoreSessions({ timeoutMs: 20_000 });
    expect(resumed.map((r) => r.resumedBy).sort()).toEqual(["attached", "reattached"]);
    const last = spec.texts.at(-1);
    await Promise.all(
      ids.map((id) =>
        firstValueFrom(b.session(id).history$().pipe(filter((e) => chunkText(e.payload) === last), timeout(60_000))),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const id of ids) {
      const stored = await allEvents(storeB, id);
      expect(texts(stored)).toEqual(spec.texts);
      expect(new Set(stored.map((e) => e.id)).size).toBe(stored.length);
    }
    await watcher.close?.();
  }, 120_000);
});
