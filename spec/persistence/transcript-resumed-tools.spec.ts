// A session resumed as a new agent session (`resumedBy: "replayed"`: the demo agent cannot load, and
// the first client's disconnect ended its process) on the real 0.4.2 server: the new agent numbers its
// tool calls from call_1 again, and the transcript keeps each turn's tool calls apart.
import { fileURLToPath } from "node:url";
import { filter, firstValueFrom, timeout } from "rxjs";
import {
  memoryStore,
  SandboxAgentClient,
  type PermissionRequest,
  type ToolCallEntry,
  type Transcript,
} from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";

const demoAgent = fileURLToPath(new URL("../../lib/providers/local/demo-agent.mjs", import.meta.url));

describe("the tool calls of a session resumed as a new agent session (real 0.4.2 server, demo agent)", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];
  beforeAll(async () => {
    server = await startSandboxAgent({ agentScript: demoAgent });
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.disconnect().catch(() => undefined);
    await server?.stop();
  });

  const client = (store: ReturnType<typeof memoryStore>, extra = {}) => {
    const allow = (request: PermissionRequest) => {
      const optionId = request.options.find((o) => o.kind === "allow_once")?.optionId;
      return optionId ? { outcome: "selected" as const, optionId } : { outcome: "cancelled" as const };
    };
    const options = { baseUrl: server.baseUrl, agent: "mock", store, onPermissionRequest: allow, ...extra };
    const made = new SandboxAgentClient(options);
    clients.push(made);
    return made;
  };

  it("shows turn 1's tool calls unchanged and turn 2's as new entries, though the ids repeat", async () => {
    const store = memoryStore();
    const first = client(store);
    await first.ready;
    const { sessionId } = await first.newSession({ cwd: server.home });
    await first.prompt(sessionId, "quick add a greeting helper", { timeoutMs: 30_000 });
    const before = await firstValueFrom(
      first.session(sessionId).transcript$.pipe(
        filter((s: Transcript) => s.at(-1)?.kind === "turn-end"),
        timeout(10_000),
      ),
    );
    await first.disconnect();

    const second = client(store, { autoConnect: false });
    const resumed = await second.resumeSession(sessionId, {}, { timeoutMs: 20_000 });
    expect(resumed?.resumedBy).toBe("replayed");
    await second.prompt(sessionId, "quick add a farewell helper", { timeoutMs: 30_000 });

    const t = await firstValueFrom(
      second.session(sessionId).transcript$.pipe(
        filter((s: Transcript) => s.entries.filter((e) => e.kind === "turn-end").length === 2),
        timeout(10_000),
      ),
    );
    const [end1 = 0, end2 = 0] = t.entries.flatMap((e, i) => (e.kind === "turn-end" ? [i] : []));
    const tools = (from: number, to: number) =>
      t.entries.slice(from, to).filter((e): e is ToolCallEntry => e.kind === "tool-call");
    const turn1 = tools(0, end1);
    const turn2 = tools(end1 + 1, end2);
    expect(turn1.length).toBeGreaterThan(0);
    expect(turn2.map((e) => e.toolCallId)).toEqual(turn1.map((e) => e.toolCallId));
    expect(new Set([...turn1, ...turn2].map((e) => e.id)).size).toBe(turn1.length + turn2.length);
    for (const entry of [...turn1, ...turn2]) expect(entry.status).toBe("completed");
    // Turn 1's tool calls are as the first client saw them, not rewritten by turn 2's.
    const shown = (e: ToolCallEntry) => [e.id, e.title, e.status, e.updates, e.startedAt];
    const seen = before.entries.filter((e): e is ToolCallEntry => e.kind === "tool-call");
    expect(turn1.map(shown)).toEqual(seen.map(shown));
    expect(Math.min(...turn2.map((e) => e.startedAt))).toBeGreaterThan(Math.max(...turn1.map((e) => e.endedAt ?? 0)));
    expect(t.isRunning).toBe(false);
  }, 90_000);
});
