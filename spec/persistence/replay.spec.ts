import {
  buildReplayText,
  memoryStore,
  replayFromStore,
  type ReplaySource,
} from "../../lib/sandbox/persistence/index.js";

const T0 = Date.UTC(2026, 0, 1);
let index = 0;
const at = (payload: Record<string, unknown>, sender: "client" | "agent"): ReplaySource => {
  index += 1;
  return { eventIndex: index, createdAt: T0 + index * 1000, sender, payload: { jsonrpc: "2.0", ...payload } };
};
const prompt = (text: string) => {
  const params = { sessionId: "s", prompt: [{ type: "text", text }] };
  return at({ id: index + 1, method: "session/prompt", params }, "client");
};
const chunk = (text: string, kind = "agent_message_chunk") => {
  const update = { sessionUpdate: kind, content: { type: "text", text } };
  return at({ method: "session/update", params: { sessionId: "s", update } }, "agent");
};
const stop = () => at({ id: index, result: { stopReason: "end_turn" } }, "agent");

function turns(count: number): ReplaySource[] {
  index = 0;
  const events: ReplaySource[] = [];
  for (let turn = 1; turn <= count; turn++) {
    events.push(prompt(`question ${turn}`), chunk(`answer `), chunk(`number `), chunk(`${turn}`), stop());
  }
  return events;
}

/**
 * Upstream sandbox-agent 0.4.2's rule, restated from its behaviour (for comparison only): one JSON
 * line per event from the oldest on, stopping at the first line that would pass the bound.
 */
function upstreamRule(events: ReplaySource[], maxChars: number): string {
  let text = "header\n";
  for (const event of events) {
    const line = JSON.stringify({ createdAt: event.createdAt, sender: event.sender, payload: event.payload });
    if (text.length + line.length + 1 > maxChars) return `${text}\n[history truncated]`;
    text += `${line}\n`;
  }
  return text;
}

describe("buildReplayText", () => {
  it("returns null for an empty history", () => {
    expect(buildReplayText([])).toBeNull();
  });

  it("replays a short history whole, one line per message, chunks merged, nothing omitted", () => {
    const replay = buildReplayText(turns(2));
    expect(replay?.omittedEvents).toBe(0);
    expect(replay?.includedEvents).toBe(10);
    expect(replay?.omitted).toBeUndefined();
    const expected = "user: question 1\nagent: answer number 1\n(turn ended: end_turn)\nuser: question 2\n";
    expect(replay?.text).toContain(expected);
    expect(replay?.text).not.toContain("omitted");
  });

  it("keeps the newest events within the bound and says which older ones it cut (upstream keeps the oldest)", () => {
    const events = turns(400);
    const replay = buildReplayText(events, { maxChars: 4000 });
    if (!replay) throw new Error("expected a replay");
    expect(replay.text.length).toBeLessThanOrEqual(4000);
    expect(replay.text).toContain("user: question 400\nagent: answer number 400\n(turn ended: end_turn)");
    expect(replay.text).not.toContain("question 1\n");
    expect(replay.includedEvents + replay.omittedEvents).toBe(events.length);
    expect(replay.omitted).toEqual({
      firstIndex: 1,
      lastIndex: replay.omittedEvents,
      firstAt: events[0]!.createdAt,
      lastAt: events[replay.omittedEvents - 1]!.createdAt,
    });
    const cut = replay.omittedEvents;
    const notice = `[${cut} older events omitted to fit the replay bound: #1-#${cut}, 2026-01-01T00:00:01.000Z to `;
    expect(replay.text).toContain(notice);
    // The same history and bound under upstream's rule: the first turn is there, the latest is lost.
    const upstream = upstreamRule(events, 4000);
    expect(upstream).toContain('"text":"question 1"');
    expect(upstream).not.toContain("question 400");
    // And ours carries far more of the conversation in the same room.
    const ourTurns = (replay.text.match(/user: question/g) ?? []).length;
    const upstreamTurns = (upstream.match(/session\/prompt/g) ?? []).length;
    expect(ourTurns).toBeGreaterThan(upstreamTurns * 3);
  });

  it("keeps the end of a newest message that alone exceeds the bound", () => {
    index = 0;
    const long = "x".repeat(5000) + " the last words";
    const replay = buildReplayText([prompt("hi"), chunk(long)], { maxChars: 1000 });
    expect(replay?.text.length).toBeLessThanOrEqual(1000);
    expect(replay?.text).toContain("the last words\n");
    expect(replay?.omittedEvents).toBe(1);
  });

  it("leaves out protocol chatter and bounds unknown notifications", () => {
    index = 0;
    const events = [
      at({ id: 1, method: "initialize", params: {} }, "client"),
      at({ id: 1, result: { protocolVersion: 1 } }, "agent"),
      at({ method: "vendor/odd", params: { blob: "y".repeat(2000) } }, "agent"),
      prompt("go"),
    ];
    const lines = buildReplayText(events)!.text.split("\n");
    expect(lines.filter((line) => line.includes("initialize") || line.includes("protocolVersion"))).toEqual([]);
    const odd = lines.find((line) => line.startsWith("agent vendor/odd: "));
    expect(odd?.length).toBeLessThan(500);
    expect(lines).toContain("user: go");
  });
});

describe("replayFromStore", () => {
  it("reads the newest maxEvents events and counts the unread ones as omitted", async () => {
    const store = memoryStore();
    for (const event of turns(300)) {
      const { createdAt, sender } = event;
      const payload = event.payload as { jsonrpc: "2.0" };
      const id = `e${event.eventIndex}`;
      await store.insertEvent("s", { id, sessionId: "s", createdAt, connectionId: "c", sender, payload });
    }
    const replay = await replayFromStore(store, "s", { maxEvents: 100, maxChars: 100_000 });
    expect(replay?.includedEvents).toBe(100);
    expect(replay?.omittedEvents).toBe(1400);
    expect(replay?.omitted?.firstIndex).toBe(1);
    expect(replay?.omitted?.lastIndex).toBe(1400);
    expect(replay?.text).toContain("user: question 281\n");
    expect(replay?.text).toContain("[1400 older events omitted");
    expect(replay?.text.trimEnd().endsWith("The user's new message follows.")).toBe(true);
  });
});
