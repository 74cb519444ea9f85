// The transcript of real sessions: the stored history of two turns of the demo agent through the
// released 0.4.2 server (spec/fixtures/transcript/capture.ts made the fixture), reduced as a reopened
// session is, and the same events as they arrived live; and two turns of qwen-code 0.24.4
// (capture-qwen.ts), which echoes each prompt and reports usage in `_meta`.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { envelopeToEvent } from "../../../lib/sandbox/events/events.js";
import {
  transcriptOf,
  type MessageEntry,
  type PermissionEntry,
  type ToolCallEntry,
  type TranscriptSource,
} from "../../../lib/sandbox/index.js";
import type { HistoryEvent } from "../../../lib/sandbox/persistence/index.js";

interface Stored {
  sender: "client" | "agent";
  payload: Record<string, unknown> & { jsonrpc: "2.0" };
}

const load = (name: string) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../fixtures/transcript/${name}`, import.meta.url)), "utf8")) as Stored[];
const asHistory = (events: Stored[]): HistoryEvent[] =>
  events.map((event, i) => ({
    id: `e${i}`,
    sessionId: "local-1",
    createdAt: 1000 + i,
    connectionId: "c",
    sender: event.sender,
    payload: event.payload,
    eventIndex: i + 1,
  }));
const stored = load("demo-agent-0.4.2.json");
const history = asHistory(stored);

describe("the transcript of a recorded demo-agent session (real 0.4.2 server)", () => {
  const t = transcriptOf(history);

  it("has each turn as prompt, plan, thought, tool calls, permission, answer, end", () => {
    const turn = ["user-message", "plan", "thought", "tool-call", "tool-call", "permission", "agent-message", "turn-end"];
    expect(t.entries.map((e) => e.kind)).toEqual([...turn, ...turn]);
    expect(t.isRunning).toBe(false);
    expect(t.pendingPermission).toBeUndefined();
  });

  it("coalesces every chunk of the thought and the answer into one entry each", () => {
    const chunks = (kind: string) =>
      stored.filter((e) => (e.payload.params as { update?: { sessionUpdate?: string } } | undefined)?.update?.sessionUpdate === kind).length;
    const thoughts = t.entries.filter((e): e is MessageEntry => e.kind === "thought");
    const answers = t.entries.filter((e): e is MessageEntry => e.kind === "agent-message");
    expect(thoughts.reduce((n, e) => n + e.chunks, 0)).toBe(chunks("agent_thought_chunk"));
    expect(answers.reduce((n, e) => n + e.chunks, 0)).toBe(chunks("agent_message_chunk"));
    expect(answers[0]!.text).toMatch(/^## Added a greeting helper/);
    expect(answers[1]!.text).toMatch(/^## Change not applied/);
  });

  it("merges each tool call's updates, keeps the plan's last state per turn, and follows the permissions", () => {
    const tools = t.entries.filter((e): e is ToolCallEntry => e.kind === "tool-call");
    expect(tools.map((e) => [e.toolCallId, e.toolKind, e.status])).toEqual([
      ["call_1", "read", "completed"],
      ["call_2", "edit", "completed"],
      ["call_3", "read", "completed"],
      ["call_4", "edit", "failed"],
    ]);
    for (const tool of tools) expect(tool.endedAt).toBeGreaterThanOrEqual(tool.startedAt);
    const toolEvents = stored.filter((e) => /tool_call/.test(String((e.payload.params as { update?: { sessionUpdate?: string } } | undefined)?.update?.sessionUpdate)));
    expect(tools.reduce((n, e) => n + e.updates, 0)).toBe(toolEvents.length);
    const permissions = t.entries.filter((e): e is PermissionEntry => e.kind === "permission");
    expect(permissions.map((p) => [p.toolCallId, p.status, p.options.find((o) => o.optionId === p.optionId)?.kind])).toEqual([
      ["call_2", "selected", "allow_once"],
      ["call_4", "selected", "reject_once"],
    ]);
    expect(t.plan?.every((step) => step.status === "completed" || /skipped/.test(step.content))).toBe(true);
  });

  it("gives the events as they arrive live (stored, not yet indexed) the same entries and ids as the stored history", () => {
    // Live, a recorded session's events come through its history before the store indexes them.
    const live = history.map(({ eventIndex: _index, ...event }): HistoryEvent => event);
    const again = transcriptOf(live, { now: () => 0 });
    expect(again.entries.map((e) => [e.id, e.kind])).toEqual(t.entries.map((e) => [e.id, e.kind]));
  });

  it("gives the bare live events and the client's notes the same entries as the stored history", () => {
    // The agent's envelopes as the events the client delivered (the client's own records, the
    // prompts, turn ends and permission answers, stay in their stored form). Events never stored have
    // no identity of their own to derive ids from, so only the entries are compared.
    const live: TranscriptSource[] = stored.flatMap((event, i): TranscriptSource[] => {
      const { payload } = event;
      if (event.sender === "agent" && typeof payload.method === "string") {
        const converted = envelopeToEvent(payload as Parameters<typeof envelopeToEvent>[0]);
        return converted ? [converted] : [];
      }
      const { eventIndex: _index, ...unindexed } = history[i]!;
      return [unindexed];
    });
    const again = transcriptOf(live, { now: () => 0 });
    expect(again.entries.map((e) => e.kind)).toEqual(t.entries.map((e) => e.kind));
    expect(again.entries.map((e) => ("text" in e ? e.text : e.kind === "tool-call" ? e.status : null))).toEqual(
      t.entries.map((e) => ("text" in e ? e.text : e.kind === "tool-call" ? e.status : null)),
    );
  });
});

describe("the transcript of a recorded qwen-code 0.24.4 session", () => {
  const stored = load("qwen-0.24.4.json");
  const t = transcriptOf(asHistory(stored));

  it("shows each prompt once (qwen echoes it), the replies, the tool call with its diff, the permission and the turn ends", () => {
    expect(stored.filter((e) => (e.payload.params as { update?: { sessionUpdate?: string } } | undefined)?.update?.sessionUpdate === "user_message_chunk")).toHaveLength(2);
    expect(t.entries.map((e) => e.kind)).toEqual([
      "user-message", "agent-message", "turn-end",
      "user-message", "available-commands", "tool-call", "permission", "agent-message", "turn-end",
    ]);
    const [hello, done] = t.entries.filter((e): e is MessageEntry => e.kind === "agent-message");
    expect(hello!.text).toBe("FAKE-REPLY: hello transcript");
    expect(done!.text).toBe("FAKE-REPLY: done");
    const tool = t.entries.find((e): e is ToolCallEntry => e.kind === "tool-call")!;
    expect(tool).toMatchObject({ toolKind: "edit", status: "completed" });
    expect(tool.diffs).toEqual([{ path: "/workspace/created-by-fake-model.txt", oldText: "", newText: "written by the fake model\n" }]);
    expect(t.entries.find((e) => e.kind === "permission")).toMatchObject({ status: "selected", optionId: "proceed_once" });
  });

  it("reports the usage qwen attaches to its replies", () => {
    expect(t.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(t.isRunning).toBe(false);
  });
});
