// What the real-agent suites share: one recorder of a client's events, the text of a session's
// message chunks, and a permission handler a test answers by hand (in any order).
import type {
  PermissionReply,
  PermissionRequest,
  SandboxAgentClient,
  SandboxEvent,
} from "../../../lib/sandbox/index.js";

/** Every event of `client` from now on, with a way to wait for one. */
export function recordEvents(client: SandboxAgentClient) {
  const events: SandboxEvent[] = [];
  const subscription = client.events$.subscribe((event) => events.push(event));
  return {
    events,
    stop: () => subscription.unsubscribe(),
    /** Resolves once an event passes `check`, bounded by `timeoutMs`. */
    async waitFor(check: (event: SandboxEvent) => boolean, what: string, timeoutMs = 20_000): Promise<SandboxEvent> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(check);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** The text of `sessionUpdate` chunks (agent_message_chunk by default) of one session, in order. */
export function chunkText(events: readonly SandboxEvent[], sessionId: string, kind = "agent_message_chunk"): string {
  return events
    .flatMap((e) => {
      if (e.kind !== "update" || e.sessionId !== sessionId || e.update.sessionUpdate !== kind) return [];
      const content = (e.update as { content?: { type?: string; text?: string } }).content;
      return content?.type === "text" && content.text ? [content.text] : [];
    })
    .join("");
}

/** Tool call updates of a session, merged by id (the latest fields win). */
export function toolCalls(events: readonly SandboxEvent[], sessionId: string): Map<string, Record<string, unknown>> {
  const calls = new Map<string, Record<string, unknown>>();
  for (const e of events) {
    if (e.kind !== "update" || e.sessionId !== sessionId) continue;
    const update = e.update as Record<string, unknown> & { sessionUpdate: string; toolCallId?: string };
    const isTool = update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update";
    if (!isTool || !update.toolCallId) continue;
    calls.set(update.toolCallId, { ...calls.get(update.toolCallId), ...update });
  }
  return calls;
}

/** A permission handler whose answers a test gives by hand, once the requests are open. */
export function manualPermissions() {
  const open: Array<{ request: PermissionRequest; answer: (reply: PermissionReply) => void }> = [];
  const asked: PermissionRequest[] = [];
  return {
    asked,
    open,
    handler: (request: PermissionRequest) =>
      new Promise<PermissionReply>((resolve) => {
        asked.push(request);
        open.push({ request, answer: resolve });
      }),
    async waitOpen(count: number, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (open.length < count) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} open permission requests`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** The option of `kind` the agent offered (its own id). */
export function optionOf(request: PermissionRequest, kind: string): PermissionReply {
  const option = request.options.find((o) => o.kind === kind);
  if (!option) throw new Error(`no ${kind} option among ${request.options.map((o) => o.kind).join(", ")}`);
  return { outcome: "selected", optionId: option.optionId };
}
