// The ACP v2 draft's part of the reduction, a collaborator of `TranscriptBuilder`: the updates only the
// draft has (message upserts by id, the session's state, tool content chunks, the agent's terminals,
// plans by id), chunks known by `messageId`, what a tool update's `null` clears, and the bookkeeping
// between the prompt, the agent's echo of it, its `idle` and the client's note of the prompt's end.
// It works on the builder's entries only through `DraftHost` (the builder owns the entries, the ids
// and the derived state); it reduces to the same entries as the same conversation told in v1 chunks.
import { isPlainObject, numberOf, stringOf, type PlainObject } from "../metadata.js";
import { Message, MESSAGE_PREFIX } from "./message.js";
import {
  DRAFT_FINISHED_TOOL_STATUSES,
  type ContentBlock,
  type MessageEntry,
  type PermissionEntry,
  type PlanTranscriptEntry,
  type TerminalEntry,
  type TokenUsage,
  type ToolCallEntry,
  type TranscriptEntry,
} from "./model.js";
import type { Derived } from "./snapshot.js";
import { TerminalOutput } from "./terminal-output.js";
import type { PlanEntry } from "../events/events.js";

const str = stringOf;
const num = numberOf;
/** The v2 draft's message upserts by the message kind they make. */
const DRAFT_MESSAGES: ReadonlyMap<string, MessageEntry["kind"]> = new Map([
  ["user_message", "user-message"],
  ["agent_message", "agent-message"],
  ["agent_thought", "thought"],
]);

/** What of the builder the draft's reduction uses: its entries, ids, derived state and shared steps. */
export interface DraftHost {
  readonly size: number;
  entry(index: number): TranscriptEntry | undefined;
  append(entry: TranscriptEntry): number;
  replace(index: number, entry: TranscriptEntry): void;
  /** An entry id: `prefix:identity`, the current event's identity unless given. */
  id(prefix: string, identity?: string): string;
  readonly derived: Derived;
  changed(derived?: Partial<Derived>): void;
  /** Merges a tool call update into its entry (creating it), as a v1 update. */
  tool(sessionId: string, update: PlainObject, at: number): void;
  /** The index of a tool call's entry in the current reading. */
  toolIndex(sessionId: string, toolCallId: string): number | undefined;
  turnEnded(stopReason: string, usage: TokenUsage | undefined, at: number): void;
  settlePermissions(outcome: PermissionEntry["status"], at: number): void;
  reportedUsage(update: PlainObject): void;
  /** A turn the agent's state began: a new turn for tool calls and the plan. */
  turnBegan(): void;
  /** After a stored `session/load` and until the next prompt or state: the agent's output is its replay. */
  readonly replaying: boolean;
  /** The agent's state came: what follows is live again. */
  liveAgain(): void;
  /** The prompt just sent: its entry's index and what of its text an echo has not yet spelled out. */
  readonly echo: { readonly index: number } | undefined;
  /**
   * Whether this part of a user message spells the prompt just sent further (and consumes it); with
   * `anywhere`, also when other entries came after the prompt.
   */
  isEcho(part: string | ContentBlock, anywhere?: boolean): boolean;
}

/** The v2 draft's reduction for one builder: created with it, fed only what the draft says. */
export class DraftReduction {
  readonly #host: DraftHost;
  /**
   * The agent speaks the v2 draft (an update only the draft has came): its messages are known by id
   * wherever they are (chunks of several may interleave), and its state, not its output, starts a turn.
   */
  #active = false;
  /** v2 draft messages by kind, agent session and `messageId` → their entry's index. */
  readonly #messages = new Map<string, number>();
  /** The prompt's echo (the agent's user message for it) was bound to the prompt's entry. */
  #echoBound = false;
  /** A prompt was sent and the client's note of its end (its result) has not come yet. */
  #promptOpen = false;
  /**
   * That prompt's turn was ended by the agent's `idle`: the note, when it comes, adds only its usage.
   * The note comes a little after the `idle` (the prompt resolves on it), possibly after the agent
   * began work of its own, which the note must then leave running.
   */
  #endedByState = false;
  /** Terminals by agent session and `terminalId` → their entry's index and output decoder. */
  readonly #terminals = new Map<string, { index: number; output: TerminalOutput }>();
  /** Plans by agent session and `planId` → their entry's index. */
  readonly #plans = new Map<string, number>();

  constructor(host: DraftHost) {
    this.#host = host;
  }

  /** The session speaks the draft (an update only the draft has came). */
  get active(): boolean {
    return this.#active;
  }

  /** A prompt was sent: its echo and its end are still to come. */
  promptSent(): void {
    this.#promptOpen = true;
    this.#endedByState = false;
    this.#echoBound = false;
  }

  /** The client's note of a prompt's end has come: whether the agent's `idle` had ended that turn already. */
  noted(): boolean {
    const ended = this.#endedByState;
    this.#promptOpen = false;
    this.#endedByState = false;
    return ended;
  }

  /** An update only the v2 draft has: from now on the session is read as the draft's. */
  update(sessionId: string, update: PlainObject & { sessionUpdate: string }, at: number): void {
    this.#active = true;
    switch (update.sessionUpdate) {
      case "state_update":
        return this.#state(update, at);
      case "tool_call_content_chunk":
        return this.#toolContent(sessionId, update, at);
      case "terminal_update":
      case "terminal_output_chunk":
        return this.#terminal(sessionId, update, at);
      case "plan_update":
        return this.#planById(sessionId, update, at);
      default:
        return this.#message(sessionId, DRAFT_MESSAGES.get(update.sessionUpdate)!, update, at);
    }
  }

  /**
   * A v2 draft message upsert (`user_message`, `agent_message`, `agent_thought`): one entry per kind,
   * agent session and `messageId`, at the place of its first update or chunk, with the id a v1 chunk
   * of that `messageId` gives. Patch semantics: an omitted `content` leaves it, `null` or `[]` clears
   * it, an array replaces everything accumulated (chunks included). The agent's user message for the
   * prompt just sent is that prompt's entry, not a second one.
   */
  #message(sessionId: string, kind: MessageEntry["kind"], update: PlainObject, at: number): void {
    this.#host.reportedUsage(update);
    const messageId = str(update.messageId);
    if (messageId === undefined) return;
    const content = update.content === null
      ? []
      : Array.isArray(update.content) ? (update.content.filter(isPlainObject) as ContentBlock[]) : undefined;
    const index = this.#messageIndex(sessionId, kind, messageId);
    if (index === undefined && kind === "user-message" && content !== undefined && this.#bindsEcho(content)) {
      // The prompt as the agent took it in: that prompt's entry, as sent.
      this.#messages.set(`${kind}:${sessionId}:${messageId}`, this.#host.echo!.index);
      return;
    }
    if (index === undefined) {
      const id = this.#host.id(MESSAGE_PREFIX[kind], `${sessionId}:${messageId}`);
      const created = withParts(new Message(kind, id, at, kind === "user-message", messageId, [], 0), content ?? []);
      this.#messages.set(`${kind}:${sessionId}:${messageId}`, this.#host.append(created));
      return;
    }
    if (content === undefined) return;
    const previous = this.#host.entry(index) as Message;
    const { id, at: began, replayed } = previous;
    this.#host.replace(index, withParts(new Message(kind, id, began, replayed, messageId, [], 0), content));
  }

  /**
   * A chunk with a `messageId` in a v2 draft session: appended to its message wherever that message is
   * (chunks of several messages may interleave), or beginning it. Unlike a v1 chunk it starts no turn:
   * the agent's state does.
   */
  chunk(sessionId: string, kind: MessageEntry["kind"], update: PlainObject, at: number): void {
    this.#host.reportedUsage(update);
    const messageId = update.messageId as string;
    const content = isPlainObject(update.content) ? (update.content as ContentBlock) : undefined;
    if (!content) return;
    const part = content.type === "text" ? (content.text ?? "") : content;
    if (part === "") return;
    const key = `${kind}:${sessionId}:${messageId}`;
    const index = this.#messageIndex(sessionId, kind, messageId);
    const echo = this.#host.echo;
    // A new message while the echo is still to come, or the echo going on, spelling out the prompt just
    // sent: that prompt's entry (another user message the agent inserted first may lie between).
    const echoes = index === undefined ? !this.#echoBound && !this.#host.replaying : index === echo?.index;
    if (kind === "user-message" && echoes && this.#host.isEcho(part, true)) {
      this.#echoBound = true;
      this.#messages.set(key, echo!.index);
      return;
    }
    if (index !== undefined) {
      this.#host.replace(index, (this.#host.entry(index) as Message).append(part));
      return;
    }
    const id = this.#host.id(MESSAGE_PREFIX[kind], `${sessionId}:${messageId}`);
    const created = new Message(kind, id, at, kind === "user-message", messageId, [], 0).append(part);
    this.#messages.set(key, this.#host.append(created));
  }

  /** A v2 draft message's entry, also one begun by chunks before the session showed it speaks the draft. */
  #messageIndex(sessionId: string, kind: MessageEntry["kind"], messageId: string): number | undefined {
    const key = `${kind}:${sessionId}:${messageId}`;
    const known = this.#messages.get(key);
    if (known !== undefined) return known;
    const lastIndex = this.#host.size - 1;
    const last = this.#host.entry(lastIndex);
    if (!(last instanceof Message) || last.kind !== kind || last.messageId !== messageId) return undefined;
    this.#messages.set(key, lastIndex);
    return lastIndex;
  }

  /**
   * Whether an agent's user message is its echo of the prompt just sent: live, not yet echoed, and
   * spelling the prompt's text. Not the first user message whatever it says: the agent may insert
   * another (a queued prompt of another client) first. The prompt's acknowledgement names the echo's
   * `messageId`, but the client learns it only with the turn's end, after the echo.
   */
  #bindsEcho(content: readonly ContentBlock[]): boolean {
    if (this.#host.echo === undefined || this.#echoBound || this.#host.replaying) return false;
    if (textOf(content) !== (this.#host.entry(this.#host.echo.index) as Message).text) return false;
    this.#echoBound = true;
    return true;
  }

  /**
   * The agent's state (v2 draft): `running` or `requires_action` begin a turn when none is under way
   * (the agent may start work without a prompt), `idle` ends it with its stop reason (`error` as a
   * failed turn, like a prompt that failed). A state that repeats is a snapshot, not new work: it
   * starts and ends nothing. After a replay, the state the agent reports is live again.
   */
  #state(update: PlainObject, at: number): void {
    const state = str(update.state);
    this.#host.liveAgain();
    if (state === "running" || state === "requires_action") {
      const requiresAction = state === "requires_action";
      if (this.#host.derived.isRunning || this.#host.derived.ended) {
        if (requiresAction !== this.#host.derived.requiresAction) this.#host.changed({ requiresAction });
        return;
      }
      this.#host.turnBegan();
      return this.#host.changed({ isRunning: true, requiresAction });
    }
    if (state !== "idle") {
      this.#host.append({ kind: "raw", id: this.#host.id("raw"), at, type: "state_update", value: update });
      return;
    }
    if (!this.#host.derived.isRunning) {
      if (this.#host.derived.requiresAction) this.#host.changed({ requiresAction: false });
      return;
    }
    // The turn of the prompt sent (when one is waiting for its note): the note will add nothing.
    this.#endedByState = this.#promptOpen;
    const stopReason = str(update.stopReason);
    if (stopReason !== "error") {
      this.#host.turnEnded(stopReason ?? "unreported", undefined, at);
      return this.#host.changed({ requiresAction: false });
    }
    this.#host.settlePermissions("withdrawn", at);
    const error = isPlainObject(update.error) ? update.error : {};
    const message = str(error.message) ?? "error";
    const id = this.#host.id("error");
    this.#host.append({ kind: "agent-error", id, at, source: "prompt", message, code: num(error.code) });
    this.#host.changed({ isRunning: false, requiresAction: false });
  }

  /**
   * What a v2 draft `tool_call_update` clears with `null` (v1 reads `null` as "unchanged"): the title
   * and kind back to their defaults, the status to `pending` (unless the call finished), the content
   * and locations to none.
   */
  toolCleared(sessionId: string, update: PlainObject): void {
    const toolCallId = str(update.toolCallId);
    const index = toolCallId === undefined ? undefined : this.#host.toolIndex(sessionId, toolCallId);
    if (index === undefined || toolCallId === undefined) return;
    const entry = this.#host.entry(index) as ToolCallEntry;
    const cleared: { -readonly [K in keyof ToolCallEntry]?: ToolCallEntry[K] } = {};
    if (update.title === null) cleared.title = toolCallId;
    if (update.kind === null) cleared.toolKind = "other";
    if (update.status === null && !DRAFT_FINISHED_TOOL_STATUSES.has(entry.status)) cleared.status = "pending";
    if (update.content === null) Object.assign(cleared, { content: [], diffs: [], changes: [], terminals: [] });
    if (update.locations === null) cleared.locations = [];
    if (Object.keys(cleared).length > 0) this.#host.replace(index, { ...entry, ...cleared });
  }

  /** A v2 draft tool content chunk: one more content item of the call (which it creates if new). */
  #toolContent(sessionId: string, update: PlainObject, at: number): void {
    const toolCallId = str(update.toolCallId);
    if (toolCallId === undefined || !isPlainObject(update.content)) return;
    const index = this.#host.toolIndex(sessionId, toolCallId);
    const before = index === undefined ? [] : (this.#host.entry(index) as ToolCallEntry).content;
    const content = [...before, update.content];
    this.#host.tool(sessionId, { sessionUpdate: "tool_call_update", toolCallId, content }, at);
  }

  /**
   * A terminal the agent runs (v2 draft): one entry per agent session and `terminalId`, at the place of
   * its first update. `terminal_update` patches it (omitted: unchanged, `null`: cleared; `output` is a
   * replacement snapshot), `terminal_output_chunk` appends output; an `exitStatus` marks it exited.
   */
  #terminal(sessionId: string, update: PlainObject, at: number): void {
    const terminalId = str(update.terminalId);
    if (terminalId === undefined) return;
    const scope = `${sessionId}:${terminalId}`;
    const known = this.#terminals.get(scope) ?? { index: -1, output: new TerminalOutput() };
    const previous = known.index < 0 ? undefined : (this.#host.entry(known.index) as TerminalEntry);
    let output = previous?.output ?? "";
    if (update.sessionUpdate === "terminal_output_chunk") output += known.output.append(String(update.data));
    else if (update.output === null) output = known.output.replace("");
    else if (isPlainObject(update.output)) output = known.output.replace(String(update.output.data));
    const patched = <T>(field: string, read: (value: PlainObject) => T, before: T | undefined): T | undefined =>
      update[field] === null ? undefined : isPlainObject(update[field]) ? read(update[field]) : before;
    const exitStatus = patched(
      "exitStatus",
      (s) => ({ exitCode: num(s.exitCode) ?? null, signal: str(s.signal) ?? null }),
      previous?.exitStatus,
    );
    const size = patched("size", (s) => ({ cols: Number(s.cols), rows: Number(s.rows) }), previous?.size);
    const text = (field: string, before: string | undefined) =>
      update[field] === null ? undefined : (str(update[field]) ?? before);
    const entry: TerminalEntry = {
      kind: "terminal",
      id: previous?.id ?? this.#host.id("terminal", scope),
      at: previous?.at ?? at,
      terminalId,
      command: text("command", previous?.command),
      cwd: text("cwd", previous?.cwd),
      output,
      exitStatus,
      size,
      endedAt: exitStatus === undefined ? undefined : (previous?.endedAt ?? at),
    };
    if (previous !== undefined) return this.#host.replace(known.index, entry);
    const index = this.#host.append(entry);
    this.#terminals.set(scope, { index, output: known.output });
    this.#host.changed({ terminals: new Map(this.#host.derived.terminals).set(terminalId, index) });
  }

  /**
   * A v2 draft plan, known by its id: one entry per plan of the agent session, at the place of its
   * first update (its id from that update's event, as a v1 plan's), replaced by each update. A plan
   * of a content type other than `items` is kept as a raw entry.
   */
  #planById(sessionId: string, update: PlainObject, at: number): void {
    const plan = isPlainObject(update.plan) ? update.plan : {};
    if (plan.type !== "items" || !Array.isArray(plan.entries) || typeof plan.planId !== "string") {
      const type = update.sessionUpdate as string;
      this.#host.append({ kind: "raw", id: this.#host.id("raw"), at, type, value: update });
      return;
    }
    const entries = Object.freeze((plan.entries as PlanEntry[]).slice());
    const scope = `${sessionId}:${plan.planId}`;
    const index = this.#plans.get(scope);
    if (index === undefined) {
      this.#plans.set(scope, this.#host.append({ kind: "plan", id: this.#host.id("plan"), at, entries }));
    } else {
      this.#host.replace(index, { ...(this.#host.entry(index) as PlanTranscriptEntry), entries });
    }
    this.#host.changed({ plan: entries });
  }
}

/** A message with these content blocks as its parts (text as strings, empty text left out). */
function withParts(message: Message, blocks: readonly ContentBlock[]): Message {
  let next = message;
  for (const block of blocks) {
    const part = block.type === "text" ? (block.text ?? "") : block;
    if (part !== "") next = next.append(part);
  }
  return next;
}

function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("");
}
