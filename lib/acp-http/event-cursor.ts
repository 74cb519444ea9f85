/**
 * The `Last-Event-ID` cursor of one stream, and the rule that tells a new frame from
 * a replayed one and a contiguous one from one after a hole.
 *
 * SSE ids are opaque cursors. Only a server that promises contiguous numbering (1, 2,
 * 3, ... per stream, as the sandbox-agent servers do) lets decimal ids be read as a
 * sequence, which makes dedupe O(1) and gaps detectable; that promise is the
 * `contiguous` option. Without it, and for any non-decimal id, ids are deduped against
 * a bounded set and never checked for gaps (ids 10, 20, 30 are then just three events).
 */
export type CursorVerdict =
  | { readonly kind: "new" }
  | { readonly kind: "duplicate" }
  | { readonly kind: "gap"; readonly firstMissing: number; readonly lastMissing: number };

// Every frame gets a verdict: the two common ones are shared constants, not a fresh object each.
const NEW: CursorVerdict = Object.freeze({ kind: "new" });
const DUPLICATE: CursorVerdict = Object.freeze({ kind: "duplicate" });

/** Longest id read as a number: 15 digits stay exact in a double. */
const MAX_DIGITS = 15;
const OPAQUE_MEMORY = 1024;
/** What `#sequenceNumber` returns for an id that is not read as a number. */
const OPAQUE = -1;

export interface EventCursorOptions {
  /** The server numbers this stream's events 1, 2, 3, ... with no holes. Default true. */
  contiguous?: boolean;
}

export class EventCursor {
  #last: string | undefined;
  #lastNumber = 0;
  readonly #opaqueSeen = new Set<string>();
  readonly #contiguous: boolean;

  constructor(seed?: string, options: EventCursorOptions = {}) {
    this.#contiguous = options.contiguous ?? true;
    if (seed !== undefined && seed !== "") this.advance(seed);
  }

  /** The id to send as `Last-Event-ID` on the next reconnect. */
  get lastEventId(): string | undefined {
    return this.#last;
  }

  /** Judges a frame's id without moving the cursor. */
  check(id: string | undefined): CursorVerdict {
    if (id === undefined || id === "") return NEW;
    return this.#judge(id, this.#sequenceNumber(id));
  }

  /** Moves the cursor to a frame that has been accepted. */
  advance(id: string | undefined): void {
    if (id === undefined || id === "") return;
    this.#move(id, this.#sequenceNumber(id));
  }

  /**
   * `check`, then `advance` when the verdict is new, reading the id once: the per-frame path.
   * A gap only is reported; the caller decides whether to accept it (`advance`) or recover.
   */
  take(id: string | undefined): CursorVerdict {
    if (id === undefined || id === "") return NEW;
    const n = this.#sequenceNumber(id);
    const verdict = this.#judge(id, n);
    if (verdict === NEW) this.#move(id, n);
    return verdict;
  }

  #judge(id: string, n: number): CursorVerdict {
    if (n === OPAQUE) return this.#opaqueSeen.has(id) ? DUPLICATE : NEW;
    const last = this.#lastNumber;
    if (n <= last) return DUPLICATE;
    if (n > last + 1) return { kind: "gap", firstMissing: last + 1, lastMissing: n - 1 };
    return NEW;
  }

  #move(id: string, n: number): void {
    this.#last = id;
    if (n !== OPAQUE) {
      this.#lastNumber = n;
      return;
    }
    this.#opaqueSeen.add(id);
    if (this.#opaqueSeen.size > OPAQUE_MEMORY) {
      const oldest = this.#opaqueSeen.values().next().value;
      if (oldest !== undefined) this.#opaqueSeen.delete(oldest);
    }
  }

  /**
   * The id as a sequence number when the stream is contiguous and the id is 1 to 15 ASCII
   * digits (what /^\d{1,15}$/ accepts), else OPAQUE. Read digit by digit: no regex and no
   * second pass through Number() on every frame.
   */
  #sequenceNumber(id: string): number {
    if (!this.#contiguous || id.length > MAX_DIGITS) return OPAQUE;
    let n = 0;
    for (let i = 0; i < id.length; i++) {
      const digit = id.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return OPAQUE;
      n = n * 10 + digit;
    }
    return n;
  }
}
