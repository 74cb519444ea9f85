import { EventCursor } from "../../../lib/acp-http/event-cursor.js";

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

describe("EventCursor", () => {
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

  it("is seeded from an opaque id", () => {
    const cursor = new EventCursor("b7e1");
    expect(cursor.lastEventId).toBe("b7e1");
    expect(cursor.check("b7e1")).toEqual({ kind: "duplicate" });
  });
});
