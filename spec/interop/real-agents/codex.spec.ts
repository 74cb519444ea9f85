/**
 * Codex (codex-acp, its native binary) through the real sandbox-agent 0.4.2 server, as
 * `agent: "codex"`, driven by SandboxAgentClient; the model is the scripted OpenAI Responses endpoint
 * on loopback, named as Codex's provider in `$CODEX_HOME/config.toml`. One server for the file.
 */
import {
  AgentError,
  SandboxAgentClient,
  UnsupportedFeatureError,
  memoryStore,
  type SandboxAgentClientOptions,
} from "../../../lib/sandbox/index.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import {
  REAL_AGENT_INSTALL_TIMEOUT_MS,
  realAgentComponent,
  startRealAgentServer,
  type RealAgentServer,
} from "../../support/real-agents.js";
import { describeWith } from "../../support/system-component.js";
import { rejection } from "../../support/rejection.js";
import { chunkText, manualPermissions, optionOf, recordEvents, toolCalls } from "./real-agent-helpers.js";

/** Codex's first chunk of a turn when it does not know the model's metadata (any model but its own). */
const METADATA_NOTICE = /Model metadata for `[^`]+` not found\. Defaulting to fallback metadata;[^.]*\./g;

describeWith([realAgentComponent("codex")])("Codex through the real sandbox-agent 0.4.2", () => {
  let model: ScriptedModel;
  let agents: RealAgentServer;
  let home: string;
  const clients: SandboxAgentClient[] = [];

  beforeAll(async () => {
    model = await startScriptedModel();
    // Claude Code too, for the sessions of both agents at once.
    agents = await startRealAgentServer(model, ["codex", "claude"]);
    home = agents.server.home;
  }, REAL_AGENT_INSTALL_TIMEOUT_MS);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.disconnect().catch(() => undefined)));
  });

  afterAll(async () => {
    await agents?.stop();
    await model?.stop();
  });

  /** A connected client that has authenticated with the API key method (Codex asks for it). */
  const connect = async (options: Partial<SandboxAgentClientOptions> = {}) => {
    const client = new SandboxAgentClient({ baseUrl: agents.server.baseUrl, agent: "codex", ...options });
    clients.push(client);
    await client.ready;
    await client.request("authenticate", { methodId: "openai-api-key" });
    return client;
  };
  const text = (...chunks: string[]) => ({ type: "text" as const, chunks });
  /** The turn's message text without Codex's model-metadata notice. */
  const answerText = (all: string) => all.replace(METADATA_NOTICE, "");

  it("is installed where the server looks; it takes authenticate with the API key method", async () => {
    const client = new SandboxAgentClient({ baseUrl: agents.server.baseUrl, agent: "codex" });
    clients.push(client);
    const info = await client.ready;
    expect(info?.agentInfo).toMatchObject({ name: "codex-acp", version: "0.16.0" });
    expect(await client.getAgent("codex")).toMatchObject({ id: "codex", installed: true });
    // Through the server, with OPENAI_API_KEY in its environment, a session opens before it too.
    await expect(client.newSession({ cwd: home })).resolves.toMatchObject({ sessionId: expect.any(String) });
    await expect(client.request("authenticate", { methodId: "openai-api-key" })).resolves.toEqual({});
    const refused = await rejection(client.request("authenticate", { methodId: "no-such-method" }));
    expect(refused).toBeInstanceOf(AgentError);
  });

  it("a text turn streams the scripted reasoning and text in order; prompt() resolves after the last update", async () => {
    model.script("codex-hello", [
      { blocks: [{ type: "thinking", chunks: ["Thinking", " it over."] }, text("Hello", " from", " Codex.")] },
    ]);
    const client = await connect();
    const { sessionId } = await client.newSession({ cwd: home });
    const seen = recordEvents(client);
    const outcome = await client.prompt(sessionId, "codex-hello: say hello");
    const atResolve = seen.events.length;
    expect(outcome.stopReason).toBe("end_turn");
    expect(chunkText(seen.events, sessionId, "agent_thought_chunk").trim()).toBe("Thinking it over.");
    expect(answerText(chunkText(seen.events, sessionId))).toBe("Hello from Codex.");
    const [request] = model.requestsFor("codex-hello");
    expect(request).toMatchObject({ api: "responses", finished: true, closedEarly: false });
    expect(request?.tools).toContain("exec_command");
    expect(seen.events.length).toBe(atResolve);
    seen.stop();
  });

  it("a command that needs approval asks with Codex's options; allowed, it runs and its output comes back", async () => {
    const command = {
      type: "tool" as const,
      name: "exec_command",
      input: {
        cmd: "echo codex-output-7",
        workdir: home,
        sandbox_permissions: "require_escalated",
        justification: "Print a marker outside the sandbox",
      },
    };
    model.script("codex-shell", [{ blocks: [command] }, { blocks: [text("Ran it.")] }]);
    const permissions = manualPermissions();
    const client = await connect({ onPermissionRequest: permissions.handler });
    const { sessionId } = await client.newSession({ cwd: home });
    const seen = recordEvents(client);
    const turn = client.prompt(sessionId, "codex-shell: run echo");
    await permissions.waitOpen(1);
    const { request, answer } = permissions.open[0]!;
    expect(request.toolCall).toMatchObject({ kind: "execute" });
    expect(request.options.map((o) => o.kind)).toEqual(expect.arrayContaining(["allow_once", "reject_once"]));
    answer(optionOf(request, "allow_once"));
    expect((await turn).stopReason).toBe("end_turn");
    const [call] = [...toolCalls(seen.events, sessionId).values()];
    expect(call).toMatchObject({ kind: "execute", status: "completed" });
    const [, after] = model.requestsFor("codex-shell");
    expect(JSON.stringify(after?.body)).toContain("codex-output-7");
    seen.stop();
  });

  it("a command rejected at the approval does not run, and Codex's reject option ends the turn cancelled", async () => {
    const command = {
      type: "tool" as const,
      name: "exec_command",
      input: { cmd: "touch rejected-by-user", workdir: home, sandbox_permissions: "require_escalated",
        justification: "Create a file outside the sandbox" },
    };
    model.script("codex-reject", [{ blocks: [command] }, { blocks: [text("Not run.")] }]);
    const permissions = manualPermissions();
    const client = await connect({ onPermissionRequest: permissions.handler });
    const { sessionId } = await client.newSession({ cwd: home });
    const turn = client.prompt(sessionId, "codex-reject: touch a file");
    await permissions.waitOpen(1);
    const { request, answer } = permissions.open[0]!;
    // Codex's one way to say no is "abort": no, and stop (the user says what to do instead).
    expect(request.options.map((o) => [o.optionId, o.kind])).toEqual([
      ["approved", "allow_once"],
      ["approved-execpolicy-amendment", "allow_always"],
      ["abort", "reject_once"],
    ]);
    answer(optionOf(request, "reject_once"));
    expect((await turn).stopReason).toBe("cancelled");
    await expect(client.fs.stat(`${home}/rejected-by-user`)).rejects.toThrow();
    expect(model.requestsFor("codex-reject")).toHaveLength(1);
  });

  it("lists its modes, switches to auto and acts on it; an unknown mode is refused with the ones it offers", async () => {
    model.script("codex-mode", [{ blocks: [text("In auto.")] }]);
    const client = await connect();
    const { sessionId } = await client.newSession({ cwd: home });
    const modes = await client.getSessionModes(sessionId);
    expect(modes?.currentModeId).toBe("read-only");
    const ids = modes?.availableModes.map((m) => m.id) ?? [];
    expect(ids).toEqual(expect.arrayContaining(["read-only", "auto", "full-access"]));
    const refused = await rejection(client.setSessionMode(sessionId, "yolo"));
    expect(refused).toBeInstanceOf(UnsupportedFeatureError);
    expect((refused as UnsupportedFeatureError).validValues).toEqual(ids);
    await client.setSessionMode(sessionId, "auto");
    expect((await client.getSessionModes(sessionId))?.currentModeId).toBe("auto");
    await client.prompt(sessionId, "codex-mode: hello");
    // Codex tells the model its sandbox changed with the mode.
    expect(JSON.stringify(model.requestsFor("codex-mode")[0]?.body)).toContain("workspace-write");
  });

  it("cancel mid-stream: the turn ends cancelled, the model stream is closed, nothing of it comes after", async () => {
    const slow = Array.from({ length: 60 }, (_, i) => `slow-${i} `);
    model.script("codex-slow", [{ blocks: [text(...slow)], delayMs: 100 }]);
    model.script("codex-next", [{ blocks: [text("Next.")] }]);
    const client = await connect();
    const { sessionId } = await client.newSession({ cwd: home });
    const seen = recordEvents(client);
    const turn = client.prompt(sessionId, "codex-slow: stream slowly");
    await seen.waitFor((e) => chunkText([e], sessionId).includes("slow-1"), "the second slow chunk");
    await client.cancel(sessionId);
    expect((await turn).stopReason).toBe("cancelled");
    const atAnswer = seen.events.length;
    await model.waitFor(() => model.requestsFor("codex-slow")[0]?.closedEarly === true, "the model stream closed");
    expect((await client.prompt(sessionId, "codex-next: go on")).stopReason).toBe("end_turn");
    expect(answerText(chunkText(seen.events.slice(atAnswer), sessionId))).toBe("Next.");
    seen.stop();
  });

  it("a model error (401 from the model) reaches the caller as a typed error with the provider's message", async () => {
    const invalidKey = { status: 401, type: "invalid_api_key", message: "Incorrect API key (scripted)" };
    model.script("codex-401", [{ error: invalidKey }]);
    const client = await connect();
    const { sessionId } = await client.newSession({ cwd: home });
    const error = await rejection(client.prompt(sessionId, "codex-401: hello"));
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).message).toContain("401 Unauthorized: Incorrect API key (scripted)");
  });

  it("four sessions on the two agents at once: two Codex, two Claude Code, each its own turn", async () => {
    const codex = await connect();
    const claude = new SandboxAgentClient({ baseUrl: agents.server.baseUrl, agent: "claude" });
    clients.push(claude);
    await claude.ready;
    const opened = await Promise.all([codex, codex, claude, claude].map((c) => c.newSession({ cwd: home })));
    const owners = [codex, codex, claude, claude];
    opened.forEach((_, i) => model.script(`mixed-${i}`, [{ blocks: [text("answer ", `${i}`)], delayMs: 20 }]));
    const seen = [recordEvents(codex), recordEvents(claude)];
    const outcomes = await Promise.all(opened.map((s, i) => owners[i]!.prompt(s.sessionId, `mixed-${i}: go`)));
    expect(outcomes.map((o) => o.stopReason)).toEqual(["end_turn", "end_turn", "end_turn", "end_turn"]);
    const texts = opened.map((s, i) => answerText(chunkText(seen[i < 2 ? 0 : 1]!.events, s.sessionId)));
    expect(texts).toEqual(["answer 0", "answer 1", "answer 2", "answer 3"]);
    for (const r of seen) r.stop();
  });

  it("resume after a server restart: Codex's session comes back (session/load) with the same transcript", async () => {
    const store = memoryStore();
    model.script("codex-resume-one", [{ blocks: [text("Before the restart.")] }]);
    const first = await connect({ store });
    const { sessionId } = await first.newSession({ cwd: home });
    await first.prompt(sessionId, "codex-resume-one: remember this");
    const before = await messages(first, sessionId);
    await first.disconnect();
    await agents.server.restart();
    const baseUrl = agents.server.baseUrl;
    const second = new SandboxAgentClient({ baseUrl, agent: "codex", store, autoConnect: false });
    clients.push(second);
    await second.connect();
    await second.request("authenticate", { methodId: "openai-api-key" });
    const resumed = await second.resumeSession(sessionId, { cwd: home }, { timeoutMs: 30_000 });
    expect(resumed?.resumedBy).toBe("loaded");
    expect(await messages(second, sessionId)).toEqual(before);
    model.script("codex-resume-two", [{ blocks: [text("After the restart.")] }]);
    expect((await second.prompt(resumed!.sessionId, "codex-resume-two: still there?")).stopReason).toBe("end_turn");
  }, 60_000);
});

/** The session's user and agent messages from its transcript, as [kind, text] (without Codex's notice). */
async function messages(client: SandboxAgentClient, sessionId: string): Promise<Array<[string, string]>> {
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no transcript")), 10_000);
    const sub = client.session(sessionId).transcript$.subscribe((t) => {
      if (t.isRunning || t.size === 0) return;
      clearTimeout(timer);
      queueMicrotask(() => sub.unsubscribe());
      resolve(
        t.entries.flatMap((e) =>
          e.kind === "user-message" || e.kind === "agent-message"
            ? [[e.kind, e.text.replace(METADATA_NOTICE, "")] as [string, string]]
            : []),
      );
    });
  });
}
