// One model for both protocols: a conversation told in ACP v1 chunks and the same conversation told in
// the v2 draft's upserts (messages patched, replaced and cleared, chunks after an upsert, tool calls
// created by an update, plans by id, a turn the agent starts without a prompt, turns ended by the
// agent's `idle` with their stop reason, `requires_action`) reduce to the same entries with the same
// ids, live and reopened from a store. Corresponding events carry the same stored id in both tellings
// (the id of an entry begun by an event comes from that event); what only one protocol sends (v2's
// states, the agent's echo of the prompt, the prompt's acknowledgement) has ids of its own. Every v2
// update here passes the SDK's own v2 schema. What v1 has no words for (the agent's own terminals,
// v2 diffs) is checked on its own below.
import { filter, firstValueFrom, timeout } from "rxjs";
import {
  groupEntries,
  type SandboxEvent,
  toTranscript,
  type TranscriptNote,
  transcriptOf,
  type ToolCallEntry,
  type Transcript,
  type TranscriptEntry,
} from "../../../lib/sandbox/index.js";
import { createRecorder, history$, memoryStore, type HistoryEvent } from "../../../lib/sandbox/persistence/index.js";
import type { NewSessionEvent } from "../../../lib/sandbox/persistence/schemas.js";
import { permissionAnswerPayload } from "../../../lib/sandbox/transcript/index.js";
import { readStored, REPLAY_FOLLOWS } from "../../../lib/sandbox/transcript/stored.js";
import type { TerminalEntry } from "../../../lib/sandbox/transcript/index.js";
import { draftUpdateProblem } from "../../support/draft-update-schema.js";

const LOCAL = "local-1";
const AGENT = "agent-a";
type Payload = Record<string, unknown>;
const text = (t: string) => ({ type: "text", text: t });

/** A session's events as the client stores them, each with the stored id its label gives. */
class Told {
  readonly events: NewSessionEvent[] = [];

  constructor(readonly draft: boolean) {}

  add(label: string, sender: "client" | "agent", payload: Payload): this {
    this.events.push({
      id: `sse:server-1:connection:${label}`,
      sessionId: LOCAL,
      // One time for all: the entries' times then compare too.
      createdAt: 1000,
      connectionId: "server-1",
      sender,
      payload: { jsonrpc: "2.0", ...payload } as NewSessionEvent["payload"],
    });
    return this;
  }

  prompt(label: string, t: string): this {
    const params = { sessionId: AGENT, prompt: [text(t)] };
    return this.add(label, "client", { id: label, method: "session/prompt", params });
  }

  update(label: string, update: Payload): this {
    if (this.draft) expect(draftUpdateProblem(update)).toBeUndefined();
    return this.add(label, "agent", { method: "session/update", params: { sessionId: AGENT, update } });
  }

  /** A response of the agent: a v1 turn's end (`stopReason`), a failed turn, a v2 prompt's acknowledgement. */
  respond(label: string, answer: Payload): this {
    return this.add(label, "agent", { id: label, ...answer });
  }

  permission(label: string, toolCallId: string): this {
    const params = {
      sessionId: AGENT,
      toolCall: { toolCallId, title: "Write b.ts" },
      options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
    };
    return this.add(label, "agent", { id: label, method: "session/request_permission", params });
  }

  answer(label: string, toolCallId: string): this {
    const note = { kind: "permission-answered" as const, sessionId: AGENT, toolCallId, outcome: "selected" as const };
    return this.add(label, "client", permissionAnswerPayload({ ...note, optionId: "allow" }));
  }

  /** As the store gives them back: indexed 1, 2, 3, ... */
  stored(): HistoryEvent[] {
    return this.events.map((event, i) => ({ ...event, eventIndex: i + 1 }));
  }

  /** Live, a recorded session's events come through its history before the store indexes them. */
  live(): HistoryEvent[] {
    return this.events.map((event) => ({ ...event }));
  }
}

const state = (state: string, more: Payload = {}) => ({ sessionUpdate: "state_update", state, ...more });
const v1Chunk = (kind: string, messageId: string, t: string) => ({ sessionUpdate: kind, messageId, content: text(t) });
const plan = (first: string) => [
  { content: "find the bug", priority: "high", status: first },
  { content: "fix it", priority: "medium", status: "pending" },
];
const output = (t: string) => ({ type: "content", content: text(t) });

/** Turn 1, prompted: the echo, a thought, a tool call, a plan, an answer drafted then replaced. */
function firstTurn(told: Told): void {
  const v2 = told.draft;
  told.prompt("p1", "fix the bug");
  if (v2) {
    told.update("v2-running-1", state("running"));
    // The agent's user message for the prompt: that prompt's entry, not a second one.
    told.update("v2-echo-1", { sessionUpdate: "user_message", messageId: "u1", content: [text("fix the bug")] });
    told.respond("v2-ack-1", { result: { messageId: "u1" } });
    told.update("th", { sessionUpdate: "agent_thought", messageId: "th1", content: [text("Let me")] });
  } else told.update("th", v1Chunk("agent_thought_chunk", "th1", "Let me"));
  told.update("th-2", v1Chunk("agent_thought_chunk", "th1", " look"));
  // A tool call: v1 creates it with `tool_call`; v2 with an update of an id it has not seen.
  if (v2) told.update("c1", { sessionUpdate: "tool_call_update", toolCallId: "c1", title: "Read a.ts", kind: "read" });
  else told.update("c1", { sessionUpdate: "tool_call", toolCallId: "c1", title: "Read a.ts", kind: "read" });
  if (v2) told.update("c1-2", { sessionUpdate: "tool_call_content_chunk", toolCallId: "c1", content: output("ab") });
  else told.update("c1-2", { sessionUpdate: "tool_call_update", toolCallId: "c1", content: [output("ab")] });
  told.update("c1-3", { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" });
  if (v2) {
    const items = (status: string) => ({ type: "items", planId: "p", entries: plan(status) });
    told.update("plan", { sessionUpdate: "plan_update", plan: items("in_progress") });
    told.update("plan-2", { sessionUpdate: "plan_update", plan: items("completed") });
    // Drafted, then replaced whole (the chunk included), then a chunk after the upsert appends.
    told.update("m1", v1Chunk("agent_message_chunk", "m1", "Draft"));
    const whole = [text("The bug"), text(" is fixed")];
    told.update("m1-2", { sessionUpdate: "agent_message", messageId: "m1", content: whole });
  } else {
    told.update("plan", { sessionUpdate: "plan", entries: plan("in_progress") });
    told.update("plan-2", { sessionUpdate: "plan", entries: plan("completed") });
    told.update("m1", v1Chunk("agent_message_chunk", "m1", "The bug"));
    told.update("m1-2", v1Chunk("agent_message_chunk", "m1", " is fixed"));
  }
  told.update("m1-3", v1Chunk("agent_message_chunk", "m1", "."));
  if (v2) {
    told.update("end-1", state("idle", { stopReason: "end_turn" }));
    // The client's own note of the prompt's end (v2: the prompt resolves on idle): nothing new.
    told.respond("v2-note-1", { result: { stopReason: "end_turn" } });
  } else told.respond("end-1", { result: { stopReason: "end_turn" } });
}

/** Turn 2, the agent's own: a message cleared and written anew, a permission (requires_action). */
function agentTurn(told: Told): void {
  const v2 = told.draft;
  if (v2) {
    told.update("v2-running-2", state("running"));
    told.update("m2", { sessionUpdate: "agent_message", messageId: "m2", content: [text("Stale")] });
    told.update("v2-m2-clear", { sessionUpdate: "agent_message", messageId: "m2", content: null });
    told.update("v2-m2-chunk", v1Chunk("agent_message_chunk", "m2", "The nightly build failed"));
  } else told.update("m2", v1Chunk("agent_message_chunk", "m2", "The nightly build failed"));
  if (v2) told.update("c2", { sessionUpdate: "tool_call_update", toolCallId: "c2", title: "Write b.ts", kind: "edit" });
  else told.update("c2", { sessionUpdate: "tool_call", toolCallId: "c2", title: "Write b.ts", kind: "edit" });
  if (v2) told.update("v2-blocked", state("requires_action"));
  told.permission("ask", "c2").answer("answered", "c2");
  if (v2) told.update("v2-running-3", state("running"));
  told.update("c2-2", { sessionUpdate: "tool_call_update", toolCallId: "c2", status: "completed" });
  if (v2) told.update("end-2", state("idle", { stopReason: "max_tokens" }));
  // v1 has no end for work it did not prompt but the prompt result the client stores.
  else told.respond("end-2", { result: { stopReason: "max_tokens" } });
}

/** Turn 3, prompted, fails: v1's error response, v2's `idle` with the error stop reason. */
function failedTurn(told: Told): void {
  told.prompt("p3", "again");
  const error = { code: -32603, message: "model unavailable" };
  if (told.draft) {
    told.update("v2-running-4", state("running"));
    told.update("end-3", state("idle", { stopReason: "error", error }));
    told.respond("v2-note-3", { error });
  } else told.respond("end-3", { error });
}

function conversation(draft: boolean): Told {
  const told = new Told(draft);
  firstTurn(told);
  agentTurn(told);
  failedTurn(told);
  return told;
}

const rows = (t: Transcript): unknown[] => JSON.parse(JSON.stringify(t.entries)) as unknown[];

async function reopened(told: Told, size: number): Promise<Transcript> {
  const store = memoryStore();
  for (const event of told.events) await store.insertEvent(LOCAL, event);
  return firstValueFrom(
    history$(createRecorder(store), LOCAL).pipe(toTranscript(), filter((t) => t.size === size), timeout(5000)),
  );
}

describe("a conversation told in ACP v1 chunks and in v2 draft upserts", () => {
  it("reduces to the same entries with the same ids, live and reopened from a store", async () => {
    const v1 = conversation(false);
    const v2 = conversation(true);
    const expected = transcriptOf(v1.stored());
    expect(expected.entries.map((e) => e.kind)).toEqual([
      "user-message", "thought", "tool-call", "plan", "agent-message", "turn-end",
      "agent-message", "tool-call", "permission", "turn-end",
      "user-message", "agent-error",
    ]);
    const views: Array<[string, Transcript]> = [
      ["v2 live", transcriptOf(v2.live())],
      ["v2 stored", transcriptOf(v2.stored())],
      ["v2 reopened", await reopened(v2, expected.size)],
      ["v1 live", transcriptOf(v1.live())],
      ["v1 reopened", await reopened(v1, expected.size)],
    ];
    for (const [name, view] of views) {
      expect([name, rows(view)]).toEqual([name, rows(expected)]);
      expect([name, view.isRunning, view.requiresAction]).toEqual([name, false, false]);
    }
    // What the entries say, once (the same for both, as checked above).
    expect(expected.at(1)).toMatchObject({ kind: "thought", id: `thought:${AGENT}:th1`, text: "Let me look" });
    expect(expected.at(4)).toMatchObject({ id: `message:${AGENT}:m1`, text: "The bug is fixed.", chunks: 3 });
    expect(expected.at(6)).toMatchObject({ id: `message:${AGENT}:m2`, text: "The nightly build failed" });
    expect(expected.at(2)).toMatchObject({ id: `tool:${AGENT}:c1`, status: "completed", updates: 3 });
    expect((expected.at(2) as ToolCallEntry).content).toEqual([output("ab")]);
    expect(expected.at(3)).toMatchObject({ entries: plan("completed") });
    expect(expected.at(5)).toMatchObject({ kind: "turn-end", stopReason: "end_turn" });
    expect(expected.at(8)).toMatchObject({ status: "selected", optionId: "allow" });
    expect(expected.at(9)).toMatchObject({ kind: "turn-end", stopReason: "max_tokens" });
    expect(expected.at(11)).toMatchObject({ source: "prompt", message: "model unavailable", code: -32603 });
  });

  it("gives the same entries from bare events and the client's notes (a session no store records; ids live-N)", () => {
    const bare = (told: Told) => told.events
      .map((event) => readStored(event))
      .filter((input): input is SandboxEvent | TranscriptNote => input !== undefined && input !== REPLAY_FOLLOWS);
    const withoutIds = (t: Transcript) => rows(t).map((row) => ({ ...(row as object), id: undefined }));
    const v1 = transcriptOf(bare(conversation(false)), { now: () => 1000 });
    const v2 = transcriptOf(bare(conversation(true)), { now: () => 1000 });
    expect(withoutIds(v2)).toEqual(withoutIds(v1));
    expect(withoutIds(v2)).toEqual(withoutIds(transcriptOf(conversation(false).stored())));
    expect(v2.isRunning).toBe(false);
  });

  it("follows the v2 agent's state: a turn it starts without a prompt, blocked on the user, ended by idle", () => {
    const told = conversation(true);
    const upTo = (label: string) => {
      const end = told.events.findIndex((e) => e.id.endsWith(`:${label}`));
      return transcriptOf(told.stored().slice(0, end + 1));
    };
    expect(upTo("v2-running-1")).toMatchObject({ isRunning: true, requiresAction: false });
    expect(upTo("th")).toMatchObject({ isRunning: true, isThinking: true });
    expect(upTo("end-1")).toMatchObject({ isRunning: false, isThinking: false });
    // The agent's own work: running without a prompt, and no turn before that.
    expect(upTo("v2-note-1").isRunning).toBe(false);
    expect(upTo("v2-running-2").isRunning).toBe(true);
    const blocked = upTo("ask");
    expect(blocked).toMatchObject({ isRunning: true, requiresAction: true });
    expect(blocked.pendingPermission?.toolCallId).toBe("c2");
    expect(upTo("v2-running-3")).toMatchObject({ isRunning: true, requiresAction: false });
    const ended = upTo("end-2");
    expect(ended).toMatchObject({ isRunning: false, requiresAction: false });
    // Nothing spins once the agent is idle: no running turn, no running tool call in any group.
    for (const group of groupEntries(ended.entries)) {
      if (group.kind === "activity") expect(group.summary.running).toBe(0);
    }
  });

  it("ends a wait on the user with the turn, however the turn ends", () => {
    const told = new Told(true).prompt("p", "go").update("run", state("running"));
    told.update("blocked", state("requires_action"));
    expect(transcriptOf(told.stored()).requiresAction).toBe(true);
    // The prompt failed on the client's side: no idle came.
    told.respond("failed", { error: { code: -32000, message: "connection lost" } });
    expect(transcriptOf(told.stored())).toMatchObject({ isRunning: false, requiresAction: false });
    told.prompt("p2", "again");
    expect(transcriptOf(told.stored())).toMatchObject({ isRunning: true, requiresAction: false });
  });

  it("starts no turn on v2 output after idle (background work), and counts a repeated idle once", () => {
    const told = conversation(true);
    told.update("late", v1Chunk("agent_message_chunk", "m9", "a background task finished"));
    told.update("late-tool", { sessionUpdate: "tool_call_update", toolCallId: "c9", status: "cancelled" });
    told.update("idle-again", state("idle", { stopReason: "end_turn" }));
    const t = transcriptOf(told.stored());
    expect(t.isRunning).toBe(false);
    expect(t.entries.filter((e) => e.kind === "turn-end")).toHaveLength(2);
    expect(t.at(-2)).toMatchObject({ kind: "agent-message", text: "a background task finished" });
    // `cancelled` (v2) ends a call: not counted as running.
    expect(t.at(-1)).toMatchObject({ kind: "tool-call", status: "cancelled" });
    expect((t.at(-1) as ToolCallEntry).endedAt).toBe(1000);
    const last = groupEntries(t.entries).at(-1)!;
    expect(last.kind === "activity" && last.summary.running).toBe(0);
  });

  it.each([
    ["turn-ended", { result: { stopReason: "end_turn" } }],
    ["turn-failed", { error: { code: -32000, message: "stream closed" } }],
  ])("leaves the agent's next turn running when the prompt's own %s note comes after it began", async (_n, note) => {
    const told = new Told(true).prompt("p", "go").update("run", state("running"));
    told.update("a1", v1Chunk("agent_message_chunk", "a1", "done"));
    told.update("idle", state("idle", { stopReason: "end_turn" }));
    // The agent starts work of its own before the client writes the prompt's end (a microtask later).
    told.update("own", state("running"));
    told.respond("note", note);
    const ends = (t: Transcript) => t.entries.filter((e) => e.kind === "turn-end" || e.kind === "agent-error");
    // Reopened from a store: read up to a marker (a title), the last event told.
    const upToMarker = async (title: string) => {
      told.update(`marker-${title}`, { sessionUpdate: "session_info_update", title });
      const store = memoryStore();
      for (const event of told.events) await store.insertEvent(LOCAL, event);
      const reopened$ = history$(createRecorder(store), LOCAL).pipe(toTranscript());
      return firstValueFrom(reopened$.pipe(filter((t) => t.title === title), timeout(5000)));
    };
    const midway = [await upToMarker("one"), transcriptOf(told.stored()), transcriptOf(told.live())];
    for (const t of midway) {
      expect(t.isRunning).toBe(true);
      expect(ends(t)).toHaveLength(1);
    }
    told.update("a2", v1Chunk("agent_message_chunk", "a2", "my own work"));
    told.update("own-idle", state("idle", { stopReason: "end_turn" }));
    for (const t of [await upToMarker("two"), transcriptOf(told.stored()), transcriptOf(told.live())]) {
      expect(t.isRunning).toBe(false);
      const ids = ["idle", "own-idle"].map((label) => `turn:sse:server-1:connection:${label}`);
      expect(ends(t).map((e) => e.id)).toEqual(ids);
    }
  });

  it("takes as the prompt's echo the agent's user message that spells it, not the first one it inserts", () => {
    const told = new Told(true).update("idle", state("idle")).prompt("p", "mine").update("run", state("running"));
    // Another client's queued prompt inserted first, then the echo of ours.
    told.update("other", { sessionUpdate: "user_message", messageId: "other", content: [text("theirs")] });
    told.update("echo", { sessionUpdate: "user_message", messageId: "u1", content: [text("mine")] });
    told.update("echo-2", v1Chunk("user_message_chunk", "u1", "!"));
    // The same told in chunks.
    const chunked = new Told(true).update("idle", state("idle")).prompt("p", "mine").update("run", state("running"));
    chunked.update("other", v1Chunk("user_message_chunk", "other", "theirs"));
    chunked.update("echo", v1Chunk("user_message_chunk", "u1", "mi"));
    chunked.update("echo-2", v1Chunk("user_message_chunk", "u1", "ne"));
    chunked.update("echo-3", v1Chunk("user_message_chunk", "u1", "!"));
    for (const t of [told.stored(), told.live(), chunked.stored(), chunked.live()].map((e) => transcriptOf(e))) {
      expect(t.entries.map((e) => [e.id, (e as { text?: string }).text])).toEqual([
        ["user:sse:server-1:connection:p", "mine!"],
        [`user:${AGENT}:other`, "theirs"],
      ]);
    }
  });

  it("names a stop reason the agent's idle does not give as the prompt result does: unreported", () => {
    const told = new Told(true).prompt("p", "go").update("run", state("running")).update("idle", state("idle"));
    expect(transcriptOf(told.stored()).at(-1)).toMatchObject({ kind: "turn-end", stopReason: "unreported" });
  });

  it("reads a v1 session exactly as before: `cancelled` ends a call only in a v2 session", () => {
    const told = new Told(false).prompt("p", "go");
    told.update("c", { sessionUpdate: "tool_call", toolCallId: "c", title: "x", status: "cancelled" });
    const cancelled = transcriptOf(told.stored());
    expect(cancelled.at(1)).toMatchObject({ status: "cancelled", endedAt: undefined });
    const group = groupEntries(cancelled.entries).at(-1)!;
    expect(group.kind === "activity" && group.summary.running).toBe(1);
    told.update("c-2", { sessionUpdate: "tool_call_update", toolCallId: "c", status: "in_progress" });
    expect(transcriptOf(told.stored()).at(1)).toMatchObject({ status: "in_progress", endedAt: undefined });
  });

  it("reads a replay the same way: v1's session/load, v2's session/resume with replayFrom", () => {
    const load = { id: "load", method: "session/load", params: { sessionId: AGENT } };
    const v1 = new Told(false).add("load", "client", load);
    v1.update("u", v1Chunk("user_message_chunk", "u1", "fix the bug"));
    v1.update("a", v1Chunk("agent_message_chunk", "m1", "Fixed."));
    const v2 = new Told(true).add("load", "client", {
      id: "load",
      method: "session/resume",
      params: { sessionId: AGENT, cwd: "/w", replayFrom: { type: "start" } },
    });
    v2.update("u", { sessionUpdate: "user_message", messageId: "u1", content: [text("fix the bug")] });
    v2.update("a", { sessionUpdate: "agent_message", messageId: "m1", content: [text("Fixed.")] });
    v2.update("v2-state", state("idle", { stopReason: "end_turn" }));
    const [one, two] = [transcriptOf(v1.stored()), transcriptOf(v2.stored())];
    expect(rows(two)).toEqual(rows(one));
    expect(one.at(0)).toMatchObject({ kind: "user-message", replayed: true, id: `user:${AGENT}:u1` });
    expect([one.isRunning, two.isRunning]).toEqual([false, false]);
    expect(two.entries.some((e) => e.kind === "turn-end")).toBe(false);
  });
});

describe("what only the v2 draft says", () => {
  it("keeps the agent's terminal as an entry: its state patched, output replaced then appended, its exit", () => {
    const told = new Told(true).prompt("p", "run the tests");
    told.update("run", state("running"));
    const terminal = { type: "terminal", terminalId: "term-1" };
    told.update("c", { sessionUpdate: "tool_call_update", toolCallId: "c", title: "npm test", content: [terminal] });
    const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
    told.update("t", { sessionUpdate: "terminal_update", terminalId: "term-1", command: "npm test", cwd: "/w" });
    told.update("t-2", { sessionUpdate: "terminal_output_chunk", terminalId: "term-1", data: b64("old") });
    told.update("t-3", { sessionUpdate: "terminal_update", terminalId: "term-1", output: { data: b64("PASS a\n") } });
    // One character's bytes split across two chunks.
    const check = Buffer.from("✓ done\n");
    const chunk = (bytes: Buffer) =>
      ({ sessionUpdate: "terminal_output_chunk", terminalId: "term-1", data: b64(bytes) });
    told.update("t-4", chunk(check.subarray(0, 2)));
    told.update("t-5", chunk(check.subarray(2)));
    told.update("t-6", {
      sessionUpdate: "terminal_update",
      terminalId: "term-1",
      cwd: null,
      exitStatus: { exitCode: 0 },
      size: { cols: 80, rows: 24 },
    });
    told.update("end", state("idle", { stopReason: "end_turn" }));
    for (const t of [transcriptOf(told.stored()), transcriptOf(told.live())]) {
      expect(t.entries.map((e) => e.kind)).toEqual(["user-message", "tool-call", "terminal", "turn-end"]);
      const entry = t.terminal("term-1") as TerminalEntry;
      expect(entry).toBe(t.at(2));
      expect(entry).toMatchObject({
        id: `terminal:${AGENT}:term-1`,
        command: "npm test",
        cwd: undefined,
        output: "PASS a\n✓ done\n",
        exitStatus: { exitCode: 0, signal: null },
        size: { cols: 80, rows: 24 },
        endedAt: 1000,
      });
      expect((t.at(1) as ToolCallEntry).terminals).toEqual(["term-1"]);
    }
    expect(transcriptOf(told.stored().slice(0, 5)).terminal("term-1")?.output).toBe("old");
  });

  it("lists a v2 diff's file changes, and clears what a tool update sets to null", () => {
    const told = new Told(true).prompt("p", "rename it");
    const diff = {
      type: "diff",
      changes: [{ operation: "move", oldPath: "/w/a.ts", path: "/w/b.ts" }, { operation: "add", path: "/w/c.ts" }],
      patch: { format: "git_patch", text: "diff --git a/a.ts b/b.ts\n" },
    };
    const tool = (fields: Payload) => ({ sessionUpdate: "tool_call_update", toolCallId: "c", ...fields });
    told.update("c", tool({ title: "Rename", kind: "move", status: "in_progress" }));
    told.update("c-2", { sessionUpdate: "tool_call_content_chunk", toolCallId: "c", content: diff });
    const patched = transcriptOf(told.stored()).at(1) as ToolCallEntry;
    expect(patched.changes).toEqual([
      { path: "/w/b.ts", operation: "move", oldPath: "/w/a.ts", patch: "diff --git a/a.ts b/b.ts\n" },
      { path: "/w/c.ts", operation: "add", patch: "diff --git a/a.ts b/b.ts\n" },
    ]);
    expect(patched.diffs).toEqual([]);
    told.update("c-3", tool({ title: null, kind: null, status: null, content: null }));
    const cleared = transcriptOf(told.stored()).at(1) as ToolCallEntry;
    expect(cleared).toMatchObject({ title: "c", toolKind: "other", status: "pending", content: [], changes: [] });
  });

  it("keeps a plan of a content type it does not know as a raw entry, and each plan id as its own entry", () => {
    const told = new Told(true).update("run", state("running"));
    const items = (planId: string, status: string) => ({ type: "items", planId, entries: plan(status) });
    told.update("a", { sessionUpdate: "plan_update", plan: items("one", "pending") });
    told.update("b", { sessionUpdate: "plan_update", plan: items("two", "pending") });
    told.update("a-2", { sessionUpdate: "plan_update", plan: items("one", "completed") });
    told.update("x", { sessionUpdate: "plan_update", plan: { type: "_board", planId: "three", columns: 3 } });
    const t = transcriptOf(told.stored());
    expect(t.entries.map((e: TranscriptEntry) => e.kind)).toEqual(["plan", "plan", "raw"]);
    expect(t.at(0)).toMatchObject({ entries: plan("completed") });
    expect(t.at(1)).toMatchObject({ entries: plan("pending") });
    expect(t.plan).toEqual(plan("completed"));
  });
});
