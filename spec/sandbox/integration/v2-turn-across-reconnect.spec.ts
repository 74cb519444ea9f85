// A turn of the ACP v2 draft (option `protocolVersion: 2`) that is under way when the client's
// connection stream is lost, against the real 0.4.2 server and the scripted agent: on the draft the
// turn ends with the agent's `state_update` idle, not with the prompt's answer (which came at once),
// so what ends the turn is an event the client may read only after it has come back. The same
// client's stream is cut and comes back after its last event id; a new client (a page reloaded)
// reattaches to the stored connection mid-turn.
import { tmpdir } from "node:os";
import { filter, firstValueFrom, timeout } from "rxjs";
import {
  memoryStore,
  SandboxAgentClient,
  type MessageEntry,
  type SandboxAgentClientOptions,
  type SandboxEvent,
  type SessionStore,
  type Transcript,
} from "../../../lib/sandbox/index.js";
import { startFaultProxy, type FaultProxy } from "../../support/fault-proxy.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { allEvents, chunkText, killableFetch, pageStore } from "../../persistence/client-helpers.js";

const CHUNKS = 20;
const TEXT = Array.from({ length: CHUNKS }, (_, i) => `c${i}`).join("");

const turnEnds = (t: Transcript) => t.entries.filter((entry) => entry.kind === "turn-end").length;

/** The first transcript of the session with `turns` turn-ends and no turn running. */
const ended = (client: SandboxAgentClient, sessionId: string, turns: number, ms = 30_000) =>
  firstValueFrom(
    client.session(sessionId).transcript$.pipe(
      filter((t) => turnEnds(t) === turns && !t.isRunning),
      timeout(ms),
    ),
  );

/** Waits (bounded) until `count()` reaches `least`. */
async function atLeast(count: () => number | Promise<number>, least: number, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await count()) >= least) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${least} ${what}`);
}

const chunkOf = (event: SandboxEvent): string | undefined =>
  event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk"
    ? (event.update.content as { text?: string }).text
    : undefined;

describe("a v2 draft turn across a lost connection stream (real 0.4.2 server)", () => {
  let server: SandboxAgentServer;
  let proxy: FaultProxy;
  const clients: SandboxAgentClient[] = [];
  const client = (options: Partial<SandboxAgentClientOptions> = {}) => {
    const created = new SandboxAgentClient({ baseUrl: proxy.baseUrl, agent: "mock", protocolVersion: 2, ...options });
    clients.push(created);
    return created;
  };
  beforeAll(async () => {
    server = await startSandboxAgent();
    proxy = await startFaultProxy(server.baseUrl);
  }, 60_000);
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.disconnect().catch(() => undefined)));
  });
  afterAll(async () => {
    await proxy?.stop();
    await server?.stop();
  });

  it("resolves the prompt on the idle read after the stream came back: each chunk once, one turn-end", async () => {
    const c = client({ reconnect: { initialDelayMs: 0, maxDelayMs: 5, jitter: 0, maxRetries: 5 } });
    expect(await c.ready).toMatchObject({ protocolVersion: 2 });
    const { sessionId } = await c.newSession({ cwd: tmpdir() });
    const chunks: string[] = [];
    const subscription = c.session(sessionId).events$.subscribe((event) => {
      const text = chunkOf(event);
      if (text !== undefined) chunks.push(text);
    });
    const idsBefore = proxy.lastEventIds().length;
    const outcome = c.prompt(sessionId, `slowchunks ${CHUNKS} 40`, { timeoutMs: 30_000 });
    await atLeast(() => chunks.length, 3, "chunks before the cut");
    expect(proxy.cutStreams()).toBeGreaterThanOrEqual(1);

    await expect(outcome).resolves.toMatchObject({ stopReason: "end_turn" });
    subscription.unsubscribe();
    expect(chunks.join("")).toBe(TEXT);
    // The stream came back from where it was, not from the start.
    const cursors = proxy.lastEventIds().slice(idsBefore);
    expect(cursors.some((id) => id !== undefined)).toBe(true);

    const t = await ended(c, sessionId, 1);
    expect(t.entries.map((e) => e.kind)).toEqual(["user-message", "agent-message", "turn-end"]);
    expect((t.at(1) as MessageEntry).text).toBe(TEXT);
    expect(t.at(2)).toMatchObject({ stopReason: "end_turn" });

    // The next turn is its own, ended once.
    await expect(c.prompt(sessionId, "slowchunks 2 1", { timeoutMs: 10_000 })).resolves.toMatchObject({
      stopReason: "end_turn",
    });
    const after = await ended(c, sessionId, 2);
    expect(after.entries.map((e) => e.kind).slice(3)).toEqual(["user-message", "agent-message", "turn-end"]);
  }, 60_000);

  it("ends the turn in a reattached client's transcript when the agent's idle reaches it", async () => {
    const store = memoryStore();
    const killable = killableFetch();
    // The page's handle on the store goes with the page: nothing it does afterwards is written.
    const handle = pageStore(store, killable.signal);
    const a = client({ store: handle, fetch: killable.fetch, reconnect: { maxRetries: 0 } });
    await a.ready;
    const { sessionId } = await a.newSession({ cwd: tmpdir() });
    const first = a.prompt(sessionId, `slowchunks ${CHUNKS} 40`).then(
      () => "resolved",
      () => "rejected",
    );
    const stored = async () => (await allEvents(store, sessionId)).filter((e) => chunkText(e.payload)).length;
    await atLeast(stored, 3, "stored chunks before the page goes");
    killable.kill();
    // The page that sent the prompt is gone: its turn's promise does not resolve there.
    expect(await first).toBe("rejected");

    const b = client({ store, autoConnect: false });
    const resumed = await b.restoreSessions({ timeoutMs: 20_000 });
    expect(resumed.map((r) => r.resumedBy)).toEqual(["reattached"]);
    const t = await ended(b, sessionId, 1);
    expect(t.entries.map((e) => e.kind)).toEqual(["user-message", "agent-message", "turn-end"]);
    expect((t.at(1) as MessageEntry).text).toBe(TEXT);
    expect(t.at(2)).toMatchObject({ stopReason: "end_turn" });

    // The new page's own prompt is its own turn, ended once.
    await expect(b.prompt(sessionId, "slowchunks 2 1", { timeoutMs: 10_000 })).resolves.toMatchObject({
      stopReason: "end_turn",
    });
    const after = await ended(b, sessionId, 2);
    expect(after.entries.map((e) => e.kind).slice(3)).toEqual(["user-message", "agent-message", "turn-end"]);
  }, 90_000);
});
