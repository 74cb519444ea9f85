import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import type { AcpEnvelope } from "../../../lib/acp-http/index.js";
import {
  endSessionsOnAgentExit,
  envelopeToEvent,
  forSession,
  ofSession,
  fromTransportParseError,
  parseErrorsOnly,
  sessionEndedOnly,
  toSandboxEvents,
  type SandboxEvent,
} from "../../../lib/sandbox/events/events.js";

const notification = (method: string, params: Record<string, unknown>): AcpEnvelope => ({ jsonrpc: "2.0", method, params });
const request = (id: number | string, method: string, params: Record<string, unknown>): AcpEnvelope => ({ jsonrpc: "2.0", id, method, params });
const update = (sessionId: string, body: Record<string, unknown>): AcpEnvelope => notification("session/update", { sessionId, update: body });

function collect<T>(source: Observable<T>): Promise<T[]> {
  return lastValueFrom(source.pipe(toArray()));
}

function convert(...envelopes: AcpEnvelope[]): Promise<SandboxEvent[]> {
  return collect(from(envelopes).pipe(toSandboxEvents()));
}

function marbles(run: (helpers: Parameters<Parameters<TestScheduler["run"]>[0]>[0]) => void): void {
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(run);
}

describe("toSandboxEvents", () => {
  const text = { type: "text", text: "hi" };
  const knownUpdates: Array<[string, Record<string, unknown>]> = [
    ["agent_message_chunk", { sessionUpdate: "agent_message_chunk", content: text }],
    ["user_message_chunk", { sessionUpdate: "user_message_chunk", content: text }],
    ["agent_thought_chunk", { sessionUpdate: "agent_thought_chunk", content: text }],
    ["tool_call", { sessionUpdate: "tool_call", toolCallId: "t1", title: "Edit", kind: "edit", status: "pending" }],
    ["tool_call_update", { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", content: [] }],
    ["plan", { sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] }],
    ["available_commands_update", { sessionUpdate: "available_commands_update", availableCommands: [{ name: "x" }] }],
    ["current_mode_update", { sessionUpdate: "current_mode_update", currentModeId: "plan" }],
    ["session_info_update", { sessionUpdate: "session_info_update", title: "T", updatedAt: "2026-01-01" }],
  ];

  it.each(knownUpdates)("types a %s update", async (_kind, body) => {
    const events = await convert(update("s1", { ...body, extraField: 42 }));
    expect(events).toEqual([{ kind: "update", sessionId: "s1", update: { ...body, extraField: 42 } }]);
  });

  it("delivers an update of an unknown kind as unknown-update", async () => {
    expect(await convert(update("s1", { sessionUpdate: "brand_new", x: 1 }))).toEqual([
      { kind: "unknown-update", sessionId: "s1", update: { sessionUpdate: "brand_new", x: 1 } },
    ]);
  });

  it("delivers a known kind with a wrong shape as unknown-update rather than dropping it", async () => {
    expect(await convert(update("s1", { sessionUpdate: "agent_message_chunk", content: "not an object" }))).toEqual([
      { kind: "unknown-update", sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: "not an object" } },
    ]);
  });

  it("drops session/update without a session id or an update kind", async () => {
    expect(await convert(notification("session/update", { update: { sessionUpdate: "plan", entries: [] } }), update("s1", { nope: 1 }))).toEqual([]);
  });

  it("converts a permission request", async () => {
    const options = [
      { optionId: "allow", name: "Allow once", kind: "allow_once" },
      { optionId: "deny", name: "Reject", kind: "reject_once" },
    ];
    const toolCall = { toolCallId: "tool-1", title: "Write", kind: "edit", status: "pending" };
    expect(await convert(request(7, "session/request_permission", { sessionId: "s1", toolCall, options }))).toEqual([
      { kind: "permission-request", sessionId: "s1", toolCall, options },
    ]);
  });

  it("drops other requests from the agent and every response", async () => {
    const events = await convert(
      request(1, "fs/read_text_file", { sessionId: "s1", path: "/x" }),
      { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } },
      { jsonrpc: "2.0", id: 2, error: { code: -32000, message: "x" } },
    );
    expect(events).toEqual([]);
  });

  it("converts _sandboxagent/session/ended from snake_case to camelCase", async () => {
    const events = await convert(
      notification("_sandboxagent/session/ended", {
        session_id: "s1",
        data: {
          reason: "error",
          terminated_by: "agent",
          message: "mock process crashed",
          exit_code: 1,
          stderr: { head: "a\nb", tail: "z", truncated: true, total_lines: 120 },
        },
      }),
    );
    expect(events).toEqual([
      {
        kind: "session-ended",
        sessionId: "s1",
        reason: "error",
        terminatedBy: "agent",
        message: "mock process crashed",
        exitCode: 1,
        stderr: { head: "a\nb", tail: "z", truncated: true, totalLines: 120 },
      },
    ]);
    const ended = events[0] as Record<string, unknown>;
    for (const key of ["session_id", "terminated_by", "exit_code", "data"]) expect(ended).not.toHaveProperty(key);
  });

  it("keeps a null exit code and defaults a missing reason", async () => {
    expect(await convert(notification("_sandboxagent/session/ended", { session_id: "s2", data: { exit_code: null } }))).toEqual([
      { kind: "session-ended", sessionId: "s2", reason: "unknown", exitCode: null },
    ]);
  });

  it("converts _sandboxagent/agent/unparsed to a parse-error", async () => {
    expect(await convert(notification("_sandboxagent/agent/unparsed", { error: "scripted", raw: "<<not understood>>" }))).toEqual([
      { kind: "parse-error", source: "agent", raw: "<<not understood>>", error: "scripted" },
    ]);
  });

  it("converts _adapter/invalid_stdout to a parse-error", async () => {
    expect(await convert(notification("_adapter/invalid_stdout", { raw: "this line is not json", error: "expected value" }))).toEqual([
      { kind: "parse-error", source: "agent", raw: "this line is not json", error: "expected value" },
    ]);
  });

  it("converts _adapter/agent_exited", async () => {
    expect(await convert(notification("_adapter/agent_exited", { code: 3, success: false }), notification("_adapter/agent_exited", { success: false }))).toEqual([
      { kind: "agent-exited", exitCode: 3, success: false },
      { kind: "agent-exited", exitCode: null, success: false },
    ]);
  });

  it("passes other notifications through with their session id", async () => {
    expect(await convert(notification("_probe/pong", { sessionId: "s1", x: 1 }), notification("_x/y", { a: 1 }))).toEqual([
      { kind: "notification", method: "_probe/pong", params: { sessionId: "s1", x: 1 }, sessionId: "s1" },
      { kind: "notification", method: "_x/y", params: { a: 1 } },
    ]);
  });

  it("keeps the order of a mixed stream (marbles)", () => {
    marbles(({ cold, expectObservable }) => {
      const source = cold<AcpEnvelope>("a-b-c-d|", {
        a: update("s1", { sessionUpdate: "agent_message_chunk", content: text }),
        b: { jsonrpc: "2.0", id: 1, result: {} },
        c: notification("_sandboxagent/agent/unparsed", { error: "e", raw: "r" }),
        d: notification("_sandboxagent/session/ended", { session_id: "s1", data: { reason: "completed" } }),
      });
      expectObservable(source.pipe(toSandboxEvents())).toBe("a---c-d|", {
        a: { kind: "update", sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: text } },
        c: { kind: "parse-error", source: "agent", raw: "r", error: "e" },
        d: { kind: "session-ended", sessionId: "s1", reason: "completed" },
      });
    });
  });
});

describe("fromTransportParseError", () => {
  it("makes a transport parse-error event", () => {
    expect(fromTransportParseError({ source: "stream", raw: "{bad", error: "Unexpected token" })).toEqual({
      kind: "parse-error",
      source: "transport",
      raw: "{bad",
      error: "Unexpected token",
    });
  });
});

describe("fromTransportParseError, for a malformed update", () => {
  const frame = (update: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update } });

  it("leaves out the protocol's report of a draft update that its own event reports with its session", () => {
    const raw = frame({ sessionUpdate: "tool_call_content_chunk", toolCallId: "c1" });
    expect(envelopeToEvent(JSON.parse(raw) as AcpEnvelope)).toMatchObject({ kind: "parse-error", sessionId: "s1" });
    const error = "tool_call_content_chunk: content";
    expect(fromTransportParseError({ source: "stream", raw, error })).toBeUndefined();
  });

  it("keeps the report of an update its event reads (a v2 chunk without its messageId)", () => {
    const raw = frame({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } });
    const error = "agent_message_chunk: messageId";
    expect(envelopeToEvent(JSON.parse(raw) as AcpEnvelope)).toMatchObject({ kind: "update" });
    expect(fromTransportParseError({ source: "stream", raw, error })).toEqual({
      kind: "parse-error",
      source: "transport",
      raw,
      error,
    });
  });
});

describe("endSessionsOnAgentExit", () => {
  const chunk: SandboxEvent = { kind: "update", sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } };

  it("follows agent-exited with an ended event per open session", async () => {
    const events = await collect(from<SandboxEvent[]>([chunk, { kind: "agent-exited", exitCode: 3, success: false }]).pipe(endSessionsOnAgentExit(() => ["s1", "s2"])));
    expect(events).toEqual([
      chunk,
      { kind: "agent-exited", exitCode: 3, success: false },
      { kind: "session-ended", sessionId: "s1", reason: "error", terminatedBy: "agent", exitCode: 3, message: "agent exited with code 3" },
      { kind: "session-ended", sessionId: "s2", reason: "error", terminatedBy: "agent", exitCode: 3, message: "agent exited with code 3" },
    ]);
  });

  it("ends sessions as completed on a successful exit, and says signal when there is no code", async () => {
    const ok = await collect(from<SandboxEvent[]>([{ kind: "agent-exited", exitCode: 0, success: true }]).pipe(endSessionsOnAgentExit(() => ["s1"])));
    expect(ok[1]).toEqual({ kind: "session-ended", sessionId: "s1", reason: "completed", terminatedBy: "agent", exitCode: 0 });
    const killed = await collect(from<SandboxEvent[]>([{ kind: "agent-exited", exitCode: null, success: false }]).pipe(endSessionsOnAgentExit(() => ["s1"])));
    expect(killed[1]).toMatchObject({ kind: "session-ended", exitCode: null, message: "agent exited (signal)" });
  });

  it("reads the open sessions at the time of the exit", () => {
    const open = new Set<string>();
    marbles(({ cold, expectObservable }) => {
      const source = cold<SandboxEvent>("a-x---|", { a: chunk, x: { kind: "agent-exited", exitCode: 1, success: false } });
      open.add("late");
      expectObservable(source.pipe(endSessionsOnAgentExit(() => open))).toBe("a-(xe)|", {
        a: chunk,
        x: { kind: "agent-exited", exitCode: 1, success: false },
        e: { kind: "session-ended", sessionId: "late", reason: "error", terminatedBy: "agent", exitCode: 1, message: "agent exited with code 1" },
      });
    });
  });

  it("passes everything else through unchanged", async () => {
    expect(await collect(from<SandboxEvent[]>([chunk]).pipe(endSessionsOnAgentExit(() => ["s1"])))).toEqual([chunk]);
  });
});

describe("forSession", () => {
  it("keeps one session's events and completes after its ended event", () => {
    marbles(({ hot, expectObservable }) => {
      const a1: SandboxEvent = { kind: "update", sessionId: "a", update: { sessionUpdate: "current_mode_update", currentModeId: "m" } };
      const b1: SandboxEvent = { kind: "update", sessionId: "b", update: { sessionUpdate: "current_mode_update", currentModeId: "m" } };
      const bEnd: SandboxEvent = { kind: "session-ended", sessionId: "b", reason: "completed" };
      const aEnd: SandboxEvent = { kind: "session-ended", sessionId: "a", reason: "terminated" };
      const global: SandboxEvent = { kind: "agent-exited", exitCode: 0, success: true };
      const source = hot<SandboxEvent>("-a-b-g-B-A-a-", { a: a1, b: b1, g: global, B: bEnd, A: aEnd });
      expectObservable(source.pipe(forSession("a"))).toBe("-a-------(A|)", { a: a1, A: aEnd });
    });
  });
});

describe("events-lost in per-session streams", () => {
  const a1: SandboxEvent = { kind: "update", sessionId: "a", update: { sessionUpdate: "current_mode_update", currentModeId: "m" } };
  const connectionGap: SandboxEvent = { kind: "events-lost", stream: "connection", firstMissing: 3, lastMissing: 7 };
  const gapOfA: SandboxEvent = { kind: "events-lost", stream: "a", sessionId: "a", firstMissing: 1, lastMissing: 2 };
  const gapOfB: SandboxEvent = { kind: "events-lost", stream: "b", sessionId: "b", firstMissing: 1, lastMissing: 2 };

  it("forSession lets a gap without a session id through to every view", () => {
    marbles(({ hot, expectObservable }) => {
      const source = hot<SandboxEvent>("-a-g-", { a: a1, g: connectionGap });
      expectObservable(source.pipe(forSession("a"))).toBe("-a-g-", { a: a1, g: connectionGap });
      expectObservable(source.pipe(forSession("b"))).toBe("---g-", { g: connectionGap });
    });
  });

  it("forSession routes a session stream's gap to that session's view only", () => {
    marbles(({ hot, expectObservable }) => {
      const source = hot<SandboxEvent>("-x-y-", { x: gapOfA, y: gapOfB });
      expectObservable(source.pipe(forSession("a"))).toBe("-x---", { x: gapOfA });
      expectObservable(source.pipe(forSession("b"))).toBe("---y-", { y: gapOfB });
    });
  });

  it("ofSession (what prompt$ uses) keeps the session's events and the gaps that concern it", async () => {
    const other: SandboxEvent = { ...a1, sessionId: "b" } as SandboxEvent;
    const events = [a1, other, connectionGap, gapOfA, gapOfB];
    expect(await collect(from(events).pipe(ofSession("a")))).toEqual([a1, connectionGap, gapOfA]);
  });
});

describe("sessionEndedOnly", () => {
  it("emits only ended events, without the kind", async () => {
    const events: SandboxEvent[] = [
      { kind: "parse-error", source: "agent", raw: "r", error: "e" },
      { kind: "session-ended", sessionId: "s1", reason: "completed", terminatedBy: "agent", exitCode: 0 },
    ];
    expect(await collect(from(events).pipe(sessionEndedOnly()))).toEqual([{ sessionId: "s1", reason: "completed", terminatedBy: "agent", exitCode: 0 }]);
  });
});

describe("parseErrorsOnly", () => {
  it("emits only parse errors, without the kind", async () => {
    const events: SandboxEvent[] = [
      { kind: "session-ended", sessionId: "s1", reason: "completed" },
      { kind: "parse-error", source: "agent", raw: "r", error: "e", sessionId: "s1" },
      { kind: "parse-error", source: "transport", raw: "{", error: "bad" },
    ];
    expect(await collect(from(events).pipe(parseErrorsOnly()))).toEqual([
      { source: "agent", raw: "r", error: "e", sessionId: "s1" },
      { source: "transport", raw: "{", error: "bad" },
    ]);
  });
});
