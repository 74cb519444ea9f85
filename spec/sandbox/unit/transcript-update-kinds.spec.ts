// The update kinds of the stable ACP schema (SDK 2.4) newer than the typed union: notices and context
// compactions as entries, usage as derived state, session info and config options where the
// transcript shows them. Shapes as in node_modules/@agentclientprotocol/sdk/schema/v1/schema.json.
import {
  transcriptOf,
  type SandboxEvent,
  type TranscriptEntry,
  type TranscriptSource,
} from "../../../lib/sandbox/index.js";

const S = "sess-1";
const update = (u: Record<string, unknown>): SandboxEvent =>
  ({ kind: "unknown-update", sessionId: S, update: u }) as unknown as SandboxEvent;
const prompt: TranscriptSource = { kind: "prompt-sent", sessionId: S, prompt: [{ type: "text", text: "go" }] };
const build = (events: TranscriptSource[]) => {
  let t = 1000;
  return transcriptOf(events, { now: () => t++ });
};
type Of<K extends TranscriptEntry["kind"]> = Extract<TranscriptEntry, { kind: K }>;

describe("the transcript of the newer update kinds", () => {
  it("shows each notice as an entry of its own, with its severity, title and description", () => {
    const t = build([
      prompt,
      update({ sessionUpdate: "notice", severity: "warning", title: "Rate limited", description: "Retrying in 5 s" }),
      update({ sessionUpdate: "notice", severity: "info", title: "Rate limited", description: null }),
    ]);
    expect(t.entries.map((e) => e.kind)).toEqual(["user-message", "notice", "notice"]);
    expect(t.at(1)).toMatchObject({ severity: "warning", title: "Rate limited", description: "Retrying in 5 s" });
    expect(t.at(2)).toMatchObject({ severity: "info", description: undefined });
    expect(t.at(1)!.id).not.toBe(t.at(2)!.id);
  });

  it("merges a compaction's updates and summary chunks into one entry at its first place, with patch semantics", () => {
    const text = (t: string) => ({ type: "text", text: t });
    const t = build([
      prompt,
      update({ sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: text("Kept: ") }),
      update({ sessionUpdate: "agent_message_chunk", content: text("working") }),
      update({ sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: text("the plan") }),
      update({ sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" }),
      update({ sessionUpdate: "compaction_update", compactionId: "c2", status: "in_progress", summary: [text("x")] }),
      update({ sessionUpdate: "compaction_update", compactionId: "c2", status: "failed", summary: null, error: "big" }),
    ]);
    expect(t.entries.map((e) => e.kind)).toEqual(["user-message", "compaction", "agent-message", "compaction"]);
    const first = t.at(1) as Of<"compaction">;
    expect(first).toMatchObject({ compactionId: "c1", status: "completed", text: "Kept: the plan", error: undefined });
    expect(first.summary).toEqual([text("Kept: "), text("the plan")]);
    expect(first.endedAt).toBeDefined();
    expect(t.at(3)).toMatchObject({ compactionId: "c2", status: "failed", summary: [], text: "", error: "big" });
  });

  it("keeps usage as derived state, no entry: the context window now and the agent's cumulative cost", () => {
    const t = build([
      prompt,
      update({ sessionUpdate: "usage_update", used: 1200, size: 200_000, cost: { amount: 0.25, currency: "USD" } }),
      update({ sessionUpdate: "usage_update", used: 5400, size: 200_000, cost: { amount: 0.75, currency: "USD" } }),
      update({ sessionUpdate: "usage_update", used: 800, size: 200_000, cost: null }),
    ]);
    expect(t.entries.map((e) => e.kind)).toEqual(["user-message"]);
    expect(t.usage).toEqual({ contextUsed: 800, contextSize: 200_000, cost: { amount: 0.75, currency: "USD" } });
  });

  it("shows session info updates with their time, keeping the title an update leaves out and clearing it on null", () => {
    const info = (fields: Record<string, unknown>) => update({ sessionUpdate: "session_info_update", ...fields });
    const builder = [
      info({ title: "Fix the build", updatedAt: "2026-12-05T10:00:00Z" }),
      info({ updatedAt: "2026-12-05T10:05:00Z" }),
    ];
    const kept = build(builder);
    expect(kept.title).toBe("Fix the build");
    expect(kept.at(1)).toMatchObject({ kind: "session-info", title: undefined, updatedAt: "2026-12-05T10:05:00Z" });
    expect(build([...builder, info({ title: null })]).title).toBeUndefined();
  });

  it("shows config option updates and the model they name, and keeps kinds it does not know as raw entries", () => {
    const config = (currentValue: string) => {
      const configOptions = [{ id: "model", category: "model", currentValue }];
      return update({ sessionUpdate: "config_option_update", configOptions });
    };
    const t = build([
      config("a"),
      config("b"),
      update({ sessionUpdate: "_vendor_widget", x: 1 }),
    ]);
    expect(t.entries.map((e) => e.kind)).toEqual(["config-change", "config-change", "model-change", "raw"]);
    expect(t.currentModelId).toBe("b");
    expect(t.at(3)).toMatchObject({ type: "_vendor_widget", value: { x: 1 } });
  });
});
