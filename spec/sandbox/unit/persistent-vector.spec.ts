import { PersistentVector } from "../../../lib/internal/persistent-vector.js";

/**
 * The list a transcript's snapshots keep their entries in: `push` and `set` give a new list and
 * leave every older one as it was, and a new list shares all of the trie but one path with the one
 * it came from (what makes a snapshot per event cheap).
 */

const filled = (n: number): PersistentVector<number> => {
  let vector = PersistentVector.empty<number>();
  for (let i = 0; i < n; i++) vector = vector.push(i);
  return vector;
};

/** The trie's leaf (the array of up to 32 values) that holds `index`: read past the private fields. */
const leafOf = (vector: PersistentVector<unknown>, index: number): unknown[] => {
  const { root, shift } = vector as unknown as { root: unknown[]; shift: number };
  let node = root;
  for (let level = shift; level > 0; level -= 5) node = node[(index >>> level) & 31] as unknown[];
  return node;
};

describe("PersistentVector", () => {
  it("starts empty: size 0, nothing at any index", () => {
    const empty = PersistentVector.empty<string>();
    expect(empty.size).toBe(0);
    expect(empty.get(0)).toBeUndefined();
    expect(empty.toArray()).toEqual([]);
  });

  it("pushes and reads back every value in order, across the trie's growth by a level (32, 1,024, 32,768)", () => {
    const n = 40_000;
    const vector = filled(n);
    expect(vector.size).toBe(n);
    for (const i of [0, 31, 32, 1_023, 1_024, 1_025, 32_767, 32_768, 32_769, n - 1]) expect(vector.get(i)).toBe(i);
    const all = vector.toArray();
    expect(all).toHaveLength(n);
    expect(all.every((value, i) => value === i)).toBe(true);
  });

  it("gives undefined outside 0 .. size - 1, negative indexes included", () => {
    const vector = filled(40);
    expect(vector.get(-1)).toBeUndefined();
    expect(vector.get(40)).toBeUndefined();
    expect(vector.get(1_000)).toBeUndefined();
  });

  it("sets a value in a new list and leaves the older list as it was", () => {
    const before = filled(100);
    const after = before.set(50, -50);
    expect(after.get(50)).toBe(-50);
    expect(after.size).toBe(100);
    expect(before.get(50)).toBe(50);
    expect(before.toArray()).toEqual(filled(100).toArray());
  });

  it("keeps an older list's size and values when later values are pushed onto it, or onto it twice", () => {
    const older = filled(1_024);
    const left = older.push(-1);
    const right = older.push(-2);
    expect(older.size).toBe(1_024);
    expect(older.get(1_024)).toBeUndefined();
    expect(left.get(1_024)).toBe(-1);
    expect(right.get(1_024)).toBe(-2);
    expect(left.get(1_023)).toBe(1_023);
  });

  it("shares every leaf but the changed one with the list it came from (a set copies one path)", () => {
    const before = filled(5_000);
    const after = before.set(2_500, -1);
    // Index 2,500 sits in the leaf of 2,496 .. 2,527.
    expect(leafOf(after, 2_500)).not.toBe(leafOf(before, 2_500));
    expect(leafOf(after, 2_496)).toBe(leafOf(after, 2_500));
    for (const i of [0, 31, 2_400, 2_495, 2_528, 4_999]) {
      expect(leafOf(after, i)).toBe(leafOf(before, i));
    }
  });

  it("shares every full leaf with the list it came from when a value is pushed", () => {
    const before = filled(5_000);
    const after = before.push(5_000);
    for (const i of [0, 1_000, 4_000, 4_959]) expect(leafOf(after, i)).toBe(leafOf(before, i));
    expect(leafOf(after, 4_999)).not.toBe(leafOf(before, 4_999));
    // The last value is held beside the trie: the leaf holds 4,992 .. 4,998.
    expect(leafOf(before, 4_998)).toHaveLength((5_000 - 1) % 32);
  });

  it("sets the last value without copying any of the trie (a chunk appended to the newest entry)", () => {
    const before = filled(5_000);
    const after = before.set(4_999, -1).set(4_999, -2);
    const rootOf = (vector: PersistentVector<number>) => (vector as unknown as { root: unknown[] }).root;
    expect(rootOf(after)).toBe(rootOf(before));
    expect(after.get(4_999)).toBe(-2);
    expect(before.get(4_999)).toBe(4_999);
    expect(after.push(5_000).toArray()).toEqual([...filled(4_999).toArray(), -2, 5_000]);
  });
});
