/**
 * The `Last-Event-ID` cursor of one stream, and the rule that tells a new frame from
 * a replayed one and a contiguous one from one after a hole.
 *
 * Decimal ids are treated as a sequence (every server this client targets numbers its
 * events 1, 2, 3, ... per stream), which makes dedupe O(1) and gaps detectable. Any
 * other id is opaque: deduped against a bounded set, never checked for gaps.
 */
export type CursorVerdict =
  | { kind: "new" }
  | { kind: "duplicate" }
  | { kind: "gap"; firstMissing: number; lastMissing: number };

const DECIMAL = /^\d{1,15}$/;
const OPAQUE_MEMORY = 1024;

export class EventCursor {
  #last: string | undefined;
  #lastNumber: number | undefined;
  readonly #opaqueSeen = new Set<string>();

  constructor(seed?: string) {
    if (seed !== undefined && seed !== "") this.advance(seed);
  }

  /** The id to send as `Last-Event-ID` on the next reconnect. */
  get lastEventId(): string | undefined {
    return this.#last;
  }

  /** Judges a frame's id without moving the cursor. */
  check(id: string | undefined): CursorVerdict {
    if (id === undefined || id === "") return { kind: "new" };
    if (!DECIMAL.test(id)) return this.#opaqueSeen.has(id) ? { kind: "duplicate" } : { kind: "new" };
    const n = Number(id);
    const last = this.#lastNumber ?? 0;
    if (n <= last) return { kind: "duplicate" };
    if (n > last + 1) return { kind: "gap", firstMissing: last + 1, lastMissing: n - 1 };
    return { kind: "new" };
  }

  /** Moves the cursor to a frame that has been accepted. */
  advance(id: string | undefined): void {
    if (id === undefined || id === "") return;
    this.#last = id;
    if (DECIMAL.test(id)) {
      this.#lastNumber = Number(id);
      return;
    }
    this.#opaqueSeen.add(id);
    if (this.#opaqueSeen.size > OPAQUE_MEMORY) {
      const oldest = this.#opaqueSeen.values().next().value;
      if (oldest !== undefined) this.#opaqueSeen.delete(oldest);
    }
  }
}
