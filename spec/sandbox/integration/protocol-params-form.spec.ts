// The session methods the specification keeps under the protocol's names take the protocol's one
// params object as well as the client's positional arguments, against the real 0.4.2 server and its
// scripted agent: the same request goes out either way, and a first argument of neither form is a
// TypeError before anything is sent.
import { realFactory, recordingFetch, serverWithClients } from "./servers.js";
import { rejection } from "../../support/rejection.js";

/** The params of every JSON-RPC request or notification `method` sent so far. */
function sent(recorder: ReturnType<typeof recordingFetch>, method: string): Array<Record<string, unknown>> {
  return recorder.requests.flatMap((r) => {
    if (r.method !== "POST" || !r.body) return [];
    const message = JSON.parse(r.body) as { method?: string; params?: Record<string, unknown> };
    return message.method === method && message.params ? [message.params] : [];
  });
}

describe("session methods in the protocol's params form, on the real 0.4.2 server", () => {
  const { client } = serverWithClients(realFactory);

  it("prompt({ sessionId, prompt }, call) runs the turn and sends the same params as prompt(id, prompt)", async () => {
    const recorder = recordingFetch();
    const c = client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    const blocks = [{ type: "text", text: "hi" }];
    const outcome = await c.prompt({ sessionId, prompt: blocks, _meta: { trace: "t1" } }, { timeoutMs: 15_000 });
    expect(outcome.stopReason).toBe("end_turn");
    await c.prompt(sessionId, blocks, { timeoutMs: 15_000 });
    expect(sent(recorder, "session/prompt")).toEqual([
      { sessionId, prompt: blocks },
      { sessionId, prompt: blocks },
    ]);
  }, 30_000);

  it("setSessionMode, setSessionModel, setSessionConfigOption and cancel take the params object", async () => {
    const recorder = recordingFetch();
    const c = client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    await c.setSessionMode({ sessionId, modeId: "plan" }, { timeoutMs: 10_000 });
    expect((await c.getSessionModes(sessionId))?.currentModeId).toBe("plan");
    await c.setSessionModel({ sessionId, modelId: "mock-fast" });
    await c.setSessionConfigOption({ sessionId, configId: "thought_level", value: "high" });
    const options = await c.getSessionConfigOptions(sessionId);
    expect(options.map((o) => [o.id, o.currentValue])).toEqual([
      ["model", "mock-fast"],
      ["mode", "plan"],
      ["thought_level", "high"],
    ]);
    await c.cancel({ sessionId });
    expect(sent(recorder, "session/set_mode")).toEqual([{ sessionId, modeId: "plan" }]);
    expect(sent(recorder, "session/set_model")).toEqual([{ sessionId, modelId: "mock-fast" }]);
    expect(sent(recorder, "session/cancel")).toEqual([{ sessionId }]);
  }, 30_000);

  it("loadSession, resumeSession and forkSession read sessionId, cwd and additionalDirectories from it", async () => {
    const recorder = recordingFetch();
    const c = client({ fetch: recorder.fetch });
    const unrecorded = (await c.request("session/new", { cwd: "/tmp", mcpServers: [] })) as { sessionId: string };
    const loaded = await c.loadSession({ sessionId: unrecorded.sessionId, cwd: "/tmp", mcpServers: [] });
    expect(loaded.sessionId).toBe(unrecorded.sessionId);
    expect(sent(recorder, "session/load")).toEqual([
      expect.objectContaining({ sessionId: unrecorded.sessionId, cwd: "/tmp", mcpServers: [] }),
    ]);
    const other = (await c.request("session/new", { cwd: "/tmp", mcpServers: [] })) as { sessionId: string };
    const place = { cwd: "/tmp", additionalDirectories: ["/tmp/d"] };
    await expect(c.resumeSession({ sessionId: other.sessionId, ...place })).resolves.toBeUndefined();
    expect(sent(recorder, "session/resume")).toEqual([
      expect.objectContaining({ sessionId: other.sessionId, ...place }),
    ]);
    // The scripted agent has no session/fork: its refusal shows the request went out with a string id.
    await rejection(c.forkSession({ sessionId: other.sessionId, cwd: "/tmp" }));
    expect(sent(recorder, "session/fork")).toEqual([
      expect.objectContaining({ sessionId: other.sessionId, cwd: "/tmp" }),
    ]);
  }, 30_000);

  it("listModels and deleteSession take { sessionId } and send the string id", async () => {
    const recorder = recordingFetch();
    const c = client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    expect(await c.listModels({ sessionId })).toEqual(await c.listModels(sessionId));
    await c.deleteSession({ sessionId });
    expect(sent(recorder, "session/delete")).toEqual([{ sessionId }]);
  }, 30_000);

  it("a first argument of neither form is a TypeError naming it, and nothing is sent", async () => {
    const recorder = recordingFetch();
    const c = client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    const before = recorder.requests.length;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["prompt", () => c.prompt(42 as never, "hi")],
      ["prompt", () => c.prompt({ sessionId: { sessionId } } as never)],
      ["prompt", () => c.prompt({ sessionId } as never)],
      ["loadSession", () => c.loadSession(null as never)],
      ["cancel", () => c.cancel([sessionId] as never)],
      ["setSessionMode", () => c.setSessionMode({ sessionId } as never)],
      ["setSessionConfigOption", () => c.setSessionConfigOption({ sessionId, configId: "mode" } as never)],
      ["setSessionModel", () => c.setSessionModel(undefined as never, "mock-fast")],
      ["forkSession", () => c.forkSession(7 as never)],
      ["resumeSession", () => c.resumeSession({ id: sessionId } as never)],
      ["deleteSession", () => c.deleteSession(1 as never)],
      ["listModels", () => c.listModels({} as never)],
      ["setMetadata", () => c.setMetadata({ sessionId } as never)],
      ["detachSession", () => c.detachSession(null as never)],
      ["terminateSession", () => c.terminateSession({ sessionId: 3 } as never)],
    ];
    for (const [method, call] of calls) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(new RegExp(`^${method}: the (first argument|params object)`));
    }
    expect(recorder.requests.length).toBe(before);
  }, 30_000);
});
