// A stored session's history (history$: stored envelopes, then live ones) as transcript entries:
// the agent's session/update notifications and the user's own session/prompt requests.
import type { HistoryEvent, SandboxEvent } from "sandbox-agent-rx";
import type { LocalEntry } from "./transcript-model.js";

type Params = { sessionId?: unknown; update?: unknown; prompt?: unknown };

export function historyEntry(event: HistoryEvent): SandboxEvent | LocalEntry | undefined {
  const payload = event.payload as { method?: unknown; params?: Params };
  const params = payload.params ?? {};
  if (payload.method === "session/prompt" && event.sender === "client" && Array.isArray(params.prompt)) {
    const text = (params.prompt as Array<{ type?: unknown; text?: unknown }>)
      .filter((block) => block.type === "text" && typeof block.text === "string")
      .map((block) => block.text)
      .join("\n");
    return { kind: "user-prompt", text };
  }
  if (payload.method !== "session/update") return undefined;
  if (typeof params.update !== "object" || params.update === null) return undefined;
  const update = params.update as { sessionUpdate?: unknown; content?: unknown };
  if (typeof update.sessionUpdate !== "string") return undefined;
  // Chunks without content would not render; the reducer expects the shape the SDK's schema checks.
  if (update.sessionUpdate.endsWith("_chunk") && (typeof update.content !== "object" || update.content === null)) {
    return undefined;
  }
  return { kind: "update", sessionId: String(params.sessionId ?? ""), update } as SandboxEvent;
}
