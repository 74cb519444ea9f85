// A recorded chunk carries the id of the chunk that began its message (stamped as it is recorded), so
// a view that starts after the message's first chunks (a bounded store evicted them) names it as the
// live view did; chunks stored before stamps existed still read as they did.
import { transcriptOf, type TranscriptEntry } from "../../../lib/sandbox/index.js";
import type { HistoryEvent } from "../../../lib/sandbox/persistence/index.js";
import { MessageStamps } from "../../../lib/sandbox/transcript/stored.js";

type Payload = Record<string, unknown>;
const AGENT_SESSION = "agent-a";

type Recorded = Array<["agent" | "client", Payload]>;

/** Events recorded as `SessionRecording` records them: each payload through the stamps, indexed 1, 2, ... */
function recorded(payloads: Recorded, stamps = new MessageStamps(), from = 0): HistoryEvent[] {
  return payloads.map(([sender, payload], n) => {
    const i = from + n;
    const id = `sse:s1:connection:${i + 1}`;
    const stamped = stamps.stamp(AGENT_SESSION, id, sender, payload) as HistoryEvent["payload"];
    const at = { createdAt: 1000 + i, eventIndex: i + 1 };
    return { id, sessionId: "local-1", connectionId: "s1", sender, payload: stamped, ...at };
  });
}

const update = (u: Payload): ["agent", Payload] => [
  "agent",
  { jsonrpc: "2.0", method: "session/update", params: { sessionId: AGENT_SESSION, update: u } },
];
const chunk = (text: string, sessionUpdate = "agent_message_chunk") =>
  update({ sessionUpdate, content: { type: "text", text } });
const prompt = (text: string): ["client", Payload] => [
  "client",
  { jsonrpc: "2.0", method: "session/prompt", params: { sessionId: AGENT_SESSION, prompt: [{ type: "text", text }] } },
];

const messages = (entries: readonly TranscriptEntry[]) =>
  entries
    .filter((e) => e.kind === "agent-message" || e.kind === "thought")
    .map((e) => [e.id, (e as { text: string }).text] as const);

describe("message ids that do not depend on what the store evicted", () => {
  const payloads: Recorded = [
    prompt("go"),
    chunk("a"),
    chunk("b"),
    update({ sessionUpdate: "usage_update", used: 10, size: 100 }),
    chunk("c"),
    chunk("", "agent_message_chunk"),
    chunk("think", "agent_thought_chunk"),
    chunk("d"),
    update({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "t", status: "completed" }),
    chunk("e"),
    chunk("f"),
  ];
  const events = recorded(payloads);

  it("names each message by its first chunk, in the whole view and in every view missing its first chunks", () => {
    const whole = messages(transcriptOf(events).entries);
    expect(whole).toEqual([
      ["message:sse:s1:connection:2", "abc"],
      ["thought:sse:s1:connection:7", "think"],
      ["message:sse:s1:connection:8", "d"],
      ["message:sse:s1:connection:10", "ef"],
    ]);
    for (let kept = 1; kept < events.length; kept++) {
      const late = messages(transcriptOf(events.slice(kept)).entries);
      // Each message of the late view is the whole view's of the same id, or its tail.
      for (const [id, text] of late) {
        const same = whole.find(([wholeId]) => wholeId === id);
        expect(same).toBeDefined();
        expect(same![1].endsWith(text)).toBe(true);
      }
    }
  });

  it("reads chunks stored before stamps by the event that began the entry, as before", () => {
    const unstamped = events.map((event) => ({ ...event, payload: JSON.parse(JSON.stringify(event.payload)) }));
    for (const event of unstamped) {
      const meta = (event.payload as { params?: { update?: { _meta?: Payload } } }).params?.update?._meta;
      if (meta) delete meta["sandbox-agent-rx/message"];
    }
    expect(messages(transcriptOf(unstamped).entries)).toEqual(messages(transcriptOf(events).entries));
    expect(messages(transcriptOf(unstamped.slice(2)).entries)[0]).toEqual(["message:sse:s1:connection:3", "bc"]);
  });

  it("keeps a message whole across an update that replaces an earlier entry (a tool call's, the next plan)", () => {
    const plan = (status: string) =>
      update({ sessionUpdate: "plan", entries: [{ content: "x", status, priority: "low" }] });
    const cases: Record<string, Recorded> = {
      "an earlier tool call's update": [
        prompt("go"),
        update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Run", status: "in_progress" }),
        chunk("a"),
        update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }),
        chunk("b"),
      ],
      "the turn's next plan": [prompt("go"), plan("pending"), chunk("a"), plan("completed"), chunk("b")],
    };
    for (const [name, case_] of Object.entries(cases)) {
      const stamped = recorded(case_);
      const unstamped = recorded(case_).map((event) => {
        const payload = JSON.parse(JSON.stringify(event.payload)) as { params?: { update?: { _meta?: Payload } } };
        delete payload.params?.update?._meta;
        return { ...event, payload: payload as HistoryEvent["payload"] };
      });
      const whole = messages(transcriptOf(stamped).entries);
      expect([name, whole.map(([, text]) => text)]).toEqual([name, ["ab"]]);
      expect([name, whole]).toEqual([name, messages(transcriptOf(unstamped).entries)]);
    }
  });

  it("goes on with the message a page reloaded mid-message was recording (read from its stored events)", () => {
    for (let cut = 1; cut < payloads.length; cut++) {
      const before = recorded(payloads.slice(0, cut));
      const stamps = new MessageStamps();
      for (const event of before) stamps.followStored(AGENT_SESSION, event);
      const after = recorded(payloads.slice(cut), stamps, cut);
      expect(messages(transcriptOf([...before, ...after]).entries)).toEqual(messages(transcriptOf(events).entries));
    }
  });
});
