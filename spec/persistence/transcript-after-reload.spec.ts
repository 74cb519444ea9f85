// A page reloaded mid-turn: the first client "process" is cut off while its prompt runs (every request
// of it fails from then on, nothing is closed), a new client on the same store restores the session on
// the real 0.4.2 server, and its transcript learns that the turn ended, though the prompt's answer was
// for the page that sent it. A session that comes back on a new connection instead (its turn gone with
// the old one) does not stay running either.
import { tmpdir } from "node:os";
import { filter, firstValueFrom, timeout } from "rxjs";
import {
  memoryStore,
  SandboxAgentClient,
  type MessageEntry,
  type SessionStore,
  type Transcript,
} from "../../lib/sandbox/index.js";
import { allEvents, chunkText, killableFetch, pageStore } from "./client-helpers.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";

const CHUNKS = 30;

describe("the transcript of a session restored mid-turn (real 0.4.2 server)", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];
  beforeAll(async () => {
    server = await startSandboxAgent();
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.disconnect().catch(() => undefined);
    await server?.stop();
  });

  /** A first client whose process is cut off a few chunks into a long turn; its store stays. */
  async function cutOffMidTurn() {
    const store = memoryStore();
    const killable = killableFetch();
    // The page's handle on the store goes with the page: nothing it does afterwards is written.
    const handle = pageStore(store, killable.signal);
    const a = new SandboxAgentClient({
      baseUrl: server.baseUrl,
      agent: "mock",
      store: handle,
      fetch: killable.fetch,
      reconnect: { maxRetries: 0 },
    });
    clients.push(a);
    await a.ready;
    const { sessionId } = await a.newSession({ cwd: tmpdir() });
    void a.prompt(sessionId, `slowchunks ${CHUNKS} 40`).catch(() => undefined);
    const chunks = async () => (await allEvents(store, sessionId)).filter((e) => chunkText(e.payload) !== undefined);
    for (let i = 0; i < 400 && (await chunks()).length < 5; i++) await new Promise((r) => setTimeout(r, 25));
    killable.kill();
    expect((await chunks()).length).toBeLessThan(CHUNKS);
    return { store, sessionId };
  }

  const settled = (client: SandboxAgentClient, sessionId: string, ms = 30_000) =>
    firstValueFrom(
      client.session(sessionId).transcript$.pipe(
        filter((t: Transcript) => !t.isRunning && t.entries.some((e) => ["turn-end", "agent-error"].includes(e.kind))),
        timeout(ms),
      ),
    );

  it("ends the turn in the new page's transcript when the turn's answer reaches the reattached stream", async () => {
    const { store, sessionId } = await cutOffMidTurn();
    const b = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, autoConnect: false });
    clients.push(b);
    const resumed = await b.restoreSessions({ timeoutMs: 20_000 });
    expect(resumed.map((r) => r.resumedBy)).toEqual(["reattached"]);

    const t = await settled(b, sessionId);
    expect(t.entries.map((e) => e.kind)).toEqual(["user-message", "agent-message", "turn-end"]);
    expect((t.at(1) as MessageEntry).text).toBe(Array.from({ length: CHUNKS }, (_, i) => `c${i}`).join(""));
    expect(t.at(2)).toMatchObject({ stopReason: "end_turn" });
    // Stored (the store is written behind the stream): a page opened after this one sees the same end.
    const reopened = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, autoConnect: false });
    const stored = async () => (await allEvents(store, sessionId)).some((e) => "result" in e.payload);
    for (let i = 0; i < 200 && !(await stored()); i++) await new Promise((r) => setTimeout(r, 25));
    expect(await stored()).toBe(true);
    const again = await settled(reopened, sessionId, 5000);
    expect(again.entries.map((e) => e.id)).toEqual(t.entries.map((e) => e.id));

    // The new page's own prompt is its own turn, ended once.
    await b.prompt(sessionId, "slowchunks 2 1", { timeoutMs: 10_000 });
    const after = await firstValueFrom(
      b.session(sessionId).transcript$.pipe(
        filter((s) => s.entries.filter((e) => e.kind === "turn-end").length === 2),
        timeout(10_000),
      ),
    );
    expect(after.isRunning).toBe(false);
    expect(after.entries.map((e) => e.kind).slice(3)).toEqual(["user-message", "agent-message", "turn-end"]);
  }, 90_000);

  it("does not leave the transcript running when the session comes back on a new connection, where that turn cannot end", async () => {
    const { store, sessionId } = await cutOffMidTurn();
    // Another server id: the stored connection is not reattached, the session is loaded on a new one.
    const serverId = `other-${Date.now()}`;
    const b = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, serverId });
    clients.push(b);
    await b.ready;
    const resumed = await b.resumeSession(sessionId, {}, { timeoutMs: 20_000 });
    expect(resumed?.resumedBy).toBe("loaded");
    const t = await settled(b, sessionId, 10_000);
    const message = expect.stringMatching(/lost.*loaded/);
    expect(t.at(-1)).toMatchObject({ kind: "agent-error", source: "prompt", message });
  }, 90_000);
});
