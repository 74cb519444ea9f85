// A snapshot: one immutable state of a transcript, as the builder hands it out. It holds the entries
// in a persistent vector (a new snapshot shares every unchanged entry, and the trie's unchanged
// nodes, with the one before), the id index the builder shares with all its snapshots, and what
// a UI derives from the entries (running, pending requests, mode, model, usage), kept as one object
// the builder replaces when a field changes. A snapshot made right after a chunk was appended to the
// newest message holds that message open (`OpenMessage`) with its chunk count instead of a version in
// the vector: the version is made when the entry is read, so an update nobody reads leaves only the
// snapshot behind.
import type { PersistentVector } from "../../internal/persistent-vector.js";
import type { PlanEntry, SessionEnded } from "../events/events.js";
import type { OpenMessage } from "./message.js";
import type {
  InputEntry,
  PermissionEntry,
  TerminalEntry,
  TokenUsage,
  Transcript,
  TranscriptEntry,
} from "./model.js";

/** What a snapshot says besides its entries: the builder keeps it current, the snapshot reads it. */
export interface Derived {
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
  /** The agent reported `requires_action` (v2 draft) and neither `running` nor `idle` since. */
  requiresAction: boolean;
  /** The agent's terminals (v2 draft) by terminal id → the index of the latest entry of that id. */
  terminals: ReadonlyMap<string, number>;
}

/** `Transcript` read from the entries' vector, the builder's id index and the derived state. */
export class Snapshot implements Transcript {
  #entries: readonly TranscriptEntry[] | undefined;
  /** The open message's version this snapshot sees, once read. */
  #last: TranscriptEntry | undefined;

  /**
   * With `open`, the vector's last entry is an older version of the open message and this snapshot
   * sees its first `chunks` chunks.
   */
  constructor(
    private readonly list: PersistentVector<TranscriptEntry>,
    private readonly ids: ReadonlyMap<string, number>,
    private readonly derived: Derived,
    readonly version: number,
    private readonly open?: OpenMessage,
    private readonly chunks = 0,
  ) {}

  get size(): number {
    return this.list.size;
  }

  at(index: number): TranscriptEntry | undefined {
    return this.#entry(index < 0 ? this.list.size + index : index);
  }

  get(id: string): TranscriptEntry | undefined {
    // The id map is shared with later snapshots (entries are only ever added), so an id it knows may
    // be newer than this snapshot: the index bound tells.
    const index = this.indexOf(id);
    return index < 0 ? undefined : this.#entry(index);
  }

  #entry(index: number): TranscriptEntry | undefined {
    if (this.open === undefined || index !== this.list.size - 1) return this.list.get(index);
    this.#last ??= this.open.version(this.chunks);
    return this.#last;
  }

  indexOf(id: string): number {
    const index = this.ids.get(id);
    return index === undefined || index >= this.list.size ? -1 : index;
  }

  get entries(): readonly TranscriptEntry[] {
    if (this.#entries === undefined) {
      const entries = this.list.toArray();
      if (this.open !== undefined) entries[entries.length - 1] = this.#entry(entries.length - 1)!;
      this.#entries = Object.freeze(entries);
    }
    return this.#entries;
  }

  get isRunning(): boolean {
    return this.derived.isRunning;
  }

  get requiresAction(): boolean {
    // Whatever ended the turn (idle, a failed prompt, the session's end) ended the wait too.
    return this.derived.isRunning && this.derived.requiresAction;
  }

  terminal(terminalId: string): TerminalEntry | undefined {
    const index = this.derived.terminals.get(terminalId);
    return index === undefined ? undefined : (this.list.get(index) as TerminalEntry);
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
    const { ended, requiresAction } = this;
    return {
      ...(requiresAction ? { requiresAction } : {}),
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
