// Session configuration (modes, config options, model, thought level) and the raw request escape
// hatch, against the real 0.4.2 server driving the scripted agent as `mock`.
import * as v from "valibot";
import { filter, firstValueFrom, take, timeout, toArray } from "rxjs";
import {
  AgentError,
  CallTimeoutError,
  SandboxAgentClient,
  UnsupportedFeatureError,
  memoryStore,
} from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { next, realFactory, recordingFetch, serverWithClients, v2Factory } from "./servers.js";
import { rejection } from "../../support/rejection.js";

const SANDBOX = "sandboxagent.dev";

/** The config options as [id, currentValue] pairs. */
async function values(c: SandboxAgentClient, sessionId: string): Promise<Array<[string, unknown]>> {
  return (await c.getSessionConfigOptions(sessionId)).map((o) => [o.id, o.currentValue]);
}

describe("session configuration against the real sandbox-agent 0.4.2", () => {
  const shared = serverWithClients(realFactory);
  const client = async (options = {}) => {
    const c = shared.client(options);
    await c.ready;
    return c;
  };

  it("reports the modes and config options of the session's creation result", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    expect(await c.getSessionModes(sessionId)).toEqual({
      currentModeId: "normal",
      availableModes: [
        { id: "normal", name: "normal" },
        { id: "plan", name: "plan" },
      ],
    });
    const options = await c.getSessionConfigOptions(sessionId);
    expect(options.map((o) => [o.id, o.category, o.currentValue])).toEqual([
      ["model", "model", "mock"],
      ["mode", "mode", "normal"],
      ["thought_level", "thought_level", "low"],
    ]);
    // A copy: changing it changes nothing the client knows.
    options[0]!.currentValue = "changed";
    expect((await values(c, sessionId))[0]).toEqual(["model", "mock"]);
  });

  it("setSessionMode switches mode; the modes, the mode option and the agent's update event agree", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const update = next(c.events$, (e) => e.kind === "update" && e.update.sessionUpdate === "current_mode_update");
    await c.setSessionMode(sessionId, "plan");
    expect(await update).toMatchObject({ sessionId, update: { currentModeId: "plan" } });
    expect((await c.getSessionModes(sessionId))?.currentModeId).toBe("plan");
    expect(await values(c, sessionId)).toContainEqual(["mode", "plan"]);
  });

  it("setSessionMode, a mode the session does not list: UnsupportedFeatureError, valid ids, nothing sent", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    const error = await rejection(c.setSessionMode(sessionId, "yolo"));
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as UnsupportedFeatureError).validValues).toEqual(["normal", "plan"]);
    expect((error as Error).message).toContain("normal, plan");
    expect(recorder.rpcMethods()).not.toContain("session/set_mode");
  });

  it("setSessionThoughtLevel sets the thought_level option; an unknown level is refused, valid listed", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    await c.setSessionThoughtLevel(sessionId, "high");
    expect(await values(c, sessionId)).toContainEqual(["thought_level", "high"]);
    const bodies = recorder.requests.map((r) => r.body ?? "");
    const sent = bodies.find((body) => body.includes("session/set_config_option"));
    expect(JSON.parse(sent!)).toMatchObject({ params: { sessionId, configId: "thought_level", value: "high" } });
    const error = await rejection(c.setSessionThoughtLevel(sessionId, "extreme"));
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as UnsupportedFeatureError).validValues).toEqual(["low", "medium", "high"]);
  });

  it("setSessionConfigOption: an unknown option id is refused with the ids; a known one is sent", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const error = await rejection(c.setSessionConfigOption(sessionId, "temperature", "hot"));
    expect((error as UnsupportedFeatureError).validValues).toEqual(["model", "mode", "thought_level"]);
    const answer = (await c.setSessionConfigOption(sessionId, "model", "mock-fast")) as { configOptions: unknown[] };
    expect(answer.configOptions).toHaveLength(3);
    expect(await values(c, sessionId)).toContainEqual(["model", "mock-fast"]);
  });

  it("setSessionModel and setSessionMode fall back to the config option when the agent answers -32601", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const metadata = { scriptedUnsupported: ["session/set_mode", "session/set_model"] };
    const { sessionId } = await c.newSession({ metadata });
    await c.setSessionModel(sessionId, "mock-fast");
    await c.setSessionMode(sessionId, "plan");
    const methods = recorder.rpcMethods().filter((m) => m.startsWith("session/set"));
    expect(methods).toEqual([
      "session/set_model",
      "session/set_config_option",
      "session/set_mode",
      "session/set_config_option",
    ]);
    expect(await values(c, sessionId)).toEqual([
      ["model", "mock-fast"],
      ["mode", "plan"],
      ["thought_level", "low"],
    ]);
    expect((await c.getSessionModes(sessionId))?.currentModeId).toBe("plan");
  });

  it("setSessionModel uses session/set_model where the agent has it, and the model option follows", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    await c.setSessionModel(sessionId, "mock-fast");
    expect(recorder.rpcMethods().filter((m) => m.startsWith("session/set"))).toEqual(["session/set_model"]);
    expect(await values(c, sessionId)).toContainEqual(["model", "mock-fast"]);
  });

  it("setSessionModel, a model the agent does not offer: UnsupportedFeatureError with the offered ones, nothing sent", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    const refused = await rejection(c.setSessionModel(sessionId, "no-such-model"));
    expect(refused).toBeInstanceOf(UnsupportedFeatureError);
    expect((refused as UnsupportedFeatureError).validValues).toEqual(["mock", "mock-fast"]);
    expect((refused as Error).message).toContain('setSessionModel("no-such-model")');
    expect((refused as Error).message).toContain("mock, mock-fast");
    expect(recorder.rpcMethods().filter((m) => m.startsWith("session/set"))).toEqual([]);
    expect(await values(c, sessionId)).toContainEqual(["model", "mock"]);
  });

  it("keeps current from the agent's own current_mode_update and config_option_update events", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    await c.prompt(sessionId, "setmode plan");
    await c.prompt(sessionId, "setoption thought_level medium");
    expect((await c.getSessionModes(sessionId))?.currentModeId).toBe("plan");
    expect(await values(c, sessionId)).toEqual([
      ["model", "mock"],
      ["mode", "plan"],
      ["thought_level", "medium"],
    ]);
  });

  it("loadSession records the loaded session's modes and options", async () => {
    const c = await client();
    await c.loadSession("sess-loaded");
    expect((await c.getSessionModes("sess-loaded"))?.availableModes.map((m) => m.id)).toEqual(["normal", "plan"]);
    expect((await values(c, "sess-loaded")).map(([id]) => id)).toEqual(["model", "mode", "thought_level"]);
  });

  describe("setters stick where the agent does not report the change itself", () => {
    /** A session whose agent configures it as `style` says (see the scripted agent's `scriptedConfig`). */
    const scripted = async (style: "silent" | "quiet" | "stubborn") => {
      const c = await client();
      const { sessionId } = await c.newSession({ metadata: { scriptedConfig: style } });
      return { c, sessionId };
    };
    const current = async (c: SandboxAgentClient, sessionId: string) => ({
      mode: (await c.getSessionModes(sessionId))?.currentModeId,
      options: Object.fromEntries(await values(c, sessionId)),
    });

    it("an agent that reported no modes or options and answers {}: each setter's value is what the getters report", async () => {
      const { c, sessionId } = await scripted("silent");
      // Nothing of the session's own: the getters show the agent's options as the server lists them.
      expect(await current(c, sessionId)).toEqual({
        mode: "normal",
        options: { model: "mock", mode: "normal", thought_level: "low" },
      });
      await c.setSessionMode(sessionId, "plan");
      expect(await current(c, sessionId)).toEqual({
        mode: "plan",
        options: { model: "mock", mode: "plan", thought_level: "low" },
      });
      await c.setSessionModel(sessionId, "mock-fast");
      expect((await current(c, sessionId)).options.model).toBe("mock-fast");
      await c.setSessionThoughtLevel(sessionId, "high");
      expect(await current(c, sessionId)).toEqual({
        mode: "plan",
        options: { model: "mock-fast", mode: "plan", thought_level: "high" },
      });
    });

    it("an agent that reported nothing and answers {} to anything: an unknown model is refused, not recorded", async () => {
      const recorder = recordingFetch();
      const c = await client({ fetch: recorder.fetch });
      const { sessionId } = await c.newSession({ metadata: { scriptedConfig: "silent" } });
      const refused = await rejection(c.setSessionModel(sessionId, "unknown-model"));
      expect(refused).toBeInstanceOf(UnsupportedFeatureError);
      expect((refused as UnsupportedFeatureError).validValues).toEqual(["mock", "mock-fast"]);
      expect(recorder.rpcMethods().filter((m) => m.startsWith("session/set"))).toEqual([]);
      expect((await current(c, sessionId)).options.model).toBe("mock");
      // A value the agent offers is sent and sticks.
      await c.setSessionModel(sessionId, "mock-fast");
      expect((await current(c, sessionId)).options.model).toBe("mock-fast");
    });

    it("an agent that reported no modes or options: each setting can be changed multiple times", async () => {
      const { c, sessionId } = await scripted("silent");
      for (const [mode, model, level] of [
        ["plan", "mock-fast", "medium"],
        ["normal", "mock", "high"],
        ["plan", "mock-fast", "low"],
      ] as const) {
        await c.setSessionMode(sessionId, mode);
        await c.setSessionModel(sessionId, model);
        await c.setSessionThoughtLevel(sessionId, level);
        expect(await current(c, sessionId)).toEqual({
          mode,
          options: { model, mode, thought_level: level },
        });
      }
    });

    it("an agent that reported its options but answers {} and sends no update: the setters' values stick", async () => {
      const { c, sessionId } = await scripted("quiet");
      await c.setSessionMode(sessionId, "plan");
      await c.setSessionModel(sessionId, "mock-fast");
      await c.setSessionThoughtLevel(sessionId, "medium");
      expect(await current(c, sessionId)).toEqual({
        mode: "plan",
        options: { model: "mock-fast", mode: "plan", thought_level: "medium" },
      });
      await c.setSessionMode(sessionId, "normal");
      await c.setSessionModel(sessionId, "mock");
      expect(await current(c, sessionId)).toEqual({
        mode: "normal",
        options: { model: "mock", mode: "normal", thought_level: "medium" },
      });
    });

    it("an agent that reports, during the call, that nothing changed: its word stands over the requested value", async () => {
      const { c, sessionId } = await scripted("stubborn");
      // Each call's update may come before or after its answer: wait for all three, then look.
      const updates = firstValueFrom(
        c.events$.pipe(
          filter((e) => e.kind === "update" && e.update.sessionUpdate === "config_option_update"),
          take(3),
          toArray(),
          timeout(10_000),
        ),
      );
      await c.setSessionMode(sessionId, "plan");
      await c.setSessionModel(sessionId, "mock-fast");
      await c.setSessionThoughtLevel(sessionId, "high");
      await updates;
      expect(await current(c, sessionId)).toEqual({
        mode: "normal",
        options: { model: "mock", mode: "normal", thought_level: "low" },
      });
    });
  });

  it("a session the client never opened gets the agent's options from the server's agent route", async () => {
    const c = await client();
    const options = await c.getSessionConfigOptions("not-opened-here");
    expect(options.map((o) => o.category)).toEqual(["model", "mode", "thought_level"]);
    expect((await c.getSessionModes("not-opened-here"))?.currentModeId).toBe("normal");
  });

  describe("request(): the raw escape hatch", () => {
    it("sends a method the client does not wrap and returns its result, parsed by a schema when given", async () => {
      const c = await client();
      expect(await c.request("_probe/echo", { a: 1, b: ["x"] })).toEqual({ a: 1, b: ["x"] });
      const schema = v.object({ a: v.number(), b: v.array(v.string()) });
      const typed = await c.request("_probe/echo", { a: 2, b: ["y"] }, { schema });
      const sum: number = typed.a + typed.b.length;
      expect(sum).toBe(3);
    });

    it("a result that does not match the schema is a protocol error", async () => {
      const c = await client();
      const schema = v.object({ a: v.string() });
      const error = await rejection(c.request("_probe/echo", { a: 1 }, { schema }));
      expect(error).toMatchObject({ name: "SandboxAgentError", kind: "protocol" });
      expect((error as Error).message).toContain("_probe/echo");
    });

    it("the agent's errors are AgentErrors with its code; unknown methods are -32601", async () => {
      const c = await client();
      const error = await rejection(c.request("_probe/error", { code: -32042, message: "nope", data: { x: 1 } }));
      expect(error).toMatchObject({ name: "AgentError", code: -32042, data: expect.objectContaining({ x: 1 }) });
      expect(await rejection(c.request("_probe/nothing"))).toMatchObject({ name: "AgentError", code: -32601 });
    });

    it("is bounded by timeoutMs", async () => {
      const c = await client();
      const { sessionId } = await c.newSession();
      const prompt = [{ type: "text", text: "sleep 5000" }];
      const error = await rejection(c.request("session/prompt", { sessionId, prompt }, { timeoutMs: 200 }));
      expect(error).toBeInstanceOf(CallTimeoutError);
      await c.cancel(sessionId);
    });
  });

  it("the sandbox namespace carried the scripting flag to the agent (the fallback test relies on it)", async () => {
    const c = await client();
    const metadata = { scriptedUnsupported: ["session/set_mode"] };
    const handle = await c.newSession({ metadata });
    const seen = (handle.raw._meta as { seenMeta?: Record<string, Record<string, unknown>> }).seenMeta;
    expect(seen?.[SANDBOX]?.scriptedUnsupported).toEqual(["session/set_mode"]);
  });
});

describe("session configuration against the v2 contract server", () => {
  const shared = serverWithClients(v2Factory);

  it("a session reporting no options: the category setters are UnsupportedFeatureErrors listing none", async () => {
    const c = shared.client();
    await c.ready;
    const { sessionId } = await c.newSession();
    expect(await c.getSessionConfigOptions(sessionId)).toEqual([]);
    const error = await rejection(c.setSessionThoughtLevel(sessionId, "high"));
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as UnsupportedFeatureError).validValues).toEqual([]);
  });

  it("a session another client opened: no options known (v2's agent list has none), the mode is sent", async () => {
    const opener = shared.client();
    await opener.ready;
    const { sessionId } = await opener.newSession();
    const c = shared.client();
    await c.ready;
    expect(await c.getSessionConfigOptions(sessionId)).toEqual([]);
    expect(await c.getSessionModes(sessionId)).toBeNull();
    await c.setSessionMode(sessionId, "default");
  });

  it("request() reaches the v2 runtime's extension methods", async () => {
    const c = shared.client();
    await c.ready;
    const schema = v.object({ agents: v.array(v.looseObject({ id: v.string() })) });
    const result = await c.request("_sandboxagent/agent/list", {}, { schema });
    expect(result.agents.map((a) => a.id)).toContain("mock");
  });
});

describe("session configuration of a stored session resumed as a new agent session (0.4.2, no loadSession)", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];
  beforeAll(async () => {
    server = await startSandboxAgent({ env: { SCRIPTED_AGENT_NO_LOAD: "1" } });
  });
  afterAll(async () => {
    for (const c of clients) await c.disconnect().catch(() => undefined);
    await server?.stop();
  });

  it("the local id reaches the agent as the new session's id, and its options are the new session's", async () => {
    const store = memoryStore();
    const first = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store });
    clients.push(first);
    await first.ready;
    await first.newSession();
    const { sessionId: localId } = await first.newSession(); // sess-2; the next agent process starts at sess-1
    await first.disconnect();
    const recorder = recordingFetch();
    const second = new SandboxAgentClient({
      baseUrl: server.baseUrl,
      agent: "mock",
      store,
      autoConnect: false,
      fetch: recorder.fetch,
    });
    clients.push(second);
    const resumed = await second.resumeSession(localId, {}, { timeoutMs: 20_000 });
    expect(resumed?.resumedBy).toBe("replayed");
    expect(resumed?.sessionId).not.toBe(localId);
    await second.setSessionMode(localId, "plan");
    const sent = recorder.requests.map((r) => r.body ?? "").find((body) => body.includes("session/set_mode"));
    expect(JSON.parse(sent!)).toMatchObject({ params: { sessionId: resumed?.sessionId, modeId: "plan" } });
    expect((await second.getSessionModes(localId))?.currentModeId).toBe("plan");
  }, 60_000);
});
