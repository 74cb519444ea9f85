// The transcript of Claude Code's and Codex's real sessions: one turn of each through the released
// 0.4.2 server against the scripted model (spec/fixtures/transcript/capture-real-agents.ts made the
// fixtures), reduced as a reopened session is. What the adapters do that no mock does: Claude Code
// opens each streamed message with an empty chunk and shows a Write as a diff before asking; Codex
// asks permission before it reports the tool call, sends a notice as message text, and reports
// usage as `usage_update` only.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  transcriptOf,
  type MessageEntry,
  type PermissionEntry,
  type ToolCallEntry,
} from "../../../lib/sandbox/index.js";
import type { HistoryEvent } from "../../../lib/sandbox/persistence/index.js";

interface Stored {
  sender: "client" | "agent";
  payload: Record<string, unknown> & { jsonrpc: "2.0" };
}

const history = (name: string): HistoryEvent[] =>
  (JSON.parse(readFileSync(fileURLToPath(new URL(`../../fixtures/transcript/${name}`, import.meta.url)), "utf8")) as
    Stored[])
    .map((event, i) => ({
      id: `e${i}`,
      sessionId: "local-1",
      createdAt: 1000 + i,
      connectionId: "c",
      sender: event.sender,
      payload: event.payload,
      eventIndex: i + 1,
    }));

describe("the transcript of a recorded Claude Code turn (claude-agent-acp 0.23.1, real 0.4.2 server)", () => {
  const t = transcriptOf(history("claude-agent-acp-0.23.1.json"));

  it("is prompt, thought, the Write with its diff, the permission, the answer, the end", () => {
    expect(t.entries.map((e) => e.kind)).toEqual([
      "user-message", "thought", "tool-call", "permission", "agent-message", "turn-end",
    ]);
    const isText = (e: (typeof t.entries)[number]): e is MessageEntry => e.kind === "thought" || e.kind === "agent-message";
    const [thought, answer] = t.entries.filter(isText);
    // The empty chunk each streamed block starts with adds nothing.
    expect(thought!.text).toBe("A greeting file is asked for.");
    expect(answer!.text).toBe("Wrote `greeting.txt`.");
    const tool = t.entries.find((e): e is ToolCallEntry => e.kind === "tool-call")!;
    expect(tool).toMatchObject({ toolCallId: "toolu_captureclaude_0_1", toolKind: "edit", status: "completed" });
    expect(tool.title).toBe("Write greeting.txt");
    expect(tool.diffs).toEqual([{ path: "/workspace/greeting.txt", oldText: null, newText: "hello\n" }]);
    const permission = t.entries.find((e): e is PermissionEntry => e.kind === "permission")!;
    expect(permission).toMatchObject({ toolCallId: tool.toolCallId, status: "selected", optionId: "allow" });
    expect(permission.options.map((o) => o.kind)).toEqual(["allow_always", "allow_once", "reject_once"]);
  });

  it("has the usage of the turn: the context from usage_update, the tokens from the prompt's answer", () => {
    expect(t.usage).toMatchObject({ contextUsed: 26, contextSize: 200000, inputTokens: 50, outputTokens: 6 });
    expect(t.isRunning).toBe(false);
    expect(t.pendingPermission).toBeUndefined();
  });
});

describe("the transcript of a recorded Codex turn (codex-acp 0.16.0, real 0.4.2 server)", () => {
  const t = transcriptOf(history("codex-acp-0.16.0.json"));

  it("keeps the permission Codex asks before it reports the tool call, and the call after it", () => {
    expect(t.entries.map((e) => e.kind)).toEqual([
      "user-message", "agent-message", "thought", "permission", "tool-call", "available-commands", "agent-message",
      "turn-end",
    ]);
    const permission = t.entries.find((e): e is PermissionEntry => e.kind === "permission")!;
    const tool = t.entries.find((e): e is ToolCallEntry => e.kind === "tool-call")!;
    expect(permission).toMatchObject({ toolCallId: tool.toolCallId, status: "selected", optionId: "approved" });
    expect(tool).toMatchObject({ toolKind: "execute", status: "completed", title: "echo hello" });
  });

  it("shows Codex's model-metadata notice as message text, then the thought and the answer", () => {
    const messages = t.entries.filter((e): e is MessageEntry => e.kind === "agent-message" || e.kind === "thought");
    expect(messages.map((e) => e.text)).toEqual([
      expect.stringMatching(/^Model metadata for `gpt-5-codex` not found\./),
      "\n\nPrint it with echo.",
      "Printed `hello`.",
    ]);
    expect(t.usage).toMatchObject({ contextUsed: 35, contextSize: 258400 });
  });
});
