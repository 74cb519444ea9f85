import { Subject } from "rxjs";
import { EVERY_KEY, KeyedFanOut } from "../../../lib/internal/keyed-fan-out.js";

/**
 * `KeyedFanOut.of(key)` behaves as a filter on its source for that key (and for values meant for
 * every key), while the source is subscribed once for all keys and only while someone listens.
 */

interface Value {
  key?: string;
  every?: boolean;
  n: number;
}

describe("KeyedFanOut", () => {
  const make = () => {
    const source = new Subject<Value>();
    let keyCalls = 0;
    const fan = new KeyedFanOut<Value>(source, (value) => {
      keyCalls++;
      return value.every ? EVERY_KEY : value.key;
    });
    return { source, fan, keyCalls: () => keyCalls };
  };

  it("hands each value to its key's subscribers only, and a value for every key to all", () => {
    const { source, fan } = make();
    const a: number[] = [];
    const b: number[] = [];
    fan.of("a").subscribe((v) => a.push(v.n));
    fan.of("b").subscribe((v) => b.push(v.n));
    source.next({ key: "a", n: 1 });
    source.next({ key: "b", n: 2 });
    source.next({ key: "c", n: 3 });
    source.next({ n: 4 });
    source.next({ every: true, n: 5 });
    expect(a).toEqual([1, 5]);
    expect(b).toEqual([2, 5]);
  });

  it("looks at each value's key once, however many keys are subscribed", () => {
    const { source, fan, keyCalls } = make();
    for (let i = 0; i < 1000; i++) fan.of(`k${i}`).subscribe(() => undefined);
    for (let i = 0; i < 100; i++) source.next({ key: `k${i}`, n: i });
    expect(keyCalls()).toBe(100);
  });

  it("subscribes its source only while a key has a subscriber", () => {
    const { source, fan } = make();
    expect(source.observed).toBe(false);
    const one = fan.of("a").subscribe(() => undefined);
    const two = fan.of("a").subscribe(() => undefined);
    const three = fan.of("b").subscribe(() => undefined);
    expect(source.observers).toHaveLength(1);
    one.unsubscribe();
    three.unsubscribe();
    expect(source.observed).toBe(true);
    two.unsubscribe();
    expect(source.observed).toBe(false);
    const seen: number[] = [];
    fan.of("a").subscribe((v) => seen.push(v.n));
    source.next({ key: "a", n: 7 });
    expect(seen).toEqual([7]);
  });

  it("ends every key's subscribers with its source's error or completion", () => {
    const { source, fan } = make();
    const errors: unknown[] = [];
    fan.of("a").subscribe({ error: (error: unknown) => errors.push(error) });
    fan.of("b").subscribe({ error: (error: unknown) => errors.push(error) });
    const boom = new Error("boom");
    source.error(boom);
    expect(errors).toEqual([boom, boom]);
    const done = make();
    let completed = 0;
    done.fan.of("a").subscribe({ complete: () => completed++ });
    done.source.complete();
    expect(completed).toBe(1);
  });

  it("hands values straight to an observer added without a subscriber, until its removal", () => {
    const { source, fan } = make();
    const seen: number[] = [];
    const observer = { next: (v: Value) => seen.push(v.n), error: () => undefined, complete: () => undefined };
    const remove = fan.add("a", observer);
    const other = fan.of("a").subscribe(() => undefined);
    source.next({ key: "a", n: 1 });
    source.next({ key: "b", n: 2 });
    source.next({ every: true, n: 3 });
    remove();
    source.next({ key: "a", n: 4 });
    expect(seen).toEqual([1, 3]);
    // Removing it twice changes nothing, and the source stays subscribed for the other one.
    remove();
    expect(source.observed).toBe(true);
    other.unsubscribe();
    expect(source.observed).toBe(false);
  });

  it("ends an added observer with its source, as it ends subscribers", () => {
    const { source, fan } = make();
    const ends: string[] = [];
    fan.add("a", { next: () => undefined, error: () => ends.push("error"), complete: () => ends.push("complete") });
    source.complete();
    expect(ends).toEqual(["complete"]);
  });
});
