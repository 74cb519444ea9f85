import { from, lastValueFrom, toArray } from "rxjs";
import {
  groupEntries,
  toTranscript,
  transcriptOf,
  type MessageEntry,
  type PermissionEntry,
  type SandboxEvent,
  type ToolCallEntry,
  type TranscriptNote,
  type TranscriptSource,
} from "../../../lib/sandbox/index.js";
import type { HistoryEvent } from "../../../lib/sandbox/persistence/index.js";
import { TranscriptBuilder } from "../../../lib/sandbox/transcript/index.js";

const S = "sess-1";
const clock = () => {
  let t = 1000;
  return () => t++;
};
const update = (u: Record<string, unknown>): SandboxEvent =>
  ({ kind: "update", sessionId: S, update: u }) as unknown as SandboxEvent;
const text = (sessionUpdate: string, t: string, extra: Record<string, unknown> = {}) =>
  update({ sessionUpdate, content: { type: "text", text: t }, ...extra });
const prompt = (t: string): TranscriptNote => ({ kind: "prompt-sent", sessionId: S, prompt: [{ type: "text", text: t }] });
const turnEnd = (stopReason = "end_turn"): TranscriptNote => ({ kind: "turn-ended", sessionId: S, stopReason });
const permission = (toolCallId: string): SandboxEvent => ({
  kind: "permission-request",
  sessionId: S,
  toolCall: { toolCallId, title: "Edit file" },
  options: [
    { optionId: "allow", name: "Allow", kind: "allow_once" },
    { optionId: "deny", name: "Deny", kind: "reject_once" },
  ],
});
const build = (events: TranscriptSource[]) => transcriptOf(events, { now: clock() });

describe("the transcript model", () => {
  it("starts empty and idle", () => {
    const t = build([]);
    expect(t.size).toBe(0);
    expect(t.entries).toEqual([]);
    expect(t.isRunning).toBe(false);
    expect(t.pendingPermission).toBeUndefined();
  });

  it("shows what the user sent as a user message, and the agent's replayed user text marked as replayed", () => {
    const t = build([
      prompt("Fix the build"),
      text("user_message_chunk", "from before"),
      text("user_message_chunk", " the reload"),
    ]);
    const [sent, replayed] = t.entries as MessageEntry[];
    expect(sent).toMatchObject({ kind: "user-message", text: "Fix the build", replayed: false });
    expect(replayed).toMatchObject({ kind: "user-message", text: "from before the reload", replayed: true, chunks: 2 });
  });

  it("takes an agent's echo of the prompt just sent as that prompt, not as replayed text", () => {
    const t = build([
      prompt("hello there"),
      text("user_message_chunk", "hello "),
      text("user_message_chunk", "there"),
      text("agent_message_chunk", "hi"),
      text("user_message_chunk", "hello there"),
    ]);
    expect(t.entries.map((e) => [e.kind, (e as MessageEntry).replayed])).toEqual([
      ["user-message", false],
      ["agent-message", false],
      ["user-message", true],
    ]);
  });

  it("adds no entry for an empty text chunk, and takes the usage an update carries in _meta", () => {
    const t = build([
      prompt("go"),
      update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Write" }),
      text("agent_message_chunk", "", { _meta: { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } } }),
    ]);
    expect(t.entries.map((e) => e.kind)).toEqual(["user-message", "tool-call"]);
    expect(t.usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
  });

  it("coalesces agent message chunks into one entry, images and resource links as their own content blocks", () => {
    const image = { type: "image", mimeType: "image/png", data: "AAAA" };
    const link = { type: "resource_link", uri: "file:///a.ts", name: "a.ts" };
    const t = build([
      prompt("hi"),
      text("agent_message_chunk", "Hello"),
      text("agent_message_chunk", ", "),
      update({ sessionUpdate: "agent_message_chunk", content: image }),
      text("agent_message_chunk", "world"),
      update({ sessionUpdate: "agent_message_chunk", content: link }),
    ]);
    expect(t.size).toBe(2);
    const message = t.at(1) as MessageEntry;
    expect(message.kind).toBe("agent-message");
    expect(message.text).toBe("Hello, world");
    expect(message.content).toEqual([{ type: "text", text: "Hello, " }, image, { type: "text", text: "world" }, link]);
  });

  it("starts a new message when the agent's messageId changes, or after another entry", () => {
    const t = build([
      text("agent_message_chunk", "a", { messageId: "m1" }),
      text("agent_message_chunk", "b", { messageId: "m2" }),
      update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read" }),
      text("agent_message_chunk", "c"),
    ]);
    expect(t.entries.map((e) => e.kind)).toEqual(["agent-message", "agent-message", "tool-call", "agent-message"]);
    expect(t.entries.map((e) => (e.kind === "tool-call" ? null : (e as MessageEntry).text))).toEqual(["a", "b", null, "c"]);
  });

  it("coalesces thought chunks and says the agent is thinking while the latest entry is a thought", () => {
    const builder = new TranscriptBuilder({ now: clock() });
    builder.push(prompt("think"));
    builder.push(text("agent_thought_chunk", "Let me "));
    const thinking = builder.push(text("agent_thought_chunk", "see"));
    expect(thinking.at(-1)).toMatchObject({ kind: "thought", text: "Let me see" });
    expect(thinking.isThinking).toBe(true);
    const answering = builder.push(text("agent_message_chunk", "Done"));
    expect(answering.isThinking).toBe(false);
    expect(answering.isRunning).toBe(true);
  });

  it("merges a tool call with its updates by toolCallId: status, content with diffs and terminals, locations, raw in/out, times", () => {
    const now = clock();
    const t = transcriptOf(
      [
        update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Edit greeting", kind: "edit", status: "pending", rawInput: { path: "a.ts" } }),
        update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress", locations: [{ path: "/w/a.ts", line: 3 }] }),
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          status: "completed",
          content: [
            { type: "diff", path: "/w/a.ts", oldText: "a", newText: "b" },
            { type: "terminal", terminalId: "term-1" },
            { type: "content", content: { type: "text", text: "ok" } },
          ],
          rawOutput: { ok: true },
        }),
      ],
      { now },
    );
    expect(t.size).toBe(1);
    const tool = t.at(0) as ToolCallEntry;
    expect(tool).toMatchObject({
      kind: "tool-call",
      id: "tool:sess-1:t1",
      toolCallId: "t1",
      title: "Edit greeting",
      toolKind: "edit",
      status: "completed",
      locations: [{ path: "/w/a.ts", line: 3 }],
      rawInput: { path: "a.ts" },
      rawOutput: { ok: true },
      startedAt: 1000,
      endedAt: 1002,
      updates: 3,
    });
    expect(tool.diffs).toEqual([{ path: "/w/a.ts", oldText: "a", newText: "b" }]);
    expect(tool.terminals).toEqual(["term-1"]);
    expect(tool.content).toHaveLength(3);
  });

  it("replaces the plan wholesale within a turn and starts a new plan entry in the next turn", () => {
    const plan = (...items: string[]) => update({ sessionUpdate: "plan", entries: items.map((content) => ({ content, status: "pending" })) });
    const t = build([prompt("one"), plan("a", "b"), plan("a"), turnEnd(), prompt("two"), plan("c")]);
    const plans = t.entries.filter((e) => e.kind === "plan");
    expect(plans).toHaveLength(2);
    expect(plans[0]).toMatchObject({ entries: [{ content: "a" }] });
    expect(plans[1]).toMatchObject({ entries: [{ content: "c" }] });
    expect(t.plan).toEqual([{ content: "c", status: "pending" }]);
  });

  it("follows a permission request from pending to selected, cancelled or withdrawn", () => {
    const builder = new TranscriptBuilder({ now: clock() });
    builder.push(prompt("go"));
    const asked = builder.push(permission("t1"));
    expect(asked.pendingPermission).toMatchObject({ kind: "permission", toolCallId: "t1", status: "pending" });
    expect(asked.pendingPermission?.options.map((o) => o.optionId)).toEqual(["allow", "deny"]);
    const selected = builder.push({ kind: "permission-answered", sessionId: S, toolCallId: "t1", outcome: "selected", optionId: "allow" });
    expect(selected.pendingPermission).toBeUndefined();
    expect(selected.at(-1)).toMatchObject({ status: "selected", optionId: "allow" });
    expect((selected.at(-1) as PermissionEntry).answeredAt).toBeDefined();

    builder.push(permission("t2"));
    const cancelled = builder.push({ kind: "permission-answered", sessionId: S, toolCallId: "t2", outcome: "cancelled" });
    expect(cancelled.at(-1)).toMatchObject({ status: "cancelled" });
    builder.push(permission("t3"));
    const withdrawn = builder.push({ kind: "permission-answered", sessionId: S, toolCallId: "t3", outcome: "withdrawn" });
    expect(withdrawn.at(-1)).toMatchObject({ status: "withdrawn" });
    // One still open when the turn ends went with it.
    builder.push(permission("t4"));
    const ended = builder.push(turnEnd("cancelled"));
    expect(ended.get(ended.at(-2)!.id)).toMatchObject({ toolCallId: "t4", status: "withdrawn" });
    expect(ended.pendingPermission).toBeUndefined();
  });

  it("records mode, config and model changes and keeps the current mode and model", () => {
    const t = build([
      update({ sessionUpdate: "current_mode_update", currentModeId: "plan" }),
      update({
        sessionUpdate: "config_option_update",
        configOptions: [
          { id: "model", category: "model", currentValue: "mock" },
          { id: "mode", category: "mode", currentValue: "plan" },
        ],
      }),
      update({
        sessionUpdate: "config_option_update",
        configOptions: [{ id: "model", category: "model", currentValue: "mock-fast" }],
      }),
    ]);
    // The first model named is the session's, not a change; the next one is.
    expect(t.entries.map((e) => e.kind)).toEqual(["mode-change", "config-change", "config-change", "model-change"]);
    expect(t.currentModeId).toBe("plan");
    expect(t.currentModelId).toBe("mock-fast");
    expect(t.at(3)).toMatchObject({ modelId: "mock-fast" });
  });

  it("keeps available commands, session info, gaps, turn ends with their stop reason, the session's end and agent errors", () => {
    const t = build([
      update({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "web", description: "search" }] }),
      update({ sessionUpdate: "session_info_update", title: "Fixing" }),
      prompt("go"),
      { kind: "events-lost", stream: "connection", firstMissing: 4, lastMissing: 9 },
      { kind: "parse-error", source: "agent", raw: "<<junk>>", error: "not JSON", sessionId: S },
      turnEnd("max_tokens"),
      prompt("again"),
      { kind: "turn-failed", sessionId: S, message: "prompt failed: boom (code -32000)", code: -32000 },
      { kind: "session-ended", sessionId: S, reason: "completed", terminatedBy: "agent" },
      // The client's own ending after the agent exits repeats it: one entry.
      { kind: "session-ended", sessionId: S, reason: "error", terminatedBy: "agent" },
    ]);
    expect(t.entries.map((e) => e.kind)).toEqual([
      "available-commands",
      "session-info",
      "user-message",
      "events-lost",
      "agent-error",
      "turn-end",
      "user-message",
      "agent-error",
      "session-ended",
    ]);
    expect(t.at(0)).toMatchObject({ commands: [{ name: "web" }] });
    expect(t.title).toBe("Fixing");
    expect(t.at(3)).toMatchObject({ firstMissing: 4, lastMissing: 9 });
    expect(t.at(4)).toMatchObject({ source: "output", message: "not JSON" });
    expect(t.at(5)).toMatchObject({ stopReason: "max_tokens" });
    expect(t.at(7)).toMatchObject({ source: "prompt", code: -32000 });
    expect(t.ended).toMatchObject({ reason: "completed" });
    expect(t.isRunning).toBe(false);
  });

  it("keeps update kinds it does not know as raw entries, never dropping them", () => {
    const odd = { sessionUpdate: "vendor_widget", payload: { x: 1 } };
    const t = build([
      { kind: "unknown-update", sessionId: S, update: odd },
      { kind: "notification", method: "_vendor/ping", params: { sessionId: S }, sessionId: S },
    ]);
    expect(t.at(0)).toMatchObject({ kind: "raw", type: "vendor_widget", value: odd });
    expect(t.at(1)).toMatchObject({ kind: "raw", type: "_vendor/ping" });
  });

  it("reports token usage from the turn's result and the context window updates", () => {
    const t = build([
      prompt("go"),
      { kind: "unknown-update", sessionId: S, update: { sessionUpdate: "usage_update", used: 1200, size: 200000, cost: { amount: 0.5, currency: "USD" } } },
      { kind: "turn-ended", sessionId: S, stopReason: "end_turn", usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30 } },
    ]);
    expect(t.usage).toEqual({ contextUsed: 1200, contextSize: 200000, cost: { amount: 0.5, currency: "USD" }, inputTokens: 10, outputTokens: 20, totalTokens: 30 });
  });

  it("is running from a prompt to its turn's end", () => {
    const builder = new TranscriptBuilder();
    expect(builder.snapshot.isRunning).toBe(false);
    expect(builder.push(prompt("go")).isRunning).toBe(true);
    expect(builder.push(text("agent_message_chunk", "x")).isRunning).toBe(true);
    expect(builder.push(turnEnd()).isRunning).toBe(false);
  });

  it("reads stored history envelopes as the events and notes they were live", () => {
    let index = 0;
    const stored = (sender: "client" | "agent", payload: Record<string, unknown>): HistoryEvent => ({
      id: `e${++index}`,
      sessionId: "local-1",
      createdAt: 5000 + index,
      connectionId: "c",
      sender,
      payload: { jsonrpc: "2.0", ...payload },
      eventIndex: index,
    });
    const t = build([
      stored("client", { method: "session/prompt", params: { sessionId: S, prompt: [{ type: "text", text: "hi" }] } }),
      stored("agent", { method: "session/update", params: { sessionId: S, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hey" } } } }),
      stored("agent", { id: 7, method: "session/request_permission", params: { sessionId: S, toolCall: { toolCallId: "t1" }, options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }] } }),
      stored("client", { result: { outcome: { outcome: "selected", optionId: "allow" } }, _meta: { "sandbox-agent-rx/permission": { toolCallId: "t1", outcome: "selected", optionId: "allow" } } }),
      stored("agent", { result: { stopReason: "end_turn" } }),
      stored("agent", { method: "_sandboxagent/session/ended", params: { session_id: S, data: { reason: "completed" } } }),
    ]);
    expect(t.entries.map((e) => e.kind)).toEqual(["user-message", "agent-message", "permission", "turn-end", "session-ended"]);
    expect(t.at(0)).toMatchObject({ text: "hi", at: 5001 });
    expect(t.at(2)).toMatchObject({ status: "selected", optionId: "allow" });
    expect(t.ended).toMatchObject({ reason: "completed" });
  });

  it("groups the activity between messages with a summary, and finds an entry's index by id", () => {
    const t = build([
      prompt("go"),
      text("agent_thought_chunk", "hmm"),
      update({ sessionUpdate: "tool_call", toolCallId: "a", title: "Read", status: "completed" }),
      update({ sessionUpdate: "tool_call", toolCallId: "b", title: "Run", status: "in_progress" }),
      update({ sessionUpdate: "tool_call", toolCallId: "c", title: "Write", status: "failed" }),
      text("agent_message_chunk", "Done"),
      turnEnd(),
    ]);
    const groups = groupEntries(t.entries);
    expect(groups.map((g) => g.kind)).toEqual(["message", "activity", "message", "activity"]);
    const activity = groups[1] as Extract<(typeof groups)[number], { kind: "activity" }>;
    expect(activity.id).toBe(t.at(1)!.id);
    expect(activity.summary).toMatchObject({ toolCalls: 3, running: 1, failed: 1, thoughts: 1, other: 0 });
    expect(activity.summary.text).toBe("3 tool calls (1 running, 1 failed), 1 thought");
    expect(groups[3]).toMatchObject({ summary: { text: "1 other event" } });
    expect(t.indexOf("tool:sess-1:b")).toBe(3);
    expect(t.indexOf("nope")).toBe(-1);
  });

  describe("structural sharing", () => {
    it("makes only the changed entry a new object; every other entry is the same object", () => {
      const builder = new TranscriptBuilder();
      builder.push(prompt("go"));
      builder.push(update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Run" }));
      builder.push(text("agent_message_chunk", "a"));
      const before = builder.snapshot;
      const after = builder.push(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }));
      expect(after).not.toBe(before);
      expect(after.at(0)).toBe(before.at(0));
      expect(after.at(1)).not.toBe(before.at(1));
      expect(after.at(2)).toBe(before.at(2));
      // The old snapshot is unchanged.
      expect((before.at(1) as ToolCallEntry).status).toBe("pending");
      expect((after.at(1) as ToolCallEntry).status).toBe("completed");
    });

    it("keeps an older snapshot's message text when later chunks arrive", () => {
      const builder = new TranscriptBuilder();
      const one = builder.push(text("agent_message_chunk", "one"));
      const two = builder.push(text("agent_message_chunk", " two"));
      expect((one.at(0) as MessageEntry).text).toBe("one");
      expect((two.at(0) as MessageEntry).text).toBe("one two");
      expect(one.size).toBe(1);
      expect(one.get(two.at(0)!.id)).toBe(one.at(0));
    });

    it("reads a finished message the same after it is compacted, in every snapshot that holds a version of it", () => {
      const image = { type: "image", mimeType: "image/png", data: "AAAA" };
      const builder = new TranscriptBuilder();
      const early = builder.push(text("agent_message_chunk", "a"));
      builder.push(text("agent_message_chunk", "b"));
      builder.push(update({ sessionUpdate: "agent_message_chunk", content: image }));
      const full = builder.push(text("agent_message_chunk", "c"));
      const message = full.at(0) as MessageEntry;
      const after = builder.push(update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Run" }));
      expect(after.at(0)).toBe(message);
      expect(message.text).toBe("abc");
      expect(message.content).toEqual([{ type: "text", text: "ab" }, image, { type: "text", text: "c" }]);
      expect(message.chunks).toBe(4);
      expect((early.at(0) as MessageEntry).text).toBe("a");
      expect((early.at(0) as MessageEntry).content).toEqual([{ type: "text", text: "a" }]);
    });

    it("gives a chunk's snapshot its own message version, one object whether read early or late", () => {
      const usage = { _meta: { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } } };
      const builder = new TranscriptBuilder();
      builder.push(prompt("go"));
      const a = builder.push(text("agent_message_chunk", "a"));
      const ab = builder.push(text("agent_message_chunk", "b"));
      const abRead = ab.at(-1);
      // A change that adds no chunk: the same version as the snapshot before it.
      const counted = builder.push(text("agent_message_chunk", "", usage));
      expect(counted).not.toBe(ab);
      expect(counted.at(-1)).toBe(abRead);
      const abc = builder.push(text("agent_message_chunk", "c"));
      const tool = builder.push(update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Run" }));
      // Read only after the next event: still the entry the later snapshots hold.
      expect(abc.at(1)).toBe(tool.at(1));
      expect(abc.get(abc.at(1)!.id)).toBe(tool.at(1));
      expect(abc.entries[1]).toBe(tool.at(1));
      expect((tool.at(1) as MessageEntry).text).toBe("abc");
      expect((tool.at(1) as MessageEntry).chunks).toBe(3);
      // Each earlier snapshot reads its own prefix, read first now.
      expect((a.at(1) as MessageEntry).text).toBe("a");
      expect(a.entries.map((e) => (e as MessageEntry).text)).toEqual(["go", "a"]);
      expect((abRead as MessageEntry).text).toBe("ab");
      expect(a.at(0)).toBe(tool.at(0));
    });

    it("emits the same snapshot object for an event that changes nothing, so a subscriber can skip it", async () => {
      const snapshots = await lastValueFrom(
        from<TranscriptSource[]>([text("agent_message_chunk", "a"), { kind: "agent-exited", exitCode: 0, success: true }]).pipe(
          toTranscript(),
          toArray(),
        ),
      );
      expect(snapshots).toHaveLength(2); // the empty one, then one for the chunk
      expect(snapshots[0]!.size).toBe(0);
    });

    it("keeps every entry of a long transcript reachable, in order, after many appends and replacements", () => {
      const builder = new TranscriptBuilder();
      const snapshots = [];
      for (let i = 0; i < 5000; i++) {
        builder.push(update({ sessionUpdate: "tool_call", toolCallId: `t${i}`, title: `tool ${i}` }));
        if (i % 1000 === 999) snapshots.push(builder.snapshot);
      }
      for (let i = 0; i < 5000; i += 7) builder.push(update({ sessionUpdate: "tool_call_update", toolCallId: `t${i}`, status: "completed" }));
      const t = builder.snapshot;
      expect(t.size).toBe(5000);
      expect(t.entries.map((e) => (e as ToolCallEntry).toolCallId)).toEqual(Array.from({ length: 5000 }, (_, i) => `t${i}`));
      expect(t.entries.filter((e) => (e as ToolCallEntry).status === "completed")).toHaveLength(Math.ceil(5000 / 7));
      // Earlier snapshots still see their own sizes and the pending statuses.
      expect(snapshots.map((s) => s.size)).toEqual([1000, 2000, 3000, 4000, 5000]);
      expect((snapshots[4]!.at(0) as ToolCallEntry).status).toBe("pending");
      expect(snapshots[0]!.get("tool:sess-1:t4000")).toBeUndefined();
    });

    it("gives the same ids to the same events, so a reload keeps the entries' identities", () => {
      const events: TranscriptSource[] = [prompt("go"), text("agent_message_chunk", "x"), permission("t1"), turnEnd()];
      expect(build(events).entries.map((e) => e.id)).toEqual(build(events).entries.map((e) => e.id));
    });
  });
});
