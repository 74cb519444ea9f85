// Entry identity: tool calls scoped by their agent session, finished tool calls that stay finished,
// ids that come from the events themselves (live or reopened, with a gap or with evicted events
// before them), and a gap entry for what a bounded store no longer holds.
import { firstValueFrom, filter, timeout } from "rxjs";
import {
  groupEntries,
  memoryStore,
  toTranscript,
  transcriptOf,
  type ToolCallEntry,
  type Transcript,
  type TranscriptEntry,
  type TranscriptSource,
} from "../../../lib/sandbox/index.js";
import {
  createRecorder,
  history$,
  type HistoryEvent,
  type NewSessionEvent,
} from "../../../lib/sandbox/persistence/index.js";

const LOCAL = "local-1";
type Payload = Record<string, unknown>;

/** A session's events as the client stores them (prompts and turn ends in their stored form). */
class Session {
  readonly events: NewSessionEvent[] = [];
  #n = 0;

  constructor(public agentSessionId = "agent-a") {}

  prompt(text: string): this {
    const params = { sessionId: this.agentSessionId, prompt: [{ type: "text", text }] };
    return this.#add("client", { method: "session/prompt", params });
  }

  update(update: Payload): this {
    return this.#add("agent", { method: "session/update", params: { sessionId: this.agentSessionId, update } });
  }

  chunk(text: string, sessionUpdate = "agent_message_chunk"): this {
    return this.update({ sessionUpdate, content: { type: "text", text } });
  }

  tool(toolCallId: string, status: string, title = toolCallId): this {
    return this.update({ sessionUpdate: "tool_call", toolCallId, title, status });
  }

  toolUpdate(toolCallId: string, fields: Payload): this {
    return this.update({ sessionUpdate: "tool_call_update", toolCallId, ...fields });
  }

  turnEnd(): this {
    return this.#add("agent", { result: { stopReason: "end_turn" } });
  }

  /** As the store gives them back: indexed 1, 2, 3, ... */
  stored(): HistoryEvent[] {
    return this.events.map((event, i) => ({ ...event, eventIndex: i + 1 }));
  }

  #add(sender: "client" | "agent", payload: Payload): this {
    const n = ++this.#n;
    this.events.push({
      id: `sse:server-1:connection:${n}`,
      sessionId: LOCAL,
      createdAt: 1000 + n,
      connectionId: "server-1",
      sender,
      payload: { jsonrpc: "2.0", ...payload } as NewSessionEvent["payload"],
    });
    return this;
  }
}

const tools = (t: Transcript) => t.entries.filter((e): e is ToolCallEntry => e.kind === "tool-call");
const ids = (entries: readonly TranscriptEntry[]) => entries.map((e) => e.id);

describe("transcript entry identity", () => {
  it("keeps the tool calls of a session resumed as a new agent session apart from the first one's, though the agent numbers them again", () => {
    const session = new Session("agent-a");
    session.prompt("read it").tool("call_1", "pending", "Read a.ts");
    session.toolUpdate("call_1", { status: "completed" }).turnEnd();
    // resumeSession() replayed the history into a new agent session under the same local id.
    session.agentSessionId = "agent-b";
    session.prompt("write it").tool("call_1", "pending", "Write b.ts").toolUpdate("call_1", { status: "in_progress" });

    const t = transcriptOf(session.stored());
    const kinds = ["user-message", "tool-call", "turn-end", "user-message", "tool-call"];
    expect(t.entries.map((e) => e.kind)).toEqual(kinds);
    const [first, second] = tools(t);
    expect(first).toMatchObject({ title: "Read a.ts", status: "completed", updates: 2 });
    expect(second).toMatchObject({ title: "Write b.ts", status: "in_progress", updates: 2 });
    expect(first!.id).not.toBe(second!.id);
    expect(t.isRunning).toBe(true);
  });

  it("never takes a finished tool call back: a late or repeated tool_call keeps what the updates said and fills in the rest", () => {
    const session = new Session();
    const diff = { type: "diff", path: "/w/a.ts", oldText: "a", newText: "b" };
    session
      .prompt("edit")
      // The update that finishes the call arrives before the call itself (an agent's order, or a relay's).
      .toolUpdate("call_1", { status: "completed", content: [diff], rawOutput: { ok: true } })
      .update({
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "Edit a.ts",
        kind: "edit",
        status: "pending",
        content: [],
        rawInput: { path: "a.ts" },
      })
      .tool("call_2", "pending", "Run tests")
      .toolUpdate("call_2", { status: "failed" })
      // Repeated, as some agents do.
      .tool("call_2", "in_progress", "Run tests")
      .turnEnd();

    const t = transcriptOf(session.stored());
    const [edit, run] = tools(t);
    expect(edit).toMatchObject({
      status: "completed",
      title: "Edit a.ts",
      toolKind: "edit",
      rawInput: { path: "a.ts" },
      rawOutput: { ok: true },
      updates: 2,
    });
    expect(edit!.diffs).toEqual([{ path: "/w/a.ts", oldText: "a", newText: "b" }]);
    expect(edit!.endedAt).toBeDefined();
    expect(run).toMatchObject({ status: "failed", updates: 3 });
    const activity = groupEntries(t.entries).find((g) => g.kind === "activity");
    expect(activity).toMatchObject({ summary: { toolCalls: 2, running: 0, failed: 1 } });
    expect(t.isRunning).toBe(false);
  });

  it("gives every entry after a live gap the id it has when the session is reopened from a store that kept every event", () => {
    const session = new Session();
    session.prompt("one").chunk("first answer").turnEnd();
    session.prompt("two").tool("call_1", "completed").chunk("second answer");
    session.update({ sessionUpdate: "plan", entries: [] });
    session.turnEnd().prompt("three").chunk("third answer").turnEnd();
    const stored = session.stored();
    // Live, the events come through the history before the store indexes them, and a gap the
    // connection could not recover shows between them (only live: the store has every event).
    const live: TranscriptSource[] = stored.map(({ eventIndex: _index, ...event }) => event);
    live.splice(4, 0, { kind: "events-lost", stream: "connection", firstMissing: 10, lastMissing: 12 });

    const liveView = transcriptOf(live);
    const reopened = transcriptOf(stored);
    expect(liveView.entries.filter((e) => e.kind === "events-lost")).toHaveLength(1);
    expect(ids(liveView.entries.filter((e) => e.kind !== "events-lost"))).toEqual(ids(reopened.entries));
    expect(new Set(ids(liveView.entries)).size).toBe(liveView.size);
  });

  it("shows what a bounded store evicted as a gap, and gives the entries it still holds the ids they had", async () => {
    const session = new Session();
    session.prompt("a long turn");
    for (let i = 0; i < 30; i++) session.tool(`call_${i}`, "completed");
    session.chunk("the ").chunk("answer").turnEnd();
    const full = memoryStore();
    const bounded = memoryStore({ maxEventsPerSession: 20 });
    for (const event of session.events) {
      await full.insertEvent(LOCAL, event);
      await bounded.insertEvent(LOCAL, event);
    }
    // A subscriber arriving after the turn: its stored history, through history$ as transcript$ reads it.
    const late = (store: ReturnType<typeof memoryStore>, size: number) =>
      firstValueFrom(
        history$(createRecorder(store), LOCAL).pipe(toTranscript(), filter((t) => t.size === size), timeout(5000)),
      );
    const whole = await late(full, 1 + 30 + 2);
    const truncated = await late(bounded, 1 + 17 + 2);

    // 34 events, 20 kept: the prompt and the first 13 tool calls are gone, and the view says so.
    expect(truncated.at(0)).toMatchObject({ kind: "events-lost", stream: "store", firstMissing: 1, lastMissing: 14 });
    const kept = truncated.entries.slice(1);
    expect(kept.map((e) => e.kind)).toEqual([...Array<string>(17).fill("tool-call"), "agent-message", "turn-end"]);
    for (const entry of kept) expect(whole.get(entry.id)).toMatchObject({ kind: entry.kind });
    expect(ids(kept)).toEqual(ids(whole.entries.slice(-19)));
    expect((truncated.at(-2) as { text: string }).text).toBe("the answer");
  });
});
