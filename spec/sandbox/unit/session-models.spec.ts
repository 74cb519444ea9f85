// The models a session offers, read from its creation answer's `models` (agents that list models
// there rather than as a `model` config option): setSessionModel refuses any other before sending.
import { Subject } from "rxjs";
import { UnsupportedFeatureError } from "../../../lib/sandbox/index.js";
import { SessionSettings } from "../../../lib/sandbox/sessions/session-config.js";
import type { ConnectionLifecycle } from "../../../lib/sandbox/connection/lifecycle.js";
import type { ServerRoutes } from "../../../lib/sandbox/server/server-routes.js";
import type { SessionRecording } from "../../../lib/sandbox/sessions/session-recording.js";

function settings() {
  const sent: string[] = [];
  const lifecycle = {
    events$: new Subject(),
    with: async (name: string) => {
      sent.push(name);
      return {};
    },
  } as unknown as ConnectionLifecycle;
  const server = { getAgent: async () => ({ configOptions: [] }) } as unknown as ServerRoutes;
  const recording = { configChanged: () => undefined } as unknown as SessionRecording;
  return { sent, config: new SessionSettings({ baseUrl: "http://127.0.0.1:9", agent: "claude" }, lifecycle, server, recording) };
}

describe("setSessionModel with the models of the session's creation answer", () => {
  it("refuses a model not listed, with the listed ones, and sends nothing; a listed one is sent", async () => {
    const { sent, config } = settings();
    const models = { currentModelId: "m1", availableModels: [{ modelId: "m1", name: "One" }, { modelId: "m2" }] };
    config.record("s1", { sessionId: "s1", models });
    const refused = await config.setModel("s1", "m9").then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(UnsupportedFeatureError);
    expect((refused as UnsupportedFeatureError).validValues).toEqual(["m1", "m2"]);
    expect(sent).toEqual([]);
    await config.setModel("s1", "m2");
    expect(sent).toHaveLength(1);
  });

  it("sends any model when the agent lists none (nothing to check against)", async () => {
    const { sent, config } = settings();
    config.record("s1", { sessionId: "s1" });
    await config.setModel("s1", "anything");
    expect(sent).toHaveLength(1);
  });
});
