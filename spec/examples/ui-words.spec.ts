// The UI example's pure parts: how transcript entries read (notices, stop reasons, permission
// answers, a cancelled turn's tools, usage, paths relative to the session's folder), the markdown
// renderer (agent output is untrusted; in the page DOMPurify cleans its output again, checked in
// ui-features.spec.ts) and the connection badge's states.
import { Subject } from "rxjs";
import type { ConnectionState, DisconnectInfo, SandboxAgentClient } from "../../lib/sandbox/index.js";
import { connectionBadge, type Badge } from "../../examples/ui/src/connection-badge.js";
import { markdownHtml } from "../../examples/ui/src/markdown.js";
import { transcriptOf, type ToolCallEntry, type TranscriptSource } from "../../lib/sandbox/index.js";
import {
  cancelledTools, noticeOf, relativePath, shortTitle, stopReasonText, toolStatus, usageText,
} from "../../examples/ui/src/words.js";

const S = "s";
const notices = (events: TranscriptSource[]) =>
  transcriptOf(events).entries.map(noticeOf).filter((n) => n !== undefined).map((n) => [n.tone, n.text]);
const update = (u: Record<string, unknown>): TranscriptSource =>
  ({ kind: "update", sessionId: S, update: u }) as TranscriptSource;

// The page renders the SDK's transcript (its reduction is specified in spec/sandbox/unit/transcript.spec.ts);
// what is its own is how the entries read.
describe("UI transcript notices", () => {
  it("says what was lost, how the session ended and what failed", () => {
    expect(
      notices([
        { kind: "events-lost", stream: "x", firstMissing: 4, lastMissing: 9 },
        { kind: "turn-failed", sessionId: S, message: "prompt failed: boom (code -32000)", code: -32000 },
        { kind: "session-ended", sessionId: S, reason: "error", terminatedBy: "agent", message: "agent exited with code 1" },
      ]),
    ).toEqual([
      ["warn", "Events 4–9 were lost while reconnecting."],
      ["error", "prompt failed: boom (code -32000)"],
      ["error", "Session ended: error (agent exited with code 1)"],
    ]);
  });

  it("mentions a turn's end only when it is not the usual one, in words, and how a permission was answered", () => {
    expect(
      notices([
        { kind: "prompt-sent", sessionId: S, prompt: [{ type: "text", text: "a" }] },
        { kind: "turn-ended", sessionId: S, stopReason: "end_turn" },
        { kind: "prompt-sent", sessionId: S, prompt: [{ type: "text", text: "b" }] },
        {
          kind: "permission-request",
          sessionId: S,
          toolCall: { toolCallId: "t1", title: "Write b" },
          options: [{ optionId: "allow", name: "Allow once", kind: "allow_once" }],
        },
        { kind: "permission-answered", sessionId: S, toolCallId: "t1", outcome: "selected", optionId: "allow" },
        { kind: "turn-ended", sessionId: S, stopReason: "cancelled" },
      ]),
    ).toEqual([
      ["info", "Write b: you answered “Allow once”"],
      ["info", "Cancelled"],
    ]);
  });

  it("gives the agent's notices and context compactions a line each, toned by what they say", () => {
    const text = (t: string) => ({ type: "text", text: t });
    expect(
      notices([
        { kind: "prompt-sent", sessionId: S, prompt: [text("a")] },
        update({ sessionUpdate: "notice", severity: "warning", title: "Rate limited", description: "Retrying in 5 s" }),
        update({ sessionUpdate: "notice", severity: "error", title: "Quota exhausted", description: null }),
        update({ sessionUpdate: "notice", severity: "_vendor", title: "Indexed 40 files" }),
        update({ sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" }),
        update({ sessionUpdate: "compaction_update", compactionId: "c2", status: "in_progress" }),
        update({ sessionUpdate: "compaction_summary_chunk", compactionId: "c2", content: text("the plan") }),
        update({ sessionUpdate: "compaction_update", compactionId: "c2", status: "completed" }),
        update({ sessionUpdate: "compaction_update", compactionId: "c3", status: "failed", error: "too big" }),
      ] as TranscriptSource[]),
    ).toEqual([
      ["warn", "Rate limited: Retrying in 5 s"],
      ["error", "Quota exhausted"],
      ["info", "Indexed 40 files"],
      ["info", "Compacting the conversation…"],
      ["info", "Conversation compacted. Kept: the plan"],
      ["warn", "Compaction failed: too big"],
    ]);
  });

  it("words stop reasons instead of showing their codes", () => {
    expect(["end_turn", "cancelled", "max_tokens", "max_turn_requests", "refusal", "other"].map(stopReasonText)).toEqual([
      "Done",
      "Cancelled",
      "Stopped: the answer reached its token limit",
      "Stopped: too many steps in one turn",
      "The agent refused to go on",
      "Stopped (other)",
    ]);
  });

  it("calls the tools a cancelled turn left unfinished cancelled, and only those", () => {
    const transcript = transcriptOf([
      { kind: "prompt-sent", sessionId: S, prompt: [{ type: "text", text: "one" }] },
      update({ sessionUpdate: "tool_call", toolCallId: "a", title: "Read a", kind: "read", status: "completed" }),
      update({ sessionUpdate: "tool_call", toolCallId: "b", title: "Write b", kind: "edit", status: "failed" }),
      { kind: "turn-ended", sessionId: S, stopReason: "cancelled" },
      { kind: "prompt-sent", sessionId: S, prompt: [{ type: "text", text: "two" }] },
      update({ sessionUpdate: "tool_call", toolCallId: "c", title: "Write c", kind: "edit", status: "failed" }),
      { kind: "turn-ended", sessionId: S, stopReason: "end_turn" },
    ]);
    const cancelled = cancelledTools(transcript);
    const tools = transcript.entries.filter((e): e is ToolCallEntry => e.kind === "tool-call");
    expect(tools.map((t) => toolStatus(t, cancelled.has(t.id)))).toEqual(["completed", "cancelled", "failed"]);
  });

  it("shows paths relative to the session's folder and cuts long titles to one line", () => {
    expect(relativePath("/tmp/home/src/a.ts", "/tmp/home")).toBe("src/a.ts");
    expect(relativePath("/tmp/home/src/a.ts", "/tmp/home/")).toBe("src/a.ts");
    expect(relativePath("/etc/hosts", "/tmp/home")).toBe("/etc/hosts");
    expect(relativePath("/tmp/homework/a", "/tmp/home")).toBe("/tmp/homework/a");
    expect(shortTitle("Edit /tmp/home/src/a.ts and /tmp/home/b.ts", "/tmp/home")).toBe("Edit src/a.ts and b.ts");
    expect(shortTitle("Run `ls`\nin /tmp/home", "/tmp/home")).toBe("Run `ls`");
    expect(shortTitle("x".repeat(200))).toHaveLength(90);
  });

  it("says usage in one line, and nothing when none was reported", () => {
    expect(usageText(undefined)).toBe("");
    expect(usageText({ inputTokens: 1_200, outputTokens: 34 })).toBe("1,234 tokens");
    expect(usageText({ totalTokens: 1_234, contextUsed: 12_000, contextSize: 200_000, cost: { amount: 0.015, currency: "USD" } }))
      .toBe("1,234 tokens · context 12k / 200k · 0.01 USD");
  });
});

describe("UI markdown renderer", () => {
  it("renders markdown but shows raw HTML as text", () => {
    const html = markdownHtml(
      "## Title\n\n<img src=x onerror=alert(1)> and <b>bold</b>\n\n<script>alert(1)</script>",
    );
    expect(html).toContain("<h2>Title</h2>");
    expect(html).not.toMatch(/<img|<script|<b>/);
    expect(html).toContain("&lt;script&gt;");
  });

  it("keeps http(s) links and drops javascript: ones and images", () => {
    const html = markdownHtml(
      "[ok](https://example.com) [bad](javascript:alert(1)) ![pic](https://example.com/a.png)",
    );
    expect(html).toContain('<a href="https://example.com"');
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("<img");
    expect(html).toContain("bad");
  });
});

describe("UI connection badge", () => {
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
