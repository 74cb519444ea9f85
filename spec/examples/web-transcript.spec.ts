// The web example's pure parts: how transcript entries read as notices, the markdown sanitiser
// (agent output is untrusted) and the connection badge's states.
import { Subject } from "rxjs";
import type { ConnectionState, DisconnectInfo, SandboxAgentClient } from "../../lib/sandbox/index.js";
import { connectionBadge, type Badge } from "../../examples/web/src/connection-badge.js";
import { renderMarkdown } from "../../examples/web/src/markdown.js";
import { transcriptOf, type TranscriptSource } from "../../lib/sandbox/index.js";
import { noticeOf } from "../../examples/web/src/transcript-view.js";

const S = "s";
const notices = (events: TranscriptSource[]) =>
  transcriptOf(events).entries.map(noticeOf).filter((n) => n !== undefined).map((n) => [n.tone, n.text]);

// The page renders the SDK's transcript (its reduction is specified in spec/sandbox/unit/transcript.spec.ts);
// what is its own is how the entries that are not messages, tools or plans read.
describe("web transcript notices", () => {
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

  it("mentions a turn's end only when it is not the usual one, and how a permission was answered", () => {
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
      ["info", "Permission for “Write b”: answered Allow once"],
      ["info", "Turn ended: cancelled"],
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
