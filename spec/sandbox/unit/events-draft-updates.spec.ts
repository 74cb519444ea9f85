// The ACP v2 draft's session updates as sandbox events: each kind typed as an `update` event, one that
// does not parse a `parse-error` event carrying the update as it came. Every update here is first
// checked against the SDK's own v2 schema (valid ones pass it, malformed ones fail it).
import { from, lastValueFrom, toArray } from "rxjs";
import type { AcpEnvelope } from "../../../lib/acp-http/index.js";
import { isUpdate, transcriptOf } from "../../../lib/sandbox/index.js";
import { toSandboxEvents, type SandboxEvent } from "../../../lib/sandbox/events/events.js";
import { draftUpdateProblem } from "../../support/draft-update-schema.js";

const S = "agent-a";
const envelope = (update: Record<string, unknown>): AcpEnvelope =>
  ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update } });
const convert = (...updates: Record<string, unknown>[]): Promise<SandboxEvent[]> =>
  lastValueFrom(from(updates.map(envelope)).pipe(toSandboxEvents(), toArray()));

const text = (t: string) => ({ type: "text", text: t });
const valid: Array<[string, Record<string, unknown>]> = [
  ["user_message", { sessionUpdate: "user_message", messageId: "u1", content: [text("hi")] }],
  ["agent_message", { sessionUpdate: "agent_message", messageId: "m1", content: null }],
  ["agent_thought", { sessionUpdate: "agent_thought", messageId: "t1" }],
  ["agent_message_chunk", { sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("x") }],
  ["state_update running", { sessionUpdate: "state_update", state: "running", background: [] }],
  ["state_update requires_action", { sessionUpdate: "state_update", state: "requires_action" }],
  ["state_update idle", { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }],
  ["state_update idle error", {
    sessionUpdate: "state_update",
    state: "idle",
    stopReason: "error",
    error: { code: -32603, message: "model failed" },
  }],
  ["tool_call_update (creates)", { sessionUpdate: "tool_call_update", toolCallId: "c1", name: "read", title: null }],
  ["tool_call_content_chunk", {
    sessionUpdate: "tool_call_content_chunk",
    toolCallId: "c1",
    content: { type: "diff", changes: [{ operation: "modify", path: "/w/a.ts" }], patch: null },
  }],
  ["terminal_update", {
    sessionUpdate: "terminal_update",
    terminalId: "term-1",
    command: "ls",
    cwd: "/w",
    output: { data: Buffer.from("a\n").toString("base64") },
    exitStatus: null,
    size: { cols: 80, rows: 24 },
  }],
  ["terminal_output_chunk", { sessionUpdate: "terminal_output_chunk", terminalId: "term-1", data: "Yg==" }],
  ["plan_update", {
    sessionUpdate: "plan_update",
    plan: { type: "items", planId: "p1", entries: [{ content: "step", priority: "high", status: "pending" }] },
  }],
];

const malformed: Array<[string, Record<string, unknown>]> = [
  ["an upsert without messageId", { sessionUpdate: "agent_message", content: [text("x")] }],
  ["a state without state", { sessionUpdate: "state_update", stopReason: "end_turn" }],
  ["a content chunk without content", { sessionUpdate: "tool_call_content_chunk", toolCallId: "c1" }],
  ["an items plan without entries", { sessionUpdate: "plan_update", plan: { type: "items", planId: "p1" } }],
];

describe("the v2 draft's session updates as events", () => {
  it.each(valid)("%s is an update event, typed, as it came", async (_name, update) => {
    expect(draftUpdateProblem(update)).toBeUndefined();
    const [event] = await convert(update);
    expect(event).toEqual({ kind: "update", sessionId: S, update });
    expect(isUpdate(event!, update.sessionUpdate as never)).toBe(true);
  });

  it.each(malformed)("%s is a parse-error event that keeps the update", async (_name, update) => {
    expect(draftUpdateProblem(update)).toBeDefined();
    const events = await convert(update, { sessionUpdate: "agent_message_chunk", content: text("after") });
    expect(events).toHaveLength(2);
    const [error, next] = events as [SandboxEvent, SandboxEvent];
    expect(error).toMatchObject({ kind: "parse-error", source: "agent", sessionId: S });
    expect(error.kind === "parse-error" && JSON.parse(error.raw)).toEqual(update);
    expect(error.kind === "parse-error" && error.error).toContain(`malformed ${String(update.sessionUpdate)}`);
    // What comes after is not lost.
    expect(next).toMatchObject({ kind: "update", update: { content: text("after") } });
  });

  it("takes terminal output that is not base64 (the schema's words, not its check) as malformed", async () => {
    const update = { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "%%%" };
    const [error] = await convert(update);
    expect(error).toMatchObject({ kind: "parse-error", source: "agent", raw: JSON.stringify(update) });
  });

  it("reads what the schema says to tolerate as omitted or left out, so the update is not lost", async () => {
    const b64 = (t: string) => Buffer.from(t).toString("base64");
    const tolerated: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      // `_meta` that is not an object: ignored (default-on-error); `null`: none (a v1 chunk kind too).
      [
        { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", _meta: "oops" },
        { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
      ],
      [
        { sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("x"), _meta: null },
        { sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("x"), _meta: null },
      ],
      // A content item that is not a content block: left out (skip-invalid-items).
      [
        { sessionUpdate: "agent_message", messageId: "m1", content: [{ text: "no type" }, text("kept")] },
        { sessionUpdate: "agent_message", messageId: "m1", content: [text("kept")] },
      ],
      // A terminal's output that is not base64: ignored, its exit status kept; unpadded base64 is base64.
      [
        { sessionUpdate: "terminal_update", terminalId: "t", output: { data: "%%%" }, exitStatus: { exitCode: 1 } },
        { sessionUpdate: "terminal_update", terminalId: "t", exitStatus: { exitCode: 1 } },
      ],
      [
        { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: b64("hi").replace(/=+$/, "") },
        { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "aGk" },
      ],
    ];
    for (const [update, read] of tolerated) {
      expect(await convert(update)).toEqual([{ kind: "update", sessionId: S, update: read }]);
    }
  });

  it("ends the turn on an idle whatever its tolerated fields, and decodes unpadded terminal output", async () => {
    const events = await convert(
      { sessionUpdate: "state_update", state: "running" },
      { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "aGk" },
      { sessionUpdate: "terminal_update", terminalId: "t", output: { data: "%%%" }, exitStatus: { exitCode: 0 } },
      { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", _meta: "oops" },
    );
    const t = transcriptOf(events, { now: () => 1 });
    expect(t.isRunning).toBe(false);
    expect(t.entries.map((e) => e.kind)).toEqual(["terminal", "turn-end"]);
    expect(t.terminal("t")).toMatchObject({ output: "hi", exitStatus: { exitCode: 0, signal: null } });
  });

  it("leaves v1 updates as they were: a malformed v1 kind is still an unknown-update", async () => {
    const v1 = { sessionUpdate: "tool_call", title: "no id" };
    expect(await convert(v1)).toEqual([{ kind: "unknown-update", sessionId: S, update: v1 }]);
  });
});
