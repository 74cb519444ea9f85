// A message entry (user, agent, thought) and its text: a rope of the chunks as they came, appended
// in place and joined only when read. Appending a chunk makes a new entry version (snapshots hold
// versions, and an older one must read as it was) without copying the chunks: the versions share one
// array and each knows how many of its chunks it sees. The rope lives in the entry rather than in an
// object of its own, so a chunk costs one new object, not two: appending to a message is the
// transcript's most frequent step (bench scenarios 12 and 14). While chunks keep coming to the newest
// message, the builder holds it open (`OpenMessage`): a chunk is pushed onto the shared array and no
// version is made until something reads one (a snapshot's entry, or the builder when another event
// comes). With a transcript per session (bench scenario 13) a version per chunk that nobody read was
// garbage that outlived a scavenge.
import type { ContentBlock, MessageEntry } from "./model.js";

/** A message kind's id prefix: `message:…`, `thought:…`, `user:…` (v1 chunks and v2 upserts alike). */
export const MESSAGE_PREFIX: Readonly<Record<MessageEntry["kind"], string>> = {
  "agent-message": "message",
  "thought": "thought",
  "user-message": "user",
};

/**
 * A message entry version. Its chunk list is shared with the versions before and after it: a new
 * chunk is pushed onto the same array and the new version sees one more. Only the builder appends,
 * always to the newest version, so an older version's prefix never changes.
 */
export class Message implements MessageEntry {
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
   * This version held open for chunks to come (see `OpenMessage`). Only the newest version of a
   * message opens, before it is compacted: the builder's last entry.
   */
  open(): OpenMessage {
    if (this.#compacted) throw new Error("a compacted message is complete: it does not open again");
    const owns = this.#parts.length === this.#seen;
    return new OpenMessage(this, owns ? this.#parts : this.#parts.slice(0, this.#seen));
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


/**
 * The newest message while its chunks come: each chunk is pushed onto the chunk array the message's
 * versions share, and the version that sees a given number of chunks is made only when read. The
 * version of the newest count is made once and kept, so the snapshot that read it and the builder
 * that settles the entry later hold the same object (consecutive snapshots share unchanged entries).
 */
export class OpenMessage {
  #parts: (string | ContentBlock)[];
  #chunks: number;
  /** The version seeing `#chunks`, once made (the message opened from it, until a chunk comes). */
  #made: Message | undefined;

  constructor(readonly base: Message, parts: (string | ContentBlock)[]) {
    this.#parts = parts;
    this.#chunks = base.chunks;
    this.#made = base;
  }

  /** How many chunks the message holds now. */
  get chunks(): number {
    return this.#chunks;
  }

  append(part: string | ContentBlock): void {
    this.#parts.push(part);
    this.#chunks++;
    this.#made = undefined;
  }

  /** The version that sees the first `chunks` chunks (one object per count while it is the newest). */
  version(chunks: number): Message {
    if (chunks !== this.#chunks) return this.#make(chunks);
    this.#made ??= this.#make(chunks);
    return this.#made;
  }

  #make(chunks: number): Message {
    const { kind, id, at, replayed, messageId } = this.base;
    return new Message(kind, id, at, replayed, messageId, this.#parts, chunks);
  }
}
