// The web example's pure parts: the transcript reduction (coalescing, tool-call merging, plans,
// notices), the markdown sanitiser (agent output is untrusted) and the connection badge's states.
import { Subject } from "rxjs";
import type { ConnectionState, DisconnectInfo, SandboxAgentClient, SandboxEvent } from "../../lib/sandbox/index.js";
import { connectionBadge, type Badge } from "../../examples/web/src/connection-badge.js";
import { renderMarkdown } from "../../examples/web/src/markdown.js";
import { emptyTranscript, reduce, type LocalEntry } from "../../examples/web/src/transcript-model.js";

const update = (u: Record<string, unknown>): SandboxEvent =>
  ({ kind: "update", sessionId: "s", update: u }) as unknown as SandboxEvent;
const chunk = (sessionUpdate: string, text: string) => update({ sessionUpdate, content: { type: "text", text } });
const run = (entries: Array<SandboxEvent | LocalEntry>) => entries.reduce(reduce, emptyTranscript());

describe("web transcript reduction", () => {
  it("coalesces consecutive chunks of one kind and starts a new item after another kind", () => {
    const t = run([
      { kind: "user-prompt", text: "hi" },
      chunk("agent_thought_chunk", "let me "),
      chunk("agent_thought_chunk", "think"),
      chunk("agent_message_chunk", "Hello "),
      chunk("agent_message_chunk", "world"),
      update({ sessionUpdate: "tool_call", toolCallId: "c1", title: "Read a", kind: "read", status: "pending" }),
      chunk("agent_message_chunk", "Done."),
    ]);
    expect(t.items.map((i) => [i.type, "text" in i ? i.text : i.id])).toEqual([
      ["user", "hi"],
      ["thought", "let me think"],
      ["message", "Hello world"],
      ["tool", "tool-c1"],
      ["message", "Done."],
    ]);
  });

  it("merges tool call updates by id, keeping fields the update leaves out, and bumps rev", () => {
    const t = run([
      update({ sessionUpdate: "tool_call", toolCallId: "c1", title: "Write b", kind: "edit", status: "pending",
        locations: [{ path: "/b" }] }),
      update({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" }),
      update({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed",
        content: [{ type: "content", content: { type: "text", text: "+x" } }] }),
    ]);
    expect(t.items).toHaveLength(1);
    expect(t.items[0]).toMatchObject({
      title: "Write b", kind: "edit", status: "completed", locations: ["/b"], rev: 2,
    });
  });

  it("keeps one plan item per turn, replaced by each plan update", () => {
    const plan = (status: string) => update({ sessionUpdate: "plan", entries: [{ content: "step", status }] });
    const t = run([
      { kind: "user-prompt", text: "a" }, plan("pending"), plan("completed"),
      { kind: "user-prompt", text: "b" }, plan("pending"),
    ]);
    expect(t.items.filter((i) => i.type === "plan").map((i) => i.type === "plan" && i.entries[0]?.status)).toEqual([
      "completed",
      "pending",
    ]);
  });

  it("turns events-lost, session-ended and agent-exited into notices", () => {
    const t = run([
      { kind: "events-lost", stream: "x", firstMissing: 4, lastMissing: 9 },
      { kind: "session-ended", sessionId: "s", reason: "terminated" },
      { kind: "agent-exited", exitCode: 1, success: false },
    ]);
    expect(t.items.map((i) => i.type === "notice" && [i.tone, i.text])).toEqual([
      ["warn", "Events 4–9 were lost while reconnecting."],
      ["error", "Session ended: terminated"],
      ["error", "The agent process exited (code 1)."],
    ]);
  });
});

describe("web markdown sanitiser", () => {
  it("renders markdown but shows raw HTML as text", () => {
    const html = renderMarkdown(
      "## Title\n\n<img src=x onerror=alert(1)> and <b>bold</b>\n\n<script>alert(1)</script>",
    );
    expect(html).toContain("<h2>Title</h2>");
    expect(html).not.toMatch(/<img|<script|<b>/);
    expect(html).toContain("&lt;script&gt;");
  });

  it("keeps http(s) links and drops javascript: ones and images", () => {
    const html = renderMarkdown(
      "[ok](https://example.com) [bad](javascript:alert(1)) ![pic](https://example.com/a.png)",
    );
    expect(html).toContain('<a href="https://example.com"');
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("<img");
    expect(html).toContain("bad");
  });
});

describe("web connection badge", () => {
  it("says lost after a loss (not just disconnected) until a new connect starts", () => {
    const state$ = new Subject<ConnectionState>();
    const disconnected$ = new Subject<DisconnectInfo>();
    const client = { state$, disconnected$ } as unknown as SandboxAgentClient;
    const seen: Badge[] = [];
    connectionBadge(client).subscribe((badge) => seen.push(badge));
    state$.next("connecting");
    state$.next("connected");
    state$.next("reconnecting");
    disconnected$.next({ reason: "retries-exhausted" });
    state$.next("disconnected");
    state$.next("connecting");
    state$.next("connected");
    disconnected$.next({ reason: "disconnected" });
    state$.next("disconnected");
    expect(seen.map((b) => (b.detail ? `${b.state}:${b.detail}` : b.state))).toEqual([
      "connecting", "connected", "reconnecting", "lost:retries-exhausted", "lost:retries-exhausted",
      "connecting", "connected", "disconnected", "disconnected",
    ]);
  });
});
