/** §7: the built-in mock agent, run in-process. */
import type { AgentBackend, AgentSink } from "./agents.js";
import { sleep } from "./agents.js";
import { asObject, isObject, stringField, type JsonObject } from "./json.js";
import { hasId, methodOf, notification } from "./jsonrpc.js";

const DEFAULT_SESSION = "mock-session-1";

/** §7 step 6: words keep one trailing space except the last; runs of whitespace collapse. */
export function splitChunks(text: string): string[] {
  const words = text.split(/\s+/).filter((word) => word.length > 0);
  return words.map((word, index) => (index < words.length - 1 ? `${word} ` : word));
}

function textChunk(sessionId: string, text: string): JsonObject {
  return notification("session/update", {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });
}

function promptText(params: unknown): string {
  const blocks = asObject(params)?.prompt;
  if (!Array.isArray(blocks)) return "";
  return blocks
    .filter((block): block is JsonObject => isObject(block) && block.type === "text" && typeof block.text === "string")
    .map((block) => String(block.text))
    .join("\n");
}

export class MockAgent implements AgentBackend {
  // §7: server-global state.
  private sessionCounter = 0;
  private permissionCounter = 0;
  private readonly sessions = new Set<string>();
  private readonly ended = new Set<string>();

  constructor(
    private readonly emit: AgentSink,
    private readonly chunkDelayMs: number,
  ) {}

  async send(message: JsonObject): Promise<void> {
    const method = methodOf(message);
    if (method === undefined) return; // responses (e.g. permission answers) are ignored
    if (!hasId(message)) return this.onNotification(method, message.params);
    const reply = await this.onRequest(method, message.params);
    this.emit({ jsonrpc: "2.0", id: message.id, ...reply });
  }

  private onNotification(method: string, params: unknown): void {
    if (method !== "session/cancel") return;
    this.emit(textChunk(stringField(params, "sessionId") ?? DEFAULT_SESSION, "cancelled"));
  }

  private async onRequest(method: string, params: unknown): Promise<JsonObject> {
    switch (method) {
      case "initialize":
        return { result: this.initialize(params) };
      case "session/new":
        return { result: this.newSession() };
      case "session/prompt":
        return this.prompt(params);
      case "session/fork":
      case "session/resume":
      case "session/load":
        return { result: this.reopen(params) };
      case "session/set_mode":
      case "session/set_model":
      case "session/set_config_option":
      case "authenticate":
      case "$/cancel_request":
        return { result: {} };
      case "session/list":
        // Unreachable through the runtime, which answers session/list itself (§6).
        return { result: { sessions: [...this.sessions].map((sessionId) => ({ sessionId, cwd: "/" })), nextCursor: null } };
      default:
        // §7: `_sandboxagent/session/terminate` has a handler in the mock but the runtime intercepts it,
        // so it falls into this echo like every other method.
        return { result: { _meta: { "sandboxagent.dev": { mockMethod: method, echoParams: params ?? null } } } };
    }
  }

  private initialize(params: unknown): JsonObject {
    const requested = asObject(params)?.protocolVersion;
    return {
      protocolVersion: requested ?? "1.0",
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false },
        canSetMode: true,
        canSetModel: true,
        sessionCapabilities: { list: {} },
      },
      authMethods: [],
    };
  }

  private newSession(): JsonObject {
    const sessionId = `mock-session-${++this.sessionCounter}`;
    this.markLive(sessionId);
    return { sessionId, availableModes: [], configOptions: [] };
  }

  private reopen(params: unknown): JsonObject {
    const sessionId = stringField(params, "sessionId") ?? DEFAULT_SESSION;
    this.markLive(sessionId);
    return { sessionId, configOptions: [], availableModes: [] };
  }

  private markLive(sessionId: string): void {
    this.sessions.add(sessionId);
    this.ended.delete(sessionId);
  }

  /** §7 prompt algorithm, steps 1-6. */
  private async prompt(params: unknown): Promise<JsonObject> {
    const sessionId = stringField(params, "sessionId") ?? this.sessions.values().next().value ?? DEFAULT_SESSION;
    this.sessions.add(sessionId);
    if (this.ended.has(sessionId)) return errorBody(-32000, "session already ended");

    const text = promptText(params);
    const reply = text.trim() === "" ? "OK" : `mock: ${text}`;
    const lowered = text.toLowerCase();
    if (lowered.includes("permission")) this.emit(this.permissionRequest(sessionId));
    if (lowered.includes("crash")) return this.crash(sessionId);

    const chunks = splitChunks(reply);
    for (const [index, chunk] of chunks.entries()) {
      if (index > 0) await sleep(this.chunkDelayMs);
      this.emit(textChunk(sessionId, chunk));
    }
    return { result: { stopReason: "end_turn" } };
  }

  /** §7 step 4: deliberately not ACP-valid options; the mock never waits for the answer. */
  private permissionRequest(sessionId: string): JsonObject {
    return {
      jsonrpc: "2.0",
      id: `mock-permission-${++this.permissionCounter}`,
      method: "session/request_permission",
      params: {
        sessionId,
        options: [
          { id: "allow_once", name: "Allow once" },
          { id: "deny", name: "Deny" },
        ],
        toolCall: { toolCallId: "tool-call-1", kind: "execute", status: "pending", rawInput: { command: "echo test" } },
      },
    };
  }

  /** §7 step 5: the ended notification carries no params.sessionId, so §1.4 sends it to every mock connection. */
  private crash(sessionId: string): JsonObject {
    this.ended.add(sessionId);
    this.emit(
      notification("_sandboxagent/session/ended", {
        session_id: sessionId,
        data: {
          reason: "error",
          terminated_by: "agent",
          message: "mock process crashed",
          exit_code: 1,
          stderr: { head: "mock stderr line 1\nmock stderr line 2", truncated: false, total_lines: 2 },
        },
      }),
    );
    return errorBody(-32000, "mock process crashed");
  }
}

function errorBody(code: number, message: string): JsonObject {
  return { error: { code, message } };
}
