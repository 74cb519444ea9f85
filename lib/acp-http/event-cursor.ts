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
  | { kind: "new" }
  | { kind: "duplicate" }
  | { kind: "gap"; firstMissing: number; lastMissing: number };

const DECIMAL = /^\d{1,15}$/;
const OPAQUE_MEMORY = 1024;

export interface EventCursorOptions {
  /** The server numbers this stream's events 1, 2, 3, ... with no holes. Default true. */
  contiguous?: boolean;
}

export class EventCursor {
  #last: string | undefined;
  #lastNumber: number | undefined;
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
    if (id === undefined || id === "") return { kind: "new" };
    if (!this.#numbered(id)) return this.#opaqueSeen.has(id) ? { kind: "duplicate" } : { kind: "new" };
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
    if (this.#numbered(id)) {
      this.#lastNumber = Number(id);
      return;
    }
    this.#opaqueSeen.add(id);
    if (this.#opaqueSeen.size > OPAQUE_MEMORY) {
      const oldest = this.#opaqueSeen.values().next().value;
      if (oldest !== undefined) this.#opaqueSeen.delete(oldest);
    }
  }

  #numbered(id: string): boolean {
    return this.#contiguous && DECIMAL.test(id);
  }
}
