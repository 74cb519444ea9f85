// The transcript's model, as users read it: what goes in besides the session's own events (the
// client's notes), the entries a transcript is made of, and `Transcript`, one immutable state of it.
// Types only, but for the tool call statuses the builder and the summaries both read. How a
// transcript is built is in `builder.ts`, how a snapshot holds its entries in `snapshot.ts`.
import type {
  InputRequest,
  PermissionOptionInfo,
  PlanEntry,
  SandboxEvent,
  SessionEnded,
} from "../events/events.js";
import type { PlainObject } from "../metadata.js";
import type { HistoryEvent } from "../persistence/history.js";

// ---------------------------------------------------------------------------------------------
// What the transcript is made of besides the session's own events
// ---------------------------------------------------------------------------------------------

/** A prompt block as sent (`{ type: "text", text }`, images, resource links, ...). */
export type TranscriptBlock = PlainObject & { type: string; text?: string };

/**
 * What the client itself knows about a session and the agent's events do not say: what the user sent,
 * how each turn ended, how each permission request was answered. The client emits these into
 * `transcript$` (and stores them with the session's history, so a reopened session shows them too).
 */
export type TranscriptNote =
  | { kind: "prompt-sent"; sessionId: string; prompt: TranscriptBlock[]; at?: number }
  | { kind: "turn-ended"; sessionId: string; stopReason: string; usage?: TokenUsage; at?: number }
  | { kind: "turn-failed"; sessionId: string; message: string; code?: number; at?: number }
  | {
    kind: "permission-answered";
    sessionId: string;
    toolCallId: string;
    outcome: "selected" | "cancelled" | "withdrawn";
    optionId?: string;
    at?: number;
  }
  | {
    kind: "input-answered";
    sessionId: string;
    /** The question's `InputEntry.requestId`. */
    requestId: string;
    action: InputEntry["status"];
    at?: number;
  };

/** Anything `toTranscript()` accepts: live events, the client's notes, stored history envelopes. */
export type TranscriptSource = SandboxEvent | TranscriptNote | HistoryEvent;

// ---------------------------------------------------------------------------------------------
// Entries
// ---------------------------------------------------------------------------------------------

/** A message's content: text (coalesced from its chunks) and the other blocks in arrival order. */
export type ContentBlock = TranscriptBlock;

interface EntryBase {
  /**
   * Stable across snapshots, and derived from the identity of the events the entry came from (never
   * from a count of what came before it), so the same events give the same id whatever else the view
   * holds: live or reopened from a store, with or without a gap or evicted events before it. See
   * `docs/transcript.md` for the scheme.
   */
  readonly id: string;
  /** When the entry began (the event's stored time, or the time it was reduced). */
  readonly at: number;
}

/** A message of the user, the agent, or the agent's thoughts, its chunks joined. */
export interface MessageEntry extends EntryBase {
  readonly kind: "user-message" | "agent-message" | "thought";
  /** User messages only: text the agent replayed (`user_message_chunk`), not a prompt sent from here. */
  readonly replayed: boolean;
  /** The ACP `messageId` when the agent gave one. */
  readonly messageId: string | undefined;
  /** The text blocks joined (computed on first read, then kept). */
  readonly text: string;
  /** Text runs as `{ type: "text", text }` blocks, images and resource links as sent (computed on first read). */
  readonly content: readonly ContentBlock[];
  /** How many chunks this entry holds. */
  readonly chunks: number;
}

/** A tool call with its latest status, content, diffs and locations. */
export interface ToolCallEntry extends EntryBase {
  readonly kind: "tool-call";
  readonly toolCallId: string;
  readonly title: string;
  /** ACP tool kind: read, edit, delete, move, search, execute, think, fetch, other. */
  readonly toolKind: string;
  /** pending, in_progress, completed, failed; with the v2 draft also paused, cancelled. */
  readonly status: string;
  /** ACP tool call content: `{ type: "content" }`, `{ type: "diff" }`, `{ type: "terminal" }`. */
  readonly content: readonly PlainObject[];
  readonly diffs: readonly ToolDiff[];
  /**
   * The file changes of the v2 draft's diffs (`{ type: "diff", changes, patch }`), one per change; a
   * v1 diff, which carries whole texts, is in `diffs`.
   */
  readonly changes: readonly FileChange[];
  /**
   * Terminals the tool runs in: with ACP v1 the client's own (their output is on the processes API);
   * with the v2 draft the agent's, each a `terminal` entry (`Transcript.terminal(id)` finds it).
   */
  readonly terminals: readonly string[];
  readonly locations: readonly { path: string; line?: number | null }[];
  readonly rawInput: unknown;
  readonly rawOutput: unknown;
  readonly startedAt: number;
  /** When the status became completed or failed. */
  readonly endedAt: number | undefined;
  /** How many updates were merged into this entry (the first `tool_call` is 1). */
  readonly updates: number;
}

/** A file change a tool call reported: the path, the old text (none for a new file) and the new. */
export interface ToolDiff {
  path: string;
  oldText: string | null;
  newText: string;
}

/**
 * A file change of a v2 draft diff: `operation` is `add`, `delete`, `modify`, `move`, `copy` or a custom
 * value, `oldPath` the path before a move or copy, `patch` the diff's renderable patch text (a git
 * patch that may cover the diff's other changes too), when the agent gave one.
 */
export interface FileChange {
  path: string;
  operation: string;
  oldPath?: string;
  patch?: string;
}

/**
 * A terminal the agent runs itself (ACP v2 draft, `terminal_update` and `terminal_output_chunk`): one
 * entry per terminal of the agent session, at the place of its first update, patched in place.
 */
export interface TerminalEntry extends EntryBase {
  readonly kind: "terminal";
  readonly terminalId: string;
  readonly command: string | undefined;
  readonly cwd: string | undefined;
  /** The output so far, decoded as UTF-8 (a replacement snapshot replaces it, chunks append). */
  readonly output: string;
  /** Set once the terminal exited (`exitCode` and `signal` when known). */
  readonly exitStatus: { exitCode: number | null; signal: string | null } | undefined;
  /** The size in character cells the command runs with, when known. */
  readonly size: { cols: number; rows: number } | undefined;
  /** When it exited. */
  readonly endedAt: number | undefined;
}

/** The agent's plan as it last reported it. */
export interface PlanTranscriptEntry extends EntryBase {
  readonly kind: "plan";
  /**
   * The latest plan of the turn: ACP replaces the plan wholesale with each update. A v2 draft plan is
   * known by its id instead: one entry per plan, replaced by each of its updates.
   */
  readonly entries: readonly PlanEntry[];
}

/** A permission request, and how it was answered once it was. */
export interface PermissionEntry extends EntryBase {
  readonly kind: "permission";
  readonly toolCallId: string;
  readonly toolCall: PlainObject & { toolCallId: string; title?: string; kind?: string };
  readonly options: readonly PermissionOptionInfo[];
  readonly status: "pending" | "selected" | "cancelled" | "withdrawn";
  /** The option chosen (status `selected`). */
  readonly optionId: string | undefined;
  readonly answeredAt: number | undefined;
}

/**
 * A question of the agent (`InputRequest`: a form or a URL), and how it was answered: `accept`,
 * `decline`, `cancel`, or `withdrawn` (its turn or session ended, or the agent let go, unanswered).
 */
export interface InputEntry extends EntryBase {
  readonly kind: "input";
  /** The agent's request id: what `client.replyInput(sessionId, requestId, reply)` answers. */
  readonly requestId: string;
  readonly request: InputRequest;
  readonly status: "pending" | "accept" | "decline" | "cancel" | "withdrawn";
  readonly answeredAt: number | undefined;
}

/** A notice the agent gave the user (ACP `notice`): live information, not part of the conversation. */
export interface NoticeEntry extends EntryBase {
  readonly kind: "notice";
  /** `info`, `warning`, `error`, or a custom value. */
  readonly severity: string;
  readonly title: string;
  readonly description: string | undefined;
}

/**
 * A context compaction (ACP `compaction_update` and `compaction_summary_chunk`): one entry per
 * `compactionId`, at the place its first update came, patched in place by the later ones.
 */
export interface CompactionEntry extends EntryBase {
  readonly kind: "compaction";
  readonly compactionId: string;
  /** `in_progress`, `completed`, `failed`, `cancelled`, or a custom value. */
  readonly status: string;
  /** The retained summary's content blocks, in order. */
  readonly summary: readonly ContentBlock[];
  /** The summary's text blocks joined. */
  readonly text: string;
  readonly error: string | undefined;
  /** When the status became one other than `in_progress`. */
  readonly endedAt: number | undefined;
}

/** One row of a transcript, told apart by `kind`. */
export type TranscriptEntry =
  | MessageEntry
  | ToolCallEntry
  | PlanTranscriptEntry
  | PermissionEntry
  | InputEntry
  | NoticeEntry
  | CompactionEntry
  | TerminalEntry
  | (EntryBase & { readonly kind: "mode-change"; readonly modeId: string })
  | (EntryBase & { readonly kind: "config-change"; readonly configOptions: readonly PlainObject[] })
  | (EntryBase & { readonly kind: "model-change"; readonly modelId: string })
  | (EntryBase & { readonly kind: "available-commands"; readonly commands: readonly PlainObject[] })
  | (EntryBase & {
    readonly kind: "session-info";
    /** The title as of this update (`undefined`: unchanged or cleared, see `Transcript.title`). */
    readonly title: string | undefined;
    /** ISO 8601 time of the session's last activity, when the agent gave it. */
    readonly updatedAt: string | undefined;
  })
  | (EntryBase & {
    readonly kind: "events-lost";
    readonly stream: string;
    readonly firstMissing: number;
    readonly lastMissing: number;
  })
  | (EntryBase & { readonly kind: "turn-end"; readonly stopReason: string })
  | (EntryBase & { readonly kind: "session-ended"; readonly ended: SessionEnded })
  | (EntryBase & {
    readonly kind: "agent-error";
    /** `prompt`: the turn failed; `output`: the agent wrote something that was not a message. */
    readonly source: "prompt" | "output";
    readonly message: string;
    readonly code: number | undefined;
  })
  /** An update (or notification) of a kind this model does not know, kept as it came. */
  | (EntryBase & { readonly kind: "raw"; readonly type: string; readonly value: unknown });

/** The `kind` of an entry. */
export type TranscriptEntryKind = TranscriptEntry["kind"];

/** Token usage as the agent reported it (the prompt result's `usage`, the `usage_update` context window). */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  thoughtTokens?: number;
  cachedReadTokens?: number;
  cachedWriteTokens?: number;
  /** Tokens in the context window now, and its size (`usage_update`). */
  contextUsed?: number;
  contextSize?: number;
  cost?: { amount: number; currency: string };
}

/** One immutable state of a transcript. */
export interface Transcript {
  /** Number of entries. */
  readonly size: number;
  /** The entry at `index` (0-based; negative counts from the end), without building the array. */
  at(index: number): TranscriptEntry | undefined;
  /** The entry with this id. */
  get(id: string): TranscriptEntry | undefined;
  /** The index of the entry with this id, or -1 (to scroll a virtualised list to an entry). */
  indexOf(id: string): number;
  /** All entries, built on first read of this snapshot (use `size`/`at` to virtualise a long list). */
  readonly entries: readonly TranscriptEntry[];
  /**
   * A turn is under way: a prompt was sent and its end not yet seen. The end is the client's note
   * (`transcript$` has them); on a bare `events$` this turns true with the agent's first output and
   * has no end to see. With the ACP v2 draft the agent says it: `running` (with or without a prompt)
   * and `requires_action` start or continue a turn, `idle` ends it.
   */
  readonly isRunning: boolean;
  /**
   * The agent reported its work blocked on the user (ACP v2 draft `requires_action`, e.g. a permission
   * to answer); still running. False again once it reports `running` or `idle`.
   */
  readonly requiresAction: boolean;
  /** The agent's own terminal (ACP v2 draft) with this id, the latest of that id. */
  terminal(terminalId: string): TerminalEntry | undefined;
  /** The agent is thinking: running, and the latest entry is a thought. */
  readonly isThinking: boolean;
  /** The permission request waiting for an answer, if any (the oldest when several). */
  readonly pendingPermission: PermissionEntry | undefined;
  /** The agent's question waiting for an answer, if any (the oldest when several). */
  readonly pendingInput: InputEntry | undefined;
  readonly currentModeId: string | undefined;
  readonly currentModelId: string | undefined;
  readonly usage: TokenUsage | undefined;
  /** The latest plan's entries. */
  readonly plan: readonly PlanEntry[] | undefined;
  readonly title: string | undefined;
  /** How the session ended, once it has. */
  readonly ended: SessionEnded | undefined;
  /** Grows with every change: of two snapshots of one transcript, the higher is the newer. */
  readonly version: number;
}

/** Options of `toTranscript()`, `transcriptOf()` and `TranscriptBuilder`. */
export interface TranscriptOptions {
  /** The clock for events without a stored time. Default `Date.now`. */
  now?: () => number;
}

/** The tool call statuses that end a call (`completed`, `failed`): a finished call never goes back. */
export const FINISHED_TOOL_STATUSES: ReadonlySet<string> = new Set(["completed", "failed"]);
/**
 * The same in a v2 draft session, which adds `cancelled`. A v1 session reads as before: there
 * `cancelled` is no status of the protocol, and a later update may move the call on.
 */
export const DRAFT_FINISHED_TOOL_STATUSES: ReadonlySet<string> = new Set([...FINISHED_TOOL_STATUSES, "cancelled"]);
