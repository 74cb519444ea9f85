import { Observable, type OperatorFunction } from "rxjs";
import {
  envelopeToEvent,
  type InputRequest,
  type PermissionOptionInfo,
  type SandboxEvent,
  type SessionEnded,
} from "./events.js";
import { isPlainObject, type PlainObject } from "./metadata.js";
import type { HistoryEvent } from "./persistence/history.js";
import type { PlanEntry } from "./events.js";

/**
 * The transcript of a session as a reduction of its events: an ordered list of entries, each with a
 * stable id and a kind, plus what a UI derives from them (running, pending permission, mode, model,
 * usage). Framework-free: `toTranscript()` turns any stream of session events (a view's `events$`, a
 * stored `history$()`, a test's array) into immutable snapshots.
 *
 * Cost: a snapshot shares everything with the one before it except the entry that changed. Entries sit
 * in a persistent vector (a 32-way trie), so replacing or appending one copies one path of the trie,
 * never the list. Message and thought text is a rope of chunks appended in place (each snapshot knows
 * how many chunks it sees) and joined only when read, once per entry version; a message another entry
 * follows is compacted to one string per text run.
 */

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
  /** pending, in_progress, completed, failed. */
  readonly status: string;
  /** ACP tool call content: `{ type: "content" }`, `{ type: "diff" }`, `{ type: "terminal" }`. */
  readonly content: readonly PlainObject[];
  readonly diffs: readonly ToolDiff[];
  /** Terminals the tool runs in (their output is on the processes API). */
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

/** The agent's plan as it last reported it. */
export interface PlanTranscriptEntry extends EntryBase {
  readonly kind: "plan";
  /** The latest plan of the turn: ACP replaces the plan wholesale with each update. */
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
   * has no end to see.
   */
  readonly isRunning: boolean;
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

export interface TranscriptOptions {
  /** The clock for events without a stored time. Default `Date.now`. */
  now?: () => number;
}

// ---------------------------------------------------------------------------------------------
// A persistent vector: 32-way trie, path copying
// ---------------------------------------------------------------------------------------------

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;
type Node = unknown[];

class Vec<T> {
  static empty<T>(): Vec<T> {
    return new Vec<T>(0, BITS, []);
  }

  private constructor(readonly size: number, private readonly shift: number, private readonly root: Node) {}

  get(index: number): T | undefined {
    if (index < 0 || index >= this.size) return undefined;
    let node = this.root;
    for (let level = this.shift; level > 0; level -= BITS) node = node[(index >>> level) & MASK] as Node;
    return node[index & MASK] as T;
  }

  set(index: number, value: T): Vec<T> {
    return new Vec<T>(this.size, this.shift, Vec.#assoc(this.root, this.shift, index, value));
  }

  push(value: T): Vec<T> {
    const index = this.size;
    // The trie is full at this depth: a new root one level up, the old root its first child.
    if (index >>> BITS >= 1 << this.shift) {
      const root = [this.root, Vec.#path(this.shift, value)];
      return new Vec<T>(index + 1, this.shift + BITS, root);
    }
    return new Vec<T>(index + 1, this.shift, Vec.#assoc(this.root, this.shift, index, value));
  }

  toArray(): T[] {
    const out: T[] = new Array<T>(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.get(i) as T;
    return out;
  }

  static #path(level: number, value: unknown): Node {
    return level === 0 ? [value] : [Vec.#path(level - BITS, value)];
  }

  static #assoc(node: Node, level: number, index: number, value: unknown): Node {
    const copy = node.slice();
    if (level === 0) {
      copy[index & MASK] = value;
      return copy;
    }
    const slot = (index >>> level) & MASK;
    const child = node[slot] as Node | undefined;
    copy[slot] = child ? Vec.#assoc(child, level - BITS, index, value) : Vec.#path(level - BITS, value);
    return copy;
  }
}

// ---------------------------------------------------------------------------------------------
// Message text: a rope appended in place, each entry version seeing its own prefix
// ---------------------------------------------------------------------------------------------

/**
 * A message entry version. Its chunk list is shared with the versions before and after it: a new
 * chunk is pushed onto the same array and the new version sees one more. Only the builder appends,
 * always to the newest version, so an older version's prefix never changes.
 */
class Message implements MessageEntry {
  #text: string | undefined;
  #content: readonly ContentBlock[] | undefined;
  #parts: (string | ContentBlock)[];
  /** How many of `#parts` this version sees (`chunks`, or fewer once compacted). */
  #seen: number;
  #compacted = false;

  constructor(
    readonly kind: MessageEntry["kind"],
    readonly id: string,
    readonly at: number,
    readonly replayed: boolean,
    readonly messageId: string | undefined,
    parts: (string | ContentBlock)[],
    readonly chunks: number,
  ) {
    this.#parts = parts;
    this.#seen = chunks;
  }

  get text(): string {
    if (this.#text === undefined) {
      let text = "";
      for (let i = 0; i < this.#seen; i++) {
        const part = this.#parts[i];
        if (typeof part === "string") text += part;
      }
      this.#text = text;
    }
    return this.#text;
  }

  get content(): readonly ContentBlock[] {
    if (this.#content === undefined) {
      const blocks: ContentBlock[] = [];
      for (const part of this.#runs()) blocks.push(typeof part === "string" ? { type: "text", text: part } : part);
      this.#content = Object.freeze(blocks);
    }
    return this.#content;
  }

  append(part: string | ContentBlock): Message {
    // The newest version owns the tail; anything else (never the case in the builder) copies.
    const owns = !this.#compacted && this.#parts.length === this.#seen;
    const parts = owns ? this.#parts : this.#parts.slice(0, this.#seen);
    parts.push(part);
    return new Message(this.kind, this.id, this.at, this.replayed, this.messageId, parts, this.chunks + 1);
  }

  /**
   * Once the message is complete (another entry follows it), its chunks become one string per text
   * run: a chunk costs a string header and an array slot, the joined text only its characters. The
   * entry reads the same; earlier versions keep the chunk array they share until they are collected.
   */
  compact(): void {
    if (this.#compacted || this.#seen <= 1) return;
    this.#parts = this.#runs();
    this.#seen = this.#parts.length;
    this.#compacted = true;
  }

  /** Adjacent strings joined, other blocks as they are. */
  #runs(): (string | ContentBlock)[] {
    const runs: (string | ContentBlock)[] = [];
    let run: string[] = [];
    const flush = () => {
      if (run.length > 0) runs.push(run.join(""));
      run = [];
    };
    for (let i = 0; i < this.#seen; i++) {
      const part = this.#parts[i] as string | ContentBlock;
      if (typeof part === "string") run.push(part);
      else {
        flush();
        runs.push(part);
      }
    }
    flush();
    return runs;
  }

  toJSON(): object {
    const { kind, id, at, replayed, messageId, text, content, chunks } = this;
    return { kind, id, at, replayed, ...(messageId !== undefined ? { messageId } : {}), text, content, chunks };
  }
}

// ---------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------

interface Derived {
  isRunning: boolean;
  currentModeId: string | undefined;
  currentModelId: string | undefined;
  usage: TokenUsage | undefined;
  plan: readonly PlanEntry[] | undefined;
  title: string | undefined;
  ended: SessionEnded | undefined;
  /** Index of each pending permission entry, in the order asked. */
  pending: readonly number[];
  /** Index of each pending question (input entry), in the order asked. */
  questions: readonly number[];
}

class Snapshot implements Transcript {
  #entries: readonly TranscriptEntry[] | undefined;

  constructor(
    private readonly list: Vec<TranscriptEntry>,
    private readonly ids: ReadonlyMap<string, number>,
    private readonly derived: Derived,
    readonly version: number,
  ) {}

  get size(): number {
    return this.list.size;
  }

  at(index: number): TranscriptEntry | undefined {
    return this.list.get(index < 0 ? this.list.size + index : index);
  }

  get(id: string): TranscriptEntry | undefined {
    // The id map is shared with later snapshots (entries are only ever added), so an id it knows may
    // be newer than this snapshot: the index bound tells.
    const index = this.indexOf(id);
    return index < 0 ? undefined : this.list.get(index);
  }

  indexOf(id: string): number {
    const index = this.ids.get(id);
    return index === undefined || index >= this.list.size ? -1 : index;
  }

  get entries(): readonly TranscriptEntry[] {
    this.#entries ??= Object.freeze(this.list.toArray());
    return this.#entries;
  }

  get isRunning(): boolean {
    return this.derived.isRunning;
  }

  get isThinking(): boolean {
    return this.derived.isRunning && this.at(-1)?.kind === "thought";
  }

  get pendingPermission(): PermissionEntry | undefined {
    const first = this.derived.pending[0];
    return first === undefined ? undefined : (this.list.get(first) as PermissionEntry);
  }

  get pendingInput(): InputEntry | undefined {
    const first = this.derived.questions[0];
    return first === undefined ? undefined : (this.list.get(first) as InputEntry);
  }

  get currentModeId() {
    return this.derived.currentModeId;
  }

  get currentModelId() {
    return this.derived.currentModelId;
  }

  get usage() {
    return this.derived.usage;
  }

  get plan() {
    return this.derived.plan;
  }

  get title() {
    return this.derived.title;
  }

  get ended() {
    return this.derived.ended;
  }

  toJSON(): object {
    const { entries, isRunning, pendingPermission, pendingInput, currentModeId, currentModelId, usage, title } = this;
    const pending = pendingPermission?.id;
    const question = pendingInput?.id;
    const { ended } = this;
    return {
      entries,
      isRunning,
      pendingPermission: pending,
      ...(question !== undefined ? { pendingInput: question } : {}),
      currentModeId,
      currentModelId,
      usage,
      title,
      ended,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// The builder: the reduction, one event at a time
// ---------------------------------------------------------------------------------------------

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
const TERMINAL_STATUS = new Set(["completed", "failed"]);
/** A field of a merge: the update's value wins, or with `late` (a `tool_call` after the call finished) the entry's. */
const pick = <T>(late: boolean, next: T | undefined, before: T | undefined): T | undefined =>
  late ? (before ?? next) : (next ?? before);

/**
 * The update kinds newer than the typed `SessionUpdate` union, narrowed here by their `sessionUpdate`
 * string (shapes from the stable ACP schema); their fields are read defensively all the same.
 */
type NoticeUpdate = PlainObject & {
  sessionUpdate: "notice";
  severity?: unknown;
  title?: unknown;
  description?: unknown;
};
type CompactionUpdate = PlainObject & {
  sessionUpdate: "compaction_update" | "compaction_summary_chunk";
  compactionId?: unknown;
  status?: unknown;
  summary?: unknown;
  error?: unknown;
  content?: unknown;
};
const PERMISSION_NOTE = "sandbox-agent-rx/permission";
const INPUT_NOTE = "sandbox-agent-rx/input";

/**
 * Reduces events into snapshots. It holds mutable indexes (entry ids, open tool calls) that every
 * snapshot it made shares read-only; it only ever moves forward, which is what makes that safe.
 */
export class TranscriptBuilder {
  #list = Vec.empty<TranscriptEntry>();
  readonly #ids = new Map<string, number>();
  #derived: Derived = {
    isRunning: false,
    currentModeId: undefined,
    currentModelId: undefined,
    usage: undefined,
    plan: undefined,
    title: undefined,
    ended: undefined,
    pending: [],
    questions: [],
  };
  #version = 0;
  /** Prompts seen: a tool call created again in a later turn is a new call (see `#tool`). */
  #turn = 0;
  /** The stored id of the event being applied (undefined: never stored, its identity is `live-N`). */
  #storedId: string | undefined;
  /** Events applied that were never stored (their `live-N` identities). */
  #live = 0;
  /** The highest stored `eventIndex` seen, to tell events the store no longer holds. */
  #lastIndex = 0;
  /** Tool calls by agent session and `toolCallId` → their entry's index and the turn that created it. */
  readonly #tools = new Map<string, { index: number; turn: number }>();
  /** Compactions by agent session and `compactionId` → their entry's index. */
  readonly #compactions = new Map<string, number>();
  /** After a stored `session/load` and until the next prompt: the agent's output is its replay, not a turn. */
  #replaying = false;
  /** The plan entry of the current turn, replaced by each plan update. */
  #planIndex: number | undefined;
  #snapshot: Transcript;
  readonly #now: () => number;
  /** The prompt just sent and what of its text an agent's echo has not yet spelled out. */
  #echo: { index: number; rest: string } | undefined;

  constructor(options: TranscriptOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#snapshot = this.#snap();
  }

  get snapshot(): Transcript {
    return this.#snapshot;
  }

  /** Applies one event; returns the new snapshot, or the same one when the event changed nothing. */
  push(source: TranscriptSource): Transcript {
    const before = this.#version;
    if (isHistoryEvent(source)) {
      this.#evicted(source);
      const input = this.#fromHistory(source);
      this.#storedId = source.id;
      if (input) this.#apply(input, source.createdAt);
    } else {
      this.#storedId = undefined;
      this.#live++;
      this.#apply(source, "at" in source && typeof source.at === "number" ? source.at : this.#now());
    }
    if (this.#version !== before) this.#snapshot = this.#snap();
    return this.#snapshot;
  }

  #snap(): Transcript {
    return new Snapshot(this.#list, this.#ids, this.#derived, this.#version);
  }

  #changed(derived?: Partial<Derived>): void {
    if (derived) this.#derived = { ...this.#derived, ...derived };
    this.#version++;
  }

  #append(entry: TranscriptEntry): number {
    const index = this.#list.size;
    const before = this.#list.get(index - 1);
    if (before instanceof Message) before.compact();
    this.#list = this.#list.push(entry);
    this.#ids.set(entry.id, index);
    this.#changed();
    return index;
  }

  #replace(index: number, entry: TranscriptEntry): void {
    this.#list = this.#list.set(index, entry);
    this.#changed();
  }

  /**
   * An entry's id: `prefix:identity`, the identity being the current event's unless given. An id
   * already taken (the same event read twice, or an agent reusing its own id) gets `#2`, `#3`, ... so
   * ids stay unique; the same events still give the same ids.
   */
  #id(prefix: string, identity = this.#key()): string {
    const base = `${prefix}:${identity}`;
    let id = base;
    for (let n = 2; this.#ids.has(id); n++) id = `${base}#${n}`;
    return id;
  }

  /** The identity of the event being applied: its stored id, or `live-N` for the N-th event never stored. */
  #key(): string {
    return this.#storedId ?? `live-${this.#live}`;
  }

  /**
   * Stored events carry their `eventIndex` (1, 2, 3, ... per session, never reused): a jump means the
   * store no longer holds what lies between (a bounded store evicted it), which the view says with an
   * `events-lost` entry of stream `store` instead of starting silently in the middle.
   */
  #evicted(event: HistoryEvent): void {
    const index = event.eventIndex;
    if (index === undefined) return;
    const firstMissing = this.#lastIndex + 1;
    this.#lastIndex = Math.max(this.#lastIndex, index);
    if (index <= firstMissing) return;
    const lastMissing = index - 1;
    const id = this.#id("gap", `store:${firstMissing}-${lastMissing}`);
    this.#append({ kind: "events-lost", id, at: event.createdAt, stream: "store", firstMissing, lastMissing });
  }

  #apply(input: SandboxEvent | TranscriptNote, at: number): void {
    switch (input.kind) {
      case "update":
        return this.#update(input.sessionId, input.update as unknown as PlainObject & { sessionUpdate: string }, at);
      case "unknown-update":
        return this.#update(input.sessionId, input.update, at);
      case "prompt-sent":
        return this.#prompt(input.prompt, at);
      case "turn-ended":
        return this.#turnEnded(input.stopReason, input.usage, at);
      case "turn-failed": {
        this.#settlePermissions("withdrawn", at);
        const { message, code } = input;
        this.#append({ kind: "agent-error", id: this.#id("error"), at, source: "prompt", message, code });
        return this.#changed({ isRunning: false });
      }
      case "permission-request":
        return this.#permissionAsked(input.toolCall, input.options, at);
      case "permission-answered":
        return this.#permissionAnswered(input.toolCallId, input.outcome, input.optionId, at);
      case "input-request":
        return this.#inputAsked(input.requestId, input.request, at);
      case "input-answered": {
        const asked = (i: number) => (this.#list.get(i) as InputEntry).requestId === input.requestId;
        const index = this.#derived.questions.find(asked);
        if (index !== undefined) this.#settleInput(index, input.action, at);
        return;
      }
      case "session-ended":
        // The server's notice and the one the client makes up when the agent exits may both come.
        if (this.#derived.ended) return;
        this.#settlePermissions("withdrawn", at);
        // One per transcript: the same id whether the server's notice or the client's came first.
        this.#append({ kind: "session-ended", id: this.#id("ended", "session"), at, ended: stripKind(input) });
        return this.#changed({ isRunning: false, ended: stripKind(input) });
      case "events-lost": {
        const { stream, firstMissing, lastMissing } = input;
        const id = this.#id("gap", `${stream}:${firstMissing}-${lastMissing}`);
        this.#append({ kind: "events-lost", id, at, stream, firstMissing, lastMissing });
        return;
      }
      case "parse-error": {
        const message = input.error;
        this.#append({ kind: "agent-error", id: this.#id("error"), at, source: "output", message, code: undefined });
        return;
      }
      case "agent-exited":
        return;
      case "notification":
        this.#append({ kind: "raw", id: this.#id("raw"), at, type: input.method, value: input.params });
        return;
    }
  }

  #update(sessionId: string, update: PlainObject & { sessionUpdate: string }, at: number): void {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        return this.#chunk(sessionId, "agent-message", update, at, false);
      case "agent_thought_chunk":
        return this.#chunk(sessionId, "thought", update, at, false);
      case "user_message_chunk":
        return this.#chunk(sessionId, "user-message", update, at, true);
      case "tool_call":
      case "tool_call_update":
        return this.#tool(sessionId, update, at);
      case "plan":
        return this.#plan(Array.isArray(update.entries) ? (update.entries as PlanEntry[]) : [], at);
      case "current_mode_update": {
        const modeId = String(update.currentModeId);
        this.#append({ kind: "mode-change", id: this.#id("mode"), at, modeId });
        return this.#changed({ currentModeId: modeId });
      }
      case "config_option_update":
        return this.#config(Array.isArray(update.configOptions) ? update.configOptions.filter(isPlainObject) : [], at);
      case "available_commands_update": {
        const commands = Array.isArray(update.availableCommands) ? update.availableCommands.filter(isPlainObject) : [];
        this.#append({ kind: "available-commands", id: this.#id("commands"), at, commands });
        return;
      }
      case "session_info_update": {
        // Partial: an omitted title leaves it as it was, `null` clears it.
        const title = str(update.title);
        const updatedAt = str(update.updatedAt);
        this.#append({ kind: "session-info", id: this.#id("info"), at, title, updatedAt });
        if (title !== undefined || update.title === null) this.#changed({ title });
        return;
      }
      case "usage_update":
        return this.#usage(update);
      case "notice":
        return this.#notice(update as NoticeUpdate, at);
      case "compaction_update":
      case "compaction_summary_chunk":
        return this.#compaction(sessionId, update as CompactionUpdate, at);
      default:
        this.#append({ kind: "raw", id: this.#id("raw"), at, type: update.sessionUpdate, value: update });
    }
  }

  #prompt(prompt: readonly TranscriptBlock[], at: number): void {
    this.#turn++;
    this.#replaying = false;
    this.#planIndex = undefined;
    let message = new Message("user-message", this.#id("user"), at, false, undefined, [], 0);
    for (const block of prompt) message = message.append(block.type === "text" ? (block.text ?? "") : block);
    this.#append(message);
    this.#echo = { index: this.#list.size - 1, rest: message.text };
    this.#changed({ isRunning: true });
  }

  #chunk(sessionId: string, kind: MessageEntry["kind"], update: PlainObject, at: number, replayed: boolean): void {
    this.#reportedUsage(update);
    const content = isPlainObject(update.content) ? (update.content as ContentBlock) : undefined;
    if (!content) return;
    const part = content.type === "text" ? (content.text ?? "") : content;
    // An empty text chunk (qwen ends each reply with one that carries only usage) adds nothing.
    if (part === "") return;
    if (replayed && this.#isEcho(part)) return;
    const messageId = str(update.messageId);
    const lastIndex = this.#list.size - 1;
    const last = this.#list.get(lastIndex);
    // Chunks coalesce into the latest entry while it is the same kind of message (and, when the agent
    // numbers messages, the same message).
    const sameMessage = messageId === undefined || (last instanceof Message && last.messageId === messageId);
    if (last instanceof Message && last.kind === kind && last.replayed === replayed && sameMessage) {
      this.#replace(lastIndex, last.append(part));
    } else {
      // The agent's message id names the message (within its agent session); without one, the event
      // that began it does.
      const prefix = kind === "thought" ? "thought" : kind === "user-message" ? "user" : "message";
      const id = this.#id(prefix, messageId === undefined ? this.#key() : `${sessionId}:${messageId}`);
      this.#append(new Message(kind, id, at, replayed, messageId, [], 0).append(part));
    }
    // Output without a prompt (a bare `events$`) starts a turn, unless it is a load's replay.
    if (!replayed && !this.#replaying && !this.#derived.isRunning && !this.#derived.ended) {
      this.#changed({ isRunning: true });
    }
  }

  /**
   * Some agents (qwen) echo the prompt they were sent back as `user_message_chunk`s right after it: those
   * chunks are the prompt entry already shown, not replayed history, as long as they spell its text.
   */
  #isEcho(part: string | ContentBlock): boolean {
    const echo = this.#echo;
    if (!echo || typeof part !== "string") return false;
    if (echo.index !== this.#list.size - 1 || !echo.rest.startsWith(part)) return false;
    echo.rest = echo.rest.slice(part.length);
    return true;
  }

  /** Usage some agents attach to their updates' `_meta` (qwen: `_meta.usage` on a reply's last chunk). */
  #reportedUsage(update: PlainObject): void {
    const usage = isPlainObject(update._meta) ? usageOf(update._meta.usage) : undefined;
    if (usage) this.#changed({ usage: { ...this.#derived.usage, ...usage } });
  }

  /**
   * A tool call and its updates merged into one entry. ACP tool call ids are unique within one agent
   * session only (a session resumed as a new agent session numbers its calls from `call_1` again), so
   * the entry is keyed by the agent session and the id; a `tool_call` for a finished call of an earlier
   * turn starts a new entry too (an agent restarted under the same session id may number again).
   * Merging keeps what both say: a field the update leaves out keeps its value, a terminal status
   * (completed, failed) never goes back, and a `tool_call` that comes after the call finished (late,
   * or repeated) only fills in what the entry does not have yet.
   */
  #tool(sessionId: string, update: PlainObject, at: number): void {
    const toolCallId = str(update.toolCallId);
    if (toolCallId === undefined) return;
    const scope = `${sessionId}:${toolCallId}`;
    const creates = update.sessionUpdate === "tool_call";
    let known = this.#tools.get(scope);
    let previous = known === undefined ? undefined : (this.#list.get(known.index) as ToolCallEntry);
    const finished = previous !== undefined && TERMINAL_STATUS.has(previous.status);
    if (creates && finished && known !== undefined && known.turn < this.#turn) {
      known = undefined;
      previous = undefined;
    }
    // A late `tool_call` loses to what the entry already holds; anything else wins over it.
    const late = creates && previous !== undefined && TERMINAL_STATUS.has(previous.status);
    const reported = str(update.status);
    const status = previous !== undefined && finished && (reported === undefined || !TERMINAL_STATUS.has(reported))
      ? previous.status
      : pick(late, reported, previous?.status) ?? "pending";
    const listed = Array.isArray(update.content) ? update.content.filter(isPlainObject) : undefined;
    const content = late && previous !== undefined && previous.content.length > 0 ? previous.content : listed;
    const locations = Array.isArray(update.locations)
      ? update.locations.filter(isPlainObject).map((l) => ({
        path: String(l.path ?? ""),
        ...(typeof l.line === "number" || l.line === null ? { line: l.line } : {}),
      }))
      : undefined;
    const keepContent = content === undefined || content === previous?.content;
    const merged = content ?? previous?.content ?? [];
    const entry: ToolCallEntry = {
      kind: "tool-call",
      id: previous?.id ?? this.#id("tool", scope),
      at: previous?.at ?? at,
      toolCallId,
      // The title and kind an entry got by default (its id, `other`) are none: a late `tool_call` may give them.
      title: pick(late, str(update.title), previous?.title === toolCallId ? undefined : previous?.title)
        ?? toolCallId,
      toolKind: pick(late, str(update.kind), previous?.toolKind === "other" ? undefined : previous?.toolKind)
        ?? "other",
      status,
      content: merged,
      diffs: keepContent && previous ? previous.diffs : diffsOf(merged),
      terminals: keepContent && previous ? previous.terminals : terminalsOf(merged),
      locations: (late && previous && previous.locations.length > 0 ? undefined : locations)
        ?? previous?.locations ?? [],
      rawInput: pick(late, "rawInput" in update ? update.rawInput : undefined, previous?.rawInput),
      rawOutput: pick(late, "rawOutput" in update ? update.rawOutput : undefined, previous?.rawOutput),
      startedAt: previous?.startedAt ?? at,
      endedAt: previous?.endedAt ?? (TERMINAL_STATUS.has(status) ? at : undefined),
      updates: (previous?.updates ?? 0) + 1,
    };
    if (known === undefined) this.#tools.set(scope, { index: this.#append(entry), turn: this.#turn });
    else this.#replace(known.index, entry);
  }

  /** A notice: an entry of its own, never merged (ACP: fire-and-forget information for the user). */
  #notice(update: NoticeUpdate, at: number): void {
    const title = str(update.title) ?? "";
    const description = str(update.description);
    const severity = str(update.severity) ?? "info";
    this.#append({ kind: "notice", id: this.#id("notice"), at, severity, title, description });
  }

  /**
   * A compaction's updates (patches: an omitted field stays, `null` clears it, `summary: []` too) and
   * summary chunks (appended in order) merged into one entry per `compactionId` of the agent session;
   * the first of either creates it, a chunk as `in_progress`.
   */
  #compaction(sessionId: string, update: CompactionUpdate, at: number): void {
    const compactionId = str(update.compactionId);
    if (compactionId === undefined) return;
    const scope = `${sessionId}:${compactionId}`;
    const index = this.#compactions.get(scope);
    const previous = index === undefined ? undefined : (this.#list.get(index) as CompactionEntry);
    let summary = previous?.summary ?? [];
    let error = previous?.error;
    let status = previous?.status ?? "in_progress";
    if (update.sessionUpdate === "compaction_summary_chunk") {
      if (isPlainObject(update.content)) summary = [...summary, update.content as ContentBlock];
    } else {
      status = str(update.status) ?? status;
      if (update.summary === null) summary = [];
      else if (Array.isArray(update.summary)) summary = update.summary.filter(isPlainObject) as ContentBlock[];
      if (update.error === null) error = undefined;
      else if (typeof update.error === "string") error = update.error;
    }
    const text = summary === previous?.summary ? previous.text : summary.map((b) => str(b.text) ?? "").join("");
    const entry: CompactionEntry = {
      kind: "compaction",
      id: previous?.id ?? this.#id("compaction", scope),
      at: previous?.at ?? at,
      compactionId,
      status,
      summary: Object.freeze(summary.slice()),
      text,
      error,
      endedAt: previous?.endedAt ?? (status !== "in_progress" ? at : undefined),
    };
    if (index === undefined) this.#compactions.set(scope, this.#append(entry));
    else this.#replace(index, entry);
  }

  #plan(entries: PlanEntry[], at: number): void {
    const plan = Object.freeze(entries.slice());
    if (this.#planIndex === undefined) {
      this.#planIndex = this.#append({ kind: "plan", id: this.#id("plan"), at, entries: plan });
    } else {
      const previous = this.#list.get(this.#planIndex) as PlanTranscriptEntry;
      this.#replace(this.#planIndex, { ...previous, entries: plan });
    }
    this.#changed({ plan });
  }

  #config(configOptions: PlainObject[], at: number): void {
    this.#append({ kind: "config-change", id: this.#id("config"), at, configOptions });
    const model = configOptions.find((o) => o.category === "model" || o.id === "model");
    const modelId = str(model?.currentValue);
    const mode = configOptions.find((o) => o.category === "mode" || o.id === "mode");
    const modeId = str(mode?.currentValue) ?? this.#derived.currentModeId;
    if (modelId !== undefined && modelId !== this.#derived.currentModelId) {
      // The first model the events name is what the session had, not a change to it.
      if (this.#derived.currentModelId !== undefined) {
        this.#append({ kind: "model-change", id: this.#id("model"), at, modelId });
      }
      this.#changed({ currentModelId: modelId, currentModeId: modeId });
    } else if (modeId !== this.#derived.currentModeId) {
      this.#changed({ currentModeId: modeId });
    }
  }

  /**
   * `usage_update`: the context window now (`used` of `size` tokens) and the session's cumulative
   * cost, as derived state (`Transcript.usage`), no entry. The cost is the agent's running total, so
   * the latest replaces the one before; `cost: null` leaves it as it was.
   */
  #usage(update: PlainObject): void {
    const cost = isPlainObject(update.cost) && typeof update.cost.amount === "number"
      ? { amount: update.cost.amount, currency: String(update.cost.currency ?? "") }
      : undefined;
    const usage: TokenUsage = { ...this.#derived.usage };
    const used = num(update.used);
    const size = num(update.size);
    if (used !== undefined) usage.contextUsed = used;
    if (size !== undefined) usage.contextSize = size;
    if (cost) usage.cost = cost;
    this.#changed({ usage });
  }

  #turnEnded(stopReason: string, reported: TokenUsage | undefined, at: number): void {
    this.#settlePermissions("withdrawn", at);
    this.#append({ kind: "turn-end", id: this.#id("turn"), at, stopReason });
    const usage = reported ? { ...this.#derived.usage, ...reported } : this.#derived.usage;
    this.#changed({ isRunning: false, usage });
  }

  #permissionAsked(toolCall: PermissionEntry["toolCall"], options: readonly PermissionOptionInfo[], at: number): void {
    const index = this.#append({
      kind: "permission",
      id: this.#id("permission"),
      at,
      toolCallId: toolCall.toolCallId,
      toolCall,
      options,
      status: "pending",
      optionId: undefined,
      answeredAt: undefined,
    });
    this.#changed({ pending: [...this.#derived.pending, index] });
  }

  #permissionAnswered(
    toolCallId: string,
    outcome: PermissionEntry["status"],
    optionId: string | undefined,
    at: number,
  ) {
    const index = this.#derived.pending.find((i) => (this.#list.get(i) as PermissionEntry).toolCallId === toolCallId);
    if (index === undefined) return;
    this.#settle(index, outcome, optionId, at);
  }

  /** A turn or session that ends takes its unanswered requests (permissions and questions) with it. */
  #settlePermissions(outcome: PermissionEntry["status"], at: number): void {
    for (const index of this.#derived.pending) this.#settle(index, outcome, undefined, at);
    for (const index of this.#derived.questions) this.#settleInput(index, "withdrawn", at);
  }

  #inputAsked(requestId: string, request: InputRequest, at: number): void {
    const id = this.#id("input");
    const index = this.#append({ kind: "input", id, at, requestId, request, status: "pending", answeredAt: undefined });
    this.#changed({ questions: [...this.#derived.questions, index] });
  }

  #settleInput(index: number, status: InputEntry["status"], at: number): void {
    const previous = this.#list.get(index) as InputEntry;
    this.#replace(index, { ...previous, status, answeredAt: at });
    this.#changed({ questions: this.#derived.questions.filter((i) => i !== index) });
  }

  #settle(index: number, status: PermissionEntry["status"], optionId: string | undefined, at: number): void {
    const previous = this.#list.get(index) as PermissionEntry;
    this.#replace(index, { ...previous, status, optionId, answeredAt: at });
    this.#changed({ pending: this.#derived.pending.filter((i) => i !== index) });
  }

  /** A stored envelope as the event or note it was when live (undefined: nothing for the transcript). */
  #fromHistory(event: HistoryEvent): SandboxEvent | TranscriptNote | undefined {
    const payload = event.payload as PlainObject;
    const params = isPlainObject(payload.params) ? payload.params : {};
    const sessionId = event.sessionId;
    if (event.sender === "client") {
      if (payload.method === "session/prompt" && Array.isArray(params.prompt)) {
        return { kind: "prompt-sent", sessionId, prompt: params.prompt.filter(isPlainObject) as TranscriptBlock[] };
      }
      if (payload.method === "session/load") {
        this.#replaying = true;
        return undefined;
      }
      const note = isPlainObject(payload._meta) ? payload._meta[PERMISSION_NOTE] : undefined;
      if (isPlainObject(note) && typeof note.toolCallId === "string") return permissionNote(sessionId, note);
      const answered = isPlainObject(payload._meta) ? payload._meta[INPUT_NOTE] : undefined;
      if (isPlainObject(answered) && typeof answered.requestId === "string") return inputNote(sessionId, answered);
      return undefined;
    }
    if (payload.method === undefined) {
      // A response: the stored end of a turn (or its failure).
      if (isPlainObject(payload.result) && typeof payload.result.stopReason === "string") {
        const usage = usageOf(payload.result.usage);
        return { kind: "turn-ended", sessionId, stopReason: payload.result.stopReason, ...(usage ? { usage } : {}) };
      }
      if (isPlainObject(payload.error)) {
        const code = num(payload.error.code);
        const message = String(payload.error.message ?? "error");
        return { kind: "turn-failed", sessionId, message, ...(code !== undefined ? { code } : {}) };
      }
      return undefined;
    }
    return envelopeToEvent(payload as Parameters<typeof envelopeToEvent>[0]);
  }
}

function inputNote(sessionId: string, note: PlainObject): TranscriptNote {
  const known = ["accept", "decline", "cancel", "withdrawn"] as const;
  const action = known.find((a) => a === note.action) ?? "cancel";
  return { kind: "input-answered", sessionId, requestId: String(note.requestId), action };
}

function permissionNote(sessionId: string, note: PlainObject): TranscriptNote {
  const outcome = note.outcome === "selected" || note.outcome === "withdrawn" ? note.outcome : "cancelled";
  return {
    kind: "permission-answered",
    sessionId,
    toolCallId: String(note.toolCallId),
    outcome,
    ...(typeof note.optionId === "string" ? { optionId: note.optionId } : {}),
  };
}

/** ACP's prompt result `usage` (unstable) as token usage. */
export function usageOf(value: unknown): TokenUsage | undefined {
  if (!isPlainObject(value)) return undefined;
  const usage: TokenUsage = {};
  const keys = [
    "inputTokens",
    "outputTokens",
    "totalTokens",
    "thoughtTokens",
    "cachedReadTokens",
    "cachedWriteTokens",
  ] as const;
  for (const key of keys) {
    const n = num(value[key]);
    if (n !== undefined) usage[key] = n;
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/**
 * How the client stores a permission answer with the session's history (a client-sent response whose
 * `_meta` names the tool call), so a reopened session shows how each request was answered.
 */
export function permissionAnswerPayload(note: Extract<TranscriptNote, { kind: "permission-answered" }>): PlainObject {
  const { toolCallId, outcome, optionId } = note;
  const answer = outcome === "selected" ? { outcome, optionId } : { outcome: "cancelled" };
  return {
    jsonrpc: "2.0",
    result: { outcome: answer },
    _meta: { [PERMISSION_NOTE]: { toolCallId, outcome, ...(optionId !== undefined ? { optionId } : {}) } },
  };
}

/**
 * How the client stores the answer to a question with the session's history (a client-sent response
 * whose `_meta` names the request; the form's values are not kept), so a reopened session shows it.
 */
export function inputAnswerPayload(note: Extract<TranscriptNote, { kind: "input-answered" }>): PlainObject {
  const { requestId, action } = note;
  const result = { action: action === "withdrawn" ? "cancel" : action };
  return { jsonrpc: "2.0", result, _meta: { [INPUT_NOTE]: { requestId, action } } };
}

function diffsOf(content: readonly PlainObject[]): readonly ToolDiff[] {
  const diffs: ToolDiff[] = [];
  for (const item of content) {
    if (item.type !== "diff" || typeof item.path !== "string") continue;
    diffs.push({ path: item.path, oldText: str(item.oldText) ?? null, newText: str(item.newText) ?? "" });
  }
  return diffs;
}

function terminalsOf(content: readonly PlainObject[]): readonly string[] {
  return content.filter((item) => item.type === "terminal" && typeof item.terminalId === "string")
    .map((item) => item.terminalId as string);
}

function stripKind(event: Extract<SandboxEvent, { kind: "session-ended" }>): SessionEnded {
  const { kind: _kind, ...ended } = event;
  return ended;
}

function isHistoryEvent(source: TranscriptSource): source is HistoryEvent {
  return !("kind" in source) && "payload" in source && "sender" in source;
}

// ---------------------------------------------------------------------------------------------
// Grouping for display
// ---------------------------------------------------------------------------------------------

/** What a run of activity between messages amounts to (a collapsed group's one-line summary). */
export interface ActivitySummary {
  toolCalls: number;
  running: number;
  failed: number;
  thoughts: number;
  /** Other entries in the run: plans, permissions, mode changes, notices. */
  other: number;
  /** E.g. "3 tool calls (1 running), 1 thought". */
  text: string;
}

/** A message on its own, or a run of other entries between two messages with its summary (see `groupEntries`). */
export type TranscriptGroup =
  | { kind: "message"; id: string; entry: MessageEntry }
  | { kind: "activity"; id: string; entries: readonly TranscriptEntry[]; summary: ActivitySummary };

/**
 * Entries for display: each message on its own, every run of other entries between two messages as
 * one `activity` group with a summary (what a collapsible "N tool calls" row shows). A group's id is
 * its first entry's, so it is stable while the run grows. Consecutive calls with an unchanged run
 * return groups whose `entries` hold the same entry objects.
 */
export function groupEntries(entries: readonly TranscriptEntry[]): TranscriptGroup[] {
  const groups: TranscriptGroup[] = [];
  let run: TranscriptEntry[] = [];
  const flush = () => {
    if (run.length > 0) groups.push({ kind: "activity", id: run[0]!.id, entries: run, summary: summarise(run) });
    run = [];
  };
  for (const entry of entries) {
    if (entry.kind === "user-message" || entry.kind === "agent-message") {
      flush();
      groups.push({ kind: "message", id: entry.id, entry });
    } else run.push(entry);
  }
  flush();
  return groups;
}

function summarise(run: readonly TranscriptEntry[]): ActivitySummary {
  let toolCalls = 0;
  let running = 0;
  let failed = 0;
  let thoughts = 0;
  for (const entry of run) {
    if (entry.kind === "thought") thoughts++;
    if (entry.kind !== "tool-call") continue;
    toolCalls++;
    if (entry.status === "failed") failed++;
    else if (!TERMINAL_STATUS.has(entry.status)) running++;
  }
  const other = run.length - toolCalls - thoughts;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const states = [running ? `${running} running` : "", failed ? `${failed} failed` : ""].filter(Boolean).join(", ");
  const parts = [
    toolCalls ? `${plural(toolCalls, "tool call")}${states ? ` (${states})` : ""}` : "",
    thoughts ? plural(thoughts, "thought") : "",
    other ? plural(other, "other event") : "",
  ].filter(Boolean);
  return { toolCalls, running, failed, thoughts, other, text: parts.join(", ") };
}

// ---------------------------------------------------------------------------------------------
// As an operator
// ---------------------------------------------------------------------------------------------

/**
 * One session's events (live `SandboxEvent`s, the client's `TranscriptNote`s, or stored
 * `HistoryEvent`s, in any mix; filter the client's `events$` with `forSession`, or use a view's) →
 * transcript snapshots. Emits the empty transcript first, then a snapshot for each event that
 * changed it; consecutive snapshots share every entry that did not change.
 */
export function toTranscript(options: TranscriptOptions = {}): OperatorFunction<TranscriptSource, Transcript> {
  return (source) =>
    new Observable<Transcript>((subscriber) => {
      const builder = new TranscriptBuilder(options);
      subscriber.next(builder.snapshot);
      return source.subscribe({
        next: (event) => {
          const before = builder.snapshot;
          const after = builder.push(event);
          if (after !== before) subscriber.next(after);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

/** The transcript of a finished list of events (tests, server-side rendering). */
export function transcriptOf(events: Iterable<TranscriptSource>, options: TranscriptOptions = {}): Transcript {
  const builder = new TranscriptBuilder(options);
  for (const event of events) builder.push(event);
  return builder.snapshot;
}
