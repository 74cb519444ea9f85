// The agents table of docs/agents.md as data: each cell says what an agent does and names the test
// that measures it (file and test title). agents-table.spec.ts checks that the document shows exactly
// this table and that every named test exists, so a cell stands or falls with its test.

/** One cell: what was measured, and where (`undefined`: not measured by the suite). */
export interface Cell {
  text: string;
  proof?: { file: string; test: string };
}

export const COLUMNS = [
  "asks permission",
  "cancel",
  "load / resume",
  "modes",
  "models",
  "shell commands",
  "usage",
] as const;
export type Column = (typeof COLUMNS)[number];

export interface Row {
  agent: string;
  what: string;
  cells: Record<Column, Cell>;
}

const CLAUDE = "spec/interop/real-agents/claude.spec.ts";
const CODEX = "spec/interop/real-agents/codex.spec.ts";
const RECORDED = "spec/sandbox/unit/transcript-real-agents.spec.ts";
const QWEN = "spec/interop/qwen.spec.ts";
const GOOSE = "spec/interop/goose/goose.spec.ts";
const GOOSE_RECOVERY = "spec/interop/goose/goose-recovery.spec.ts";
const CONFIG = "spec/sandbox/integration/session-config.spec.ts";
const DEMO_EDITS = "spec/providers/demo-agent-edits.spec.ts";
const RECORDED_DEMO = "spec/sandbox/unit/transcript-recorded.spec.ts";
const STATE = "spec/persistence/session-state.spec.ts";

const none: Cell = { text: "not measured" };

export const ROWS: Row[] = [
  {
    agent: "claude",
    what: "Claude Code 2.1.83 through claude-agent-acp 0.23.1",
    cells: {
      "asks permission": {
        text: "edits (Write), reads outside the working directory; options allow_always / allow / reject; " +
          "always is remembered; two reads ask at once",
        proof: {
          file: CLAUDE,
          test: "two permission requests open at once are answered independently, the second first",
        },
      },
      cancel: {
        text: "yes: `cancelled`, model stream closed; the next prompt is answered at once with end_turn and zero usage",
        proof: {
          file: CLAUDE,
          test: "cancel mid-stream: the turn ends cancelled, the model stream is closed, nothing of it comes after",
        },
      },
      "load / resume": {
        text: "session/load after a server restart, same transcript",
        proof: {
          file: CLAUDE,
          test: "resumes after a server restart: session/load brings the session back with the same transcript",
        },
      },
      modes: {
        text: "default, acceptEdits, plan, dontAsk, bypassPermissions; reported as a config option only",
        proof: {
          file: CLAUDE,
          test: "lists modes and models; plan mode is switched to and acted on; an unknown mode is refused",
        },
      },
      models: {
        text: "default, sonnet[1m], opus[1m], haiku (with the session and as the `model` option; listModels)",
        proof: {
          file: CLAUDE,
          test: "lists modes and models; plan mode is switched to and acted on; an unknown mode is refused",
        },
      },
      "shell commands": {
        text: "Bash as an `execute` tool call, output in its content (no ACP terminal)",
        proof: {
          file: CLAUDE,
          test: "a shell command shows as an execute tool call with its output, and reaches the transcript",
        },
      },
      usage: {
        text: "usage_update (context, cost) and tokens in the prompt's answer",
        proof: {
          file: RECORDED,
          test: "has the usage of the turn: the context from usage_update, the tokens from the prompt's answer",
        },
      },
    },
  },
  {
    agent: "codex",
    what: "codex-acp 0.16.0 (native)",
    cells: {
      "asks permission": {
        text: "commands that leave its sandbox, before it reports the tool call; options approved / " +
          "approved-execpolicy-amendment / abort (a reject ends the turn `cancelled`)",
        proof: {
          file: CODEX,
          test: "a command that needs approval asks with Codex's options; allowed, it runs and its output comes back",
        },
      },
      cancel: {
        text: "yes: `cancelled`, model stream closed, the next turn is normal",
        proof: {
          file: CODEX,
          test: "cancel mid-stream: the turn ends cancelled, the model stream is closed, nothing of it comes after",
        },
      },
      "load / resume": {
        text: "session/load after a server restart (after authenticate), same transcript",
        proof: {
          file: CODEX,
          test: "resume after a server restart: Codex's session comes back (session/load) with the same transcript",
        },
      },
      modes: {
        text: "read-only (start), auto, full-access",
        proof: {
          file: CODEX,
          test: "lists its modes, switches to auto and acts on it; an unknown mode is refused with the ones it offers",
        },
      },
      models: none,
      "shell commands": {
        text: "exec_command as an `execute` tool call",
        proof: {
          file: CODEX,
          test: "a command that needs approval asks with Codex's options; allowed, it runs and its output comes back",
        },
      },
      usage: {
        text: "usage_update (context only), no tokens in the answer",
        proof: {
          file: RECORDED,
          test: "shows Codex's model-metadata notice as message text, then the thought and the answer",
        },
      },
    },
  },
  {
    agent: "demo",
    what: "lib/providers/local/demo-agent.mjs (scripted, no model)",
    cells: {
      "asks permission": {
        text: "each edit; allow writes, reject fails the tool call",
        proof: {
          file: RECORDED_DEMO,
          test: "merges each tool call's updates, keeps the plan's last state per turn, and follows the permissions",
        },
      },
      cancel: none,
      "load / resume": { text: "no (loadSession false): resumed by replay" },
      modes: none,
      models: none,
      "shell commands": none,
      usage: none,
    },
  },
  {
    agent: "mock",
    what: "spec/support/scripted-agent.mjs as the server's `mock`",
    cells: {
      "asks permission": none,
      cancel: none,
      "load / resume": {
        text: "session/load re-applies stored mode and options",
        proof: {
          file: STATE,
          test: "writes mode and option changes to the record; session/load on a new agent process re-applies them",
        },
      },
      modes: {
        text: "normal, plan (with current_mode_update)",
        proof: {
          file: CONFIG,
          test: "setSessionMode switches mode; the modes, the mode option and the agent's update event agree",
        },
      },
      models: {
        text: "mock, mock-fast (as the `model` option)",
        proof: { file: CONFIG, test: "reports the modes and config options of the session's creation result" },
      },
      "shell commands": none,
      usage: none,
    },
  },
  {
    agent: "qwen",
    what: "qwen-code 0.24.4 (`qwen serve`)",
    cells: {
      "asks permission": {
        text: "edits in mode `default`",
        proof: { file: QWEN, test: "a permission request is answered by handlers.requestPermission and the tool runs" },
      },
      cancel: {
        text: "yes: `cancelled`",
        proof: { file: QWEN, test: "session/cancel during a slow prompt ends the turn with stopReason cancelled" },
      },
      "load / resume": none,
      modes: none,
      models: none,
      "shell commands": none,
      usage: {
        text: "in `_meta` of its replies",
        proof: { file: RECORDED_DEMO, test: "reports the usage qwen attaches to its replies" },
      },
    },
  },
  {
    agent: "goose",
    what: "goose 1.52.0 (`goose serve`)",
    cells: {
      "asks permission": {
        text: "tool calls",
        proof: { file: GOOSE, test: "permission: any session/request_permission is answered by the handler" },
      },
      cancel: {
        text: "yes: `cancelled`",
        proof: { file: GOOSE, test: "cancel: session/cancel during a SLOW prompt ends the turn with `cancelled`" },
      },
      "load / resume": {
        text: "session/load after goose is killed",
        proof: {
          file: GOOSE_RECOVERY,
          test: "after goose is killed the client session/loads its session, which prompts as before",
        },
      },
      modes: none,
      models: none,
      "shell commands": none,
      usage: none,
    },
  },
];

/** The table as docs/agents.md shows it: one row per agent, each measured cell with its test's file. */
export function renderTable(): string {
  // The test's file as text, not a link: the guides ship in the package, the specs do not.
  const cell = (c: Cell) =>
    (c.proof ? `${c.text} (\`${c.proof.file.split("/").pop()}\`)` : c.text).replace(/\|/g, "\\|");
  const lines = [
    `| agent | ${COLUMNS.join(" | ")} |`,
    `| --- | ${COLUMNS.map(() => "---").join(" | ")} |`,
    ...ROWS.map((row) => `| **${row.agent}** (${row.what}) | ${COLUMNS.map((c) => cell(row.cells[c])).join(" | ")} |`),
  ];
  return lines.join("\n");
}
