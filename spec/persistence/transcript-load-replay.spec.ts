// `loadSession()` of a session this client never stored, on the real 0.4.2 server with an agent that
// replays a session's history on `session/load`: the replay is recorded (a page opened later on the
// same store shows it), it is history in the transcript (not a turn that never ends), and the first
// prompt after it is a turn like any other.
import { tmpdir } from "node:os";
import { BehaviorSubject, filter, firstValueFrom, timeout } from "rxjs";
import { memoryStore, SandboxAgentClient, type MessageEntry, type Transcript } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";

describe("the transcript of a session loaded with its agent's replay (real 0.4.2 server)", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];
  beforeAll(async () => {
    server = await startSandboxAgent({ env: { SCRIPTED_AGENT_REPLAY_ON_LOAD: "1" } });
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.disconnect().catch(() => undefined);
    await server?.stop();
  });

  it("records the replay of a session never stored here, as history: not running, and there when reopened", async () => {
    const store = memoryStore();
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    clients.push(client);
    await client.ready;
    const sessionId = `made-elsewhere-${Date.now()}`;
    const latest = new BehaviorSubject<Transcript | undefined>(undefined);
    const subscription = client.session(sessionId).transcript$.subscribe(latest);
    await client.loadSession(sessionId, { cwd: tmpdir() });

    const replayed = await firstValueFrom(
      latest.pipe(
        filter((t): t is Transcript => (t?.size ?? 0) >= 2 && (t?.at(1) as MessageEntry).text === "earlier answer"),
        timeout(5000),
      ),
    );
    expect(replayed.entries.map((e) => [e.kind, (e as MessageEntry).replayed, (e as MessageEntry).text])).toEqual([
      ["user-message", true, "earlier question"],
      ["agent-message", false, "earlier answer"],
    ]);
    expect(replayed.isRunning).toBe(false);
    expect(latest.value?.isRunning).toBe(false);

    // Stored: a page opened on the same store (not even connected) shows the same transcript.
    const reopened = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, autoConnect: false });
    const again = await firstValueFrom(
      reopened.session(sessionId).transcript$.pipe(filter((t) => t.size === 2), timeout(5000)),
    );
    expect(again.entries.map((e) => e.id)).toEqual(replayed.entries.map((e) => e.id));
    expect(again.isRunning).toBe(false);

    // The next prompt is a turn that starts and ends.
    await client.prompt(sessionId, "hello", { timeoutMs: 10_000 });
    const turn = await firstValueFrom(
      latest.pipe(filter((t): t is Transcript => t?.at(-1)?.kind === "turn-end"), timeout(5000)),
    );
    expect(turn.entries.map((e) => e.kind).slice(2)).toEqual(["user-message", "agent-message", "turn-end"]);
    expect(turn.isRunning).toBe(false);

    // Loaded again, the session's replay is what the store holds already: not stored (or shown) twice.
    await client.loadSession(sessionId, { cwd: tmpdir() });
    await client.prompt(sessionId, "after the second load", { timeoutMs: 10_000 });
    const later = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, autoConnect: false });
    const stored = await firstValueFrom(
      later.session(sessionId).transcript$.pipe(
        filter((t) => t.entries.some((e) => (e as MessageEntry).text === "after the second load") && t.at(-1)?.kind === "turn-end"),
        timeout(5000),
      ),
    );
    expect(stored.entries.map((e) => e.kind)).toEqual([
      "user-message", "agent-message", "user-message", "agent-message", "turn-end",
      "user-message", "agent-message", "turn-end",
    ]);
    subscription.unsubscribe();
  }, 60_000);
});
