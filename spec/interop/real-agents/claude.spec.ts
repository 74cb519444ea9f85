/**
 * Claude Code (claude-agent-acp with the Claude Code it bundles) through the real sandbox-agent 0.4.2
 * server, as `agent: "claude"`, driven by SandboxAgentClient; the model is the scripted Anthropic
 * Messages endpoint on loopback (spec/support/scripted-model.ts). One server for the whole file.
 */
import { SandboxAgentClient, type SandboxEvent } from "../../../lib/sandbox/index.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import {
  REAL_AGENT_INSTALL_TIMEOUT_MS,
  realAgentComponent,
  startRealAgentServer,
  type RealAgentServer,
} from "../../support/real-agents.js";
import { describeWith } from "../../support/system-component.js";

describeWith([realAgentComponent("claude")])("Claude Code through the real sandbox-agent 0.4.2", () => {
  let model: ScriptedModel;
  let agents: RealAgentServer;
  const clients: SandboxAgentClient[] = [];

  beforeAll(async () => {
    model = await startScriptedModel();
    agents = await startRealAgentServer(model, ["claude"]);
  }, REAL_AGENT_INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.disconnect().catch(() => undefined)));
    await agents?.stop();
    await model?.stop();
  });

  const connect = async (options: Partial<ConstructorParameters<typeof SandboxAgentClient>[0]> = {}) => {
    const client = new SandboxAgentClient({ baseUrl: agents.server.baseUrl, agent: "claude", ...options });
    clients.push(client);
    await client.ready;
    return client;
  };

  it("a text turn streams the scripted text in order; prompt() resolves after the last update", async () => {
    model.script("hello-text", [{ blocks: [{ type: "text", chunks: ["Hello", " from", " the", " scripted", " model."] }] }]);
    const client = await connect();
    const { sessionId } = await client.newSession({ cwd: agents.server.home });
    const events: SandboxEvent[] = [];
    const sub = client.events$.subscribe((e) => events.push(e));
    const outcome = await client.prompt(sessionId, "hello-text: say hello");
    const atResolve = events.length;
    sub.unsubscribe();
    expect(outcome.stopReason).toBe("end_turn");
    const text = events.flatMap((e) =>
      e.kind === "update" && e.update.sessionUpdate === "agent_message_chunk" && e.update.content.type === "text"
        ? [e.update.content.text] : []);
    expect(text.join("")).toBe("Hello from the scripted model.");
    expect(atResolve).toBe(events.length);
  });
});
