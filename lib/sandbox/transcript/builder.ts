// The reduction: events, the client's notes and stored envelopes, one at a time, into snapshots.
// The builder owns the newest state (the entries' vector, the id index, the open tool calls and
// compactions, the derived state) and moves only forward, which is what lets every snapshot it made
// share its indexes read-only. First the bookkeeping (snapshots, appends, ids, store gaps), then
// `#apply` and `#update`, which send each event kind to its method below. An entry's id comes from
// the identity of the event that made it (see `docs/transcript.md`). The ACP v2 draft's updates (upserts
// by id, the session's state, the agent's terminals, plans by id) go to `DraftReduction`
// (`draft-reduction.ts`), which works on this builder's entries; they reduce to the same entries as the
// same conversation told in v1 chunks.
import { PersistentVector } from "../../internal/persistent-vector.js";
import type { InputRequest, PermissionOptionInfo, PlanEntry, SandboxEvent, SessionEnded } from "../events/events.js";
import { isPlainObject, numberOf, stringOf, type PlainObject } from "../metadata.js";
import type { HistoryEvent } from "../persistence/history.js";
import { Message, MESSAGE_PREFIX, type OpenMessage } from "./message.js";
import {
  DRAFT_FINISHED_TOOL_STATUSES,
  FINISHED_TOOL_STATUSES,
  type CompactionEntry,
  type ContentBlock,
  type FileChange,
  type InputEntry,
  type MessageEntry,
  type PermissionEntry,
  type PlanTranscriptEntry,
  type TokenUsage,
  type ToolCallEntry,
  type ToolDiff,
  type Transcript,
  type TranscriptBlock,
  type TranscriptEntry,
  type TranscriptNote,
  type TranscriptOptions,
  type TranscriptSource,
} from "./model.js";
import { DraftReduction, type DraftHost } from "./draft-reduction.js";
import { Snapshot, type Derived } from "./snapshot.js";
import { isHistoryEvent, messageStamp, readStored, REPLAY_FOLLOWS, usageOf } from "./stored.js";

const str = stringOf;
const num = numberOf;
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

/** The chunks (v1's names) by the message kind they make. */
const CHUNKS: ReadonlyMap<string, MessageEntry["kind"]> = new Map([
  ["user_message_chunk", "user-message"],
  ["agent_message_chunk", "agent-message"],
  ["agent_thought_chunk", "thought"],
]);

/**
 * Reduces events into snapshots. It holds mutable indexes (entry ids, open tool calls) that every
 * snapshot it made shares read-only; it only ever moves forward, which is what makes that safe.
 */
export class TranscriptBuilder {
  #list = PersistentVector.empty<TranscriptEntry>();
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
    requiresAction: false,
    terminals: new Map(),
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
  /** The ACP v2 draft's part of the reduction, working on this builder's entries (see `draft-reduction.ts`). */
  readonly #draft: DraftReduction;
  /**
   * The last entry while v1 chunks coalesce into it: the vector still holds the version it had when
   * it opened, and the snapshots hold it with their chunk count (`#close` puts the current version
   * in the vector before anything else reads the entries). `#openSnapped`: a snapshot has its count.
   */
  #open: OpenMessage | undefined;
  #openSnapped = false;

  constructor(options: TranscriptOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#snapshot = this.#snap();
    this.#draft = new DraftReduction(new TranscriptBuilder.#Host(this));
  }

  /**
   * What of a builder the v2 draft's reduction works on. A class in this class's body, so its methods
   * reach the builder's private members; on the prototype, so a builder pays one small object for it.
   */
  static readonly #Host = class implements DraftHost {
    readonly #b: TranscriptBuilder;
    constructor(builder: TranscriptBuilder) {
      this.#b = builder;
    }
    get size(): number {
      return this.#b.#list.size;
    }
    get derived(): Derived {
      return this.#b.#derived;
    }
    get replaying(): boolean {
      return this.#b.#replaying;
    }
    get echo(): { readonly index: number } | undefined {
      return this.#b.#echo;
    }
    entry(index: number): TranscriptEntry | undefined {
      return this.#b.#list.get(index);
    }
    append(entry: TranscriptEntry): number {
      return this.#b.#append(entry);
    }
    replace(index: number, entry: TranscriptEntry): void {
      this.#b.#replace(index, entry);
    }
    id(prefix: string, identity?: string): string {
      return this.#b.#id(prefix, identity);
    }
    changed(derived?: Partial<Derived>): void {
      this.#b.#changed(derived);
    }
    tool(sessionId: string, update: PlainObject, at: number): void {
      this.#b.#tool(sessionId, update, at);
    }
    toolIndex(sessionId: string, toolCallId: string): number | undefined {
      return this.#b.#tools.get(`${sessionId}:${toolCallId}`)?.index;
    }
    turnEnded(stopReason: string, usage: TokenUsage | undefined, at: number): void {
      this.#b.#turnEnded(stopReason, usage, at);
    }
    settlePermissions(outcome: PermissionEntry["status"], at: number): void {
      this.#b.#settlePermissions(outcome, at);
    }
    reportedUsage(update: PlainObject): void {
      this.#b.#reportedUsage(update);
    }
    turnBegan(): void {
      this.#b.#turn++;
      this.#b.#planIndex = undefined;
    }
    liveAgain(): void {
      this.#b.#replaying = false;
    }
    isEcho(part: string | ContentBlock, anywhere?: boolean): boolean {
      return this.#b.#isEcho(part, anywhere);
    }
  };

  /** The latest snapshot (the empty transcript before the first event). */
  get snapshot(): Transcript {
    return this.#snapshot;
  }

  /** Applies one event; returns the new snapshot, or the same one when the event changed nothing. */
  push(source: TranscriptSource): Transcript {
    const before = this.#version;
    if (isHistoryEvent(source)) {
      this.#evicted(source);
      const input = readStored(source);
      this.#storedId = source.id;
      if (input === REPLAY_FOLLOWS) this.#replaying = true;
      else if (input) this.#apply(input, source.createdAt);
    } else {
      this.#storedId = undefined;
      this.#live++;
      this.#apply(source, "at" in source && typeof source.at === "number" ? source.at : this.#now());
    }
    if (this.#version !== before) this.#snapshot = this.#snap();
    return this.#snapshot;
  }

  #snap(): Transcript {
    const open = this.#open;
    if (open !== undefined && !this.#openSnapped) {
      this.#openSnapped = true;
      return new Snapshot(this.#list, this.#ids, this.#derived, this.#version, open, open.chunks);
    }
    // One snapshot per chunk count: a later snapshot (a change that added no chunk) reads the vector.
    this.#close();
    return new Snapshot(this.#list, this.#ids, this.#derived, this.#version);
  }

  /** The open message's current version into the vector; no change to the transcript. */
  #close(): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    this.#list = this.#list.set(this.#list.size - 1, open.version(open.chunks));
  }

  #changed(derived?: Partial<Derived>): void {
    if (derived) this.#derived = { ...this.#derived, ...derived };
    this.#version++;
  }

  #append(entry: TranscriptEntry): number {
    this.#close();
    const index = this.#list.size;
    const before = this.#list.get(index - 1);
    if (before instanceof Message) before.compact();
    this.#list = this.#list.push(entry);
    this.#ids.set(entry.id, index);
    this.#changed();
    return index;
  }

  #replace(index: number, entry: TranscriptEntry): void {
    this.#close();
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
    // Only a v1 chunk may find the last entry open (it reads no more than the message's kind and ids).
    const open = this.#open !== undefined;
    if (open && (input.kind !== "update" || !this.#isChunk(input.update as unknown as PlainObject))) this.#close();
    switch (input.kind) {
      case "update":
        return this.#update(input.sessionId, input.update as unknown as PlainObject & { sessionUpdate: string }, at);
      case "unknown-update":
        return this.#update(input.sessionId, input.update, at);
      case "prompt-sent":
        this.#draft.promptSent();
        // A wait the turn before left behind (it ended otherwise than by the agent's state) is over.
        if (this.#derived.requiresAction) this.#derived = { ...this.#derived, requiresAction: false };
        return this.#prompt(input.prompt, at);
      case "turn-ended":
        // The agent's `idle` ended the prompt's turn already (v2 draft): its end adds only its usage.
        if (this.#draft.noted()) {
          return input.usage ? this.#changed({ usage: { ...this.#derived.usage, ...input.usage } }) : undefined;
        }
        return this.#turnEnded(input.stopReason, input.usage, at);
      case "turn-failed": {
        if (this.#draft.noted()) return;
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

  /** The update goes to `#chunk` (a v1 chunk, or a v2 draft chunk without a `messageId`). */
  #isChunk(update: PlainObject): boolean {
    const kind = update.sessionUpdate;
    // Compared, not looked up in `CHUNKS`: this runs for every update while a message is open.
    const chunk = kind === "agent_message_chunk" || kind === "agent_thought_chunk" || kind === "user_message_chunk";
    return chunk && !(this.#draft.active && typeof update.messageId === "string");
  }

  #update(sessionId: string, update: PlainObject & { sessionUpdate: string }, at: number): void {
    if (this.#draft.active) {
      const chunkOf = CHUNKS.get(update.sessionUpdate);
      if (chunkOf !== undefined && typeof update.messageId === "string") {
        return this.#draft.chunk(sessionId, chunkOf, update, at);
      }
    }
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        return this.#chunk(sessionId, "agent-message", update, at, false);
      case "agent_thought_chunk":
        return this.#chunk(sessionId, "thought", update, at, false);
      case "user_message_chunk":
        return this.#chunk(sessionId, "user-message", update, at, true);
      case "tool_call":
        return this.#tool(sessionId, update, at);
      case "tool_call_update":
        this.#tool(sessionId, update, at);
        return this.#draft.active ? this.#draft.toolCleared(sessionId, update) : undefined;
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
      case "user_message":
      case "agent_message":
      case "agent_thought":
      case "state_update":
      case "tool_call_content_chunk":
      case "terminal_update":
      case "terminal_output_chunk":
      case "plan_update":
        return this.#draft.update(sessionId, update, at);
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
    // A recorded chunk names its message by the chunk that began it, which a late view may not hold.
    const stamp = messageId === undefined ? messageStamp(update) : undefined;
    const lastIndex = this.#list.size - 1;
    const last = this.#list.get(lastIndex);
    // Chunks coalesce into the latest entry while it is the same kind of message (and, when the agent
    // numbers messages, the same message). A stamp only names a new entry: where chunks coalesce is the
    // same with stamps as without, so an update that replaces an earlier entry in place (a tool call's
    // update, the turn's next plan) never splits a message the recorder's stamps ended around it.
    const sameMessage = messageId === undefined || (last instanceof Message && last.messageId === messageId);
    if (last instanceof Message && last.kind === kind && last.replayed === replayed && sameMessage) {
      // `last` is the open message's base while it is open: the fields read above do not change.
      this.#open ??= last.open();
      this.#open.append(part);
      this.#openSnapped = false;
      this.#changed();
    } else {
      // The agent's message id names the message (within its agent session); without one, the stamp
      // (the chunk that began it, when recorded), else the event that began the entry.
      const prefix = MESSAGE_PREFIX[kind];
      const id = this.#id(prefix, messageId !== undefined ? `${sessionId}:${messageId}` : (stamp ?? this.#key()));
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
  #isEcho(part: string | ContentBlock, anywhere = false): boolean {
    const echo = this.#echo;
    if (!echo || typeof part !== "string") return false;
    // Without message ids the echo must follow the prompt; a v2 agent's echo is known by its id wherever.
    if ((!anywhere && echo.index !== this.#list.size - 1) || !echo.rest.startsWith(part)) return false;
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
    const ends = this.#finished();
    let known = this.#tools.get(scope);
    let previous = known === undefined ? undefined : (this.#list.get(known.index) as ToolCallEntry);
    const finished = previous !== undefined && ends.has(previous.status);
    if (creates && finished && known !== undefined && known.turn < this.#turn) {
      known = undefined;
      previous = undefined;
    }
    // A late `tool_call` loses to what the entry already holds; anything else wins over it.
    const late = creates && previous !== undefined && ends.has(previous.status);
    const reported = str(update.status);
    // A finished call keeps its status, unless the update reports a finishing one.
    const status = previous !== undefined && finished
        && (reported === undefined || !ends.has(reported))
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
      changes: keepContent && previous ? previous.changes : changesOf(merged),
      terminals: keepContent && previous ? previous.terminals : terminalsOf(merged),
      locations: (late && previous && previous.locations.length > 0 ? undefined : locations)
        ?? previous?.locations ?? [],
      rawInput: pick(late, "rawInput" in update ? update.rawInput : undefined, previous?.rawInput),
      rawOutput: pick(late, "rawOutput" in update ? update.rawOutput : undefined, previous?.rawOutput),
      startedAt: previous?.startedAt ?? at,
      endedAt: previous?.endedAt ?? (ends.has(status) ? at : undefined),
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

  /** The tool call statuses that end a call: v1's, or the draft's (with `cancelled`). */
  #finished(): ReadonlySet<string> {
    return this.#draft.active ? DRAFT_FINISHED_TOOL_STATUSES : FINISHED_TOOL_STATUSES;
  }
}

/** The file changes of v2 draft diffs (`{ type: "diff", changes, patch }`); a v1 diff has none. */
function changesOf(content: readonly PlainObject[]): readonly FileChange[] {
  const changes: FileChange[] = [];
  for (const item of content) {
    if (item.type !== "diff" || !Array.isArray(item.changes)) continue;
    const patch = isPlainObject(item.patch) ? str(item.patch.text) : undefined;
    for (const change of item.changes) {
      if (!isPlainObject(change) || typeof change.path !== "string") continue;
      const oldPath = str(change.oldPath);
      changes.push({
        path: change.path,
        operation: str(change.operation) ?? "modify",
        ...(oldPath !== undefined ? { oldPath } : {}),
        ...(patch !== undefined ? { patch } : {}),
      });
    }
  }
  return changes;
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
