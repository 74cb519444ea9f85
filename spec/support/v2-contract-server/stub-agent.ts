/**
 * §7 "stand-in agent process": what the tests' shell stub answers for the non-mock agents.
 * The contract server has no real agent binaries, so claude/codex/opencode/amp are served by this.
 */
import type { AgentBackend, AgentId, AgentSink } from "./agents.js";
import { asObject, stringField, type JsonObject } from "./json.js";
import { hasId, methodOf, notification } from "./jsonrpc.js";

export class StubAgent implements AgentBackend {
  constructor(
    private readonly agent: AgentId,
    private readonly emit: AgentSink,
  ) {}

  async send(message: JsonObject): Promise<void> {
    const method = methodOf(message);
    if (method === undefined) return;
    if (!hasId(message)) {
      if (method === "session/cancel") this.chunk(message.params, `${this.agent}: cancelled`);
      return;
    }
    this.emit({ jsonrpc: "2.0", id: message.id, result: this.answer(method, message.params) });
  }

  private answer(method: string, params: unknown): JsonObject {
    const a = this.agent;
    switch (method) {
      case "initialize":
        // §7 only says the stub "answers initialize"; an empty capabilities object keeps §3's injection visible.
        return { protocolVersion: asObject(params)?.protocolVersion ?? 1, agentCapabilities: {}, authMethods: [] };
      case "model/list":
        return { data: [{ model: `${a}-model`, displayName: `${a} model`, isDefault: true }], nextCursor: null };
      case "session/new":
        return { sessionId: `${a}-session-1` };
      case "session/prompt":
        this.chunk(params, `${a}: stub response`);
        return { stopReason: "end_turn" };
      default:
        return {};
    }
  }

  private chunk(params: unknown, text: string): void {
    const sessionId = stringField(params, "sessionId") ?? `${this.agent}-session-1`;
    this.emit(
      notification("session/update", {
        sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
      }),
    );
  }
}
