import { EventCursor, type CursorVerdict } from "../../../lib/acp-http/event-stream.js";
import { mulberry32, randomInt } from "../../support/prng.js";

/** Feeds ids through the cursor as the event stream does: judge, then advance on accepted ones. */
function accept(cursor: EventCursor, ids: readonly (string | undefined)[]): (string | undefined)[] {
  const accepted: (string | undefined)[] = [];
  for (const id of ids) {
    if (cursor.check(id).kind === "duplicate") continue;
    cursor.advance(id);
    accepted.push(id);
  }
  return accepted;
}

/** The rule as first written (a regex, Number(), a fresh verdict each time): what EventCursor must keep answering. */
class ReferenceCursor {
  last: string | undefined;
  #lastNumber: number | undefined;
  readonly #seen = new Set<string>();
  constructor(readonly contiguous: boolean) {}

  check(id: string | undefined): CursorVerdict {
    if (id === undefined || id === "") return { kind: "new" };
    if (!this.#numbered(id)) return this.#seen.has(id) ? { kind: "duplicate" } : { kind: "new" };
    const n = Number(id);
    const last = this.#lastNumber ?? 0;
    if (n <= last) return { kind: "duplicate" };
    if (n > last + 1) return { kind: "gap", firstMissing: last + 1, lastMissing: n - 1 };
    return { kind: "new" };
  }

  advance(id: string | undefined): void {
    if (id === undefined || id === "") return;
    this.last = id;
    if (this.#numbered(id)) this.#lastNumber = Number(id);
    else this.#seen.add(id);
    if (this.#seen.size > 1024) this.#seen.delete(this.#seen.values().next().value as string);
  }

  #numbered(id: string): boolean {
    return this.contiguous && /^\d{1,15}$/.test(id);
  }
}

/** Ids as a stream and its replays produce them, with the odd ones a server might send. */
function randomId(random: () => number, near: number): string | undefined {
  const roll = random();
  if (roll < 0.05) return undefined;
  if (roll < 0.08) return "";
  if (roll < 0.7) return String(Math.max(0, near + randomInt(random, -3, 3)));
  if (roll < 0.75) return `00${near + 1}`;
  if (roll < 0.76) return randomInt(random, 1, 2) === 1 ? "999999999999999" : "1234567890123456";
  const odd = ["-1", "1.5", "+2", " 3", "4 ", "1e2", "0x10", "\u0661", "5:", "/6", "evt-a", "evt-b"];
  return roll < 0.9 ? odd[randomInt(random, 0, odd.length - 1)] : `e${randomInt(random, 0, 40)}`;
}

describe("EventCursor", () => {
  it("answers as the regex-and-Number() rule did, through take() and through check() then advance()", () => {
    const random = mulberry32(20261203);
    const mismatches: unknown[] = [];
    const kinds = new Map<string, number>();
    // Short runs from fresh cursors: one huge id would otherwise make every later number a duplicate.
    for (let run = 0; run < 80; run++) {
      const contiguous = run % 4 !== 3;
      const reference = new ReferenceCursor(contiguous);
      const taking = new EventCursor(undefined, { contiguous });
      const stepping = new EventCursor(undefined, { contiguous });
      let near = 0;
      for (let step = 0; step < 500; step++) {
        const id = randomId(random, near);
        const expected = reference.check(id);
        kinds.set(expected.kind, (kinds.get(expected.kind) ?? 0) + 1);
        const verdicts = [JSON.stringify(taking.take(id)), JSON.stringify(stepping.check(id))];
        // The stream accepts new ids, and a gap when it cannot recover it (here: every other one).
        const accepted = expected.kind === "new" || (expected.kind === "gap" && step % 2 === 0);
        if (accepted) {
          reference.advance(id);
          stepping.advance(id);
          if (expected.kind === "gap") taking.advance(id);
        }
        const want = JSON.stringify(expected);
        const lastIds = [reference.last, taking.lastEventId, stepping.lastEventId];
        if (verdicts.some((v) => v !== want) || lastIds.some((last) => last !== reference.last)) {
          mismatches.push({ run, step, id, want, verdicts, lastIds });
        }
        if (id !== undefined && /^\d+$/.test(id) && accepted) near = Number(id);
        if (random() < 0.3) near++;
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    for (const kind of ["new", "duplicate", "gap"]) expect(kinds.get(kind)).toBeGreaterThan(1000);
  });

  it("starts with no position and takes 1 as the next id", () => {
    const cursor = new EventCursor();
    expect(cursor.lastEventId).toBeUndefined();
    expect(cursor.check("1")).toEqual({ kind: "new" });
  });

  it("judges without moving, advances only when told", () => {
    const cursor = new EventCursor();
    cursor.check("1");
    expect(cursor.lastEventId).toBeUndefined();
    cursor.advance("1");
    expect(cursor.lastEventId).toBe("1");
    expect(cursor.check("1")).toEqual({ kind: "duplicate" });
  });

  it("drops ids at or below the cursor (a replay after reconnect)", () => {
    const cursor = new EventCursor();
    expect(accept(cursor, ["1", "2", "3", "2", "3", "1", "4"])).toEqual(["1", "2", "3", "4"]);
    expect(cursor.lastEventId).toBe("4");
  });

  it("reports the missing range when ids jump ahead", () => {
    const cursor = new EventCursor();
    accept(cursor, ["1", "2"]);
    expect(cursor.check("6")).toEqual({ kind: "gap", firstMissing: 3, lastMissing: 5 });
    expect(cursor.check("4")).toEqual({ kind: "gap", firstMissing: 3, lastMissing: 3 });
    expect(cursor.check("3")).toEqual({ kind: "new" });
  });

  it("reports a gap on the very first frame when the stream does not start at 1", () => {
    expect(new EventCursor().check("5")).toEqual({ kind: "gap", firstMissing: 1, lastMissing: 4 });
  });

  it("is seeded from a stored Last-Event-ID", () => {
    const cursor = new EventCursor("41");
    expect(cursor.lastEventId).toBe("41");
    expect(cursor.check("41")).toEqual({ kind: "duplicate" });
    expect(cursor.check("40")).toEqual({ kind: "duplicate" });
    expect(cursor.check("42")).toEqual({ kind: "new" });
    expect(cursor.check("45")).toEqual({ kind: "gap", firstMissing: 42, lastMissing: 44 });
  });

  it("treats an empty seed as no seed", () => {
    const cursor = new EventCursor("");
    expect(cursor.lastEventId).toBeUndefined();
    expect(cursor.check("1")).toEqual({ kind: "new" });
  });

  it("lets frames without an id through and keeps its position", () => {
    const cursor = new EventCursor("3");
    expect(cursor.check(undefined)).toEqual({ kind: "new" });
    expect(cursor.check("")).toEqual({ kind: "new" });
    cursor.advance(undefined);
    cursor.advance("");
    expect(cursor.lastEventId).toBe("3");
  });

  it("dedupes opaque ids by memory and never reports gaps for them", () => {
    const cursor = new EventCursor();
    expect(accept(cursor, ["evt-a", "evt-b", "evt-a", "1f3c-9", "evt-b"])).toEqual(["evt-a", "evt-b", "1f3c-9"]);
    expect(cursor.lastEventId).toBe("1f3c-9");
    expect(cursor.check("evt-z")).toEqual({ kind: "new" });
  });

  it("treats negative, fractional and over-long numbers as opaque", () => {
    const cursor = new EventCursor();
    for (const id of ["-1", "1.5", "1234567890123456"]) {
      expect(cursor.check(id)).toEqual({ kind: "new" });
      cursor.advance(id);
      expect(cursor.check(id)).toEqual({ kind: "duplicate" });
    }
    // Opaque ids do not move the numeric sequence.
    expect(cursor.check("1")).toEqual({ kind: "new" });
  });

  it("remembers a bounded number of opaque ids", () => {
    const cursor = new EventCursor();
    for (let i = 0; i <= 1024; i++) cursor.advance(`opaque-${i}`);
    expect(cursor.check("opaque-0")).toEqual({ kind: "new" });
    expect(cursor.check("opaque-1")).toEqual({ kind: "duplicate" });
    expect(cursor.check("opaque-1024")).toEqual({ kind: "duplicate" });
  });

  it("take() judges and moves past a new id at once, and leaves duplicates and gaps where they were", () => {
    const cursor = new EventCursor();
    expect(cursor.take("1")).toEqual({ kind: "new" });
    expect(cursor.lastEventId).toBe("1");
    expect(cursor.take("1")).toEqual({ kind: "duplicate" });
    expect(cursor.take("4")).toEqual({ kind: "gap", firstMissing: 2, lastMissing: 3 });
    expect(cursor.lastEventId).toBe("1");
    cursor.advance("4");
    expect(cursor.take("5")).toEqual({ kind: "new" });
    expect(cursor.take(undefined)).toEqual({ kind: "new" });
    expect(cursor.take("")).toEqual({ kind: "new" });
    expect(cursor.lastEventId).toBe("5");
    expect(accept(new EventCursor(), ["evt-a", "evt-a"])).toEqual(["evt-a"]);
    const opaque = new EventCursor();
    expect(opaque.take("evt-a")).toEqual({ kind: "new" });
    expect(opaque.take("evt-a")).toEqual({ kind: "duplicate" });
  });

  it("reads as numbers exactly the ids /^\\d{1,15}$/ accepts, leading zeros included", () => {
    const cursor = new EventCursor();
    expect(cursor.take("007")).toEqual({ kind: "gap", firstMissing: 1, lastMissing: 6 });
    cursor.advance("007");
    expect(cursor.lastEventId).toBe("007");
    expect(cursor.check("7")).toEqual({ kind: "duplicate" });
    expect(cursor.check("0008")).toEqual({ kind: "new" });
    expect(cursor.check("999999999999999")).toEqual({ kind: "gap", firstMissing: 8, lastMissing: 999999999999998 });
    // Signs, spaces, exponents, hex, non-ASCII digits: opaque, so new and never a gap.
    for (const id of ["+8", " 8", "8 ", "8e3", "0x9", "\u0669", "1_0"]) {
      expect(cursor.check(id)).toEqual({ kind: "new" });
    }
  });

  it("reads no id as a number when the server does not promise contiguous ids", () => {
    const cursor = new EventCursor(undefined, { contiguous: false });
    expect(accept(cursor, ["1", "5", "3", "5", "1"])).toEqual(["1", "5", "3"]);
    expect(cursor.check("9")).toEqual({ kind: "new" });
    expect(cursor.lastEventId).toBe("3");
  });

  it("is seeded from an opaque id", () => {
    const cursor = new EventCursor("b7e1");
    expect(cursor.lastEventId).toBe("b7e1");
    expect(cursor.check("b7e1")).toEqual({ kind: "duplicate" });
  });
});
