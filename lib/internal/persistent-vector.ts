// A persistent vector: an immutable list whose `push` and `set` return a new list and leave the old
// one as it was. It is a 32-way trie with path copying, so a change copies one root-to-leaf path (a
// few dozen slots) and shares every other node with the list it came from. The transcript keeps its
// entries in one: each snapshot is a list, and a new snapshot per event must not copy the entries
// that did not change (bench scenario 12; `spec/sandbox/unit/persistent-vector.spec.ts`).
// The last value is held beside the trie, not in it: the transcript's most frequent change is a
// chunk appended to the newest message, a `set` of the last index, which then makes one small object
// instead of copying a trie path (two objects per level) that the next chunk throws away again. With
// a transcript per session (bench scenario 13) every copy was also garbage that outlived a scavenge.

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;
type Node = unknown[];

/** An immutable list; `push` and `set` return a new one that shares all but one path with this. */
export class PersistentVector<T> {
  /** The empty list. */
  static empty<T>(): PersistentVector<T> {
    return new PersistentVector<T>(0, BITS, [], undefined);
  }

  /** `root` holds the values `0 .. size - 2`; `last` is the value at `size - 1`. */
  private constructor(
    readonly size: number,
    private readonly shift: number,
    private readonly root: Node,
    private readonly last: T | undefined,
  ) {}

  /** The value at `index`, or `undefined` outside `0 .. size - 1`. */
  get(index: number): T | undefined {
    if (index < 0 || index >= this.size) return undefined;
    if (index === this.size - 1) return this.last;
    let node = this.root;
    for (let level = this.shift; level > 0; level -= BITS) node = node[(index >>> level) & MASK] as Node;
    return node[index & MASK] as T;
  }

  /** A list with `value` at `index` (which must be below `size`). */
  set(index: number, value: T): PersistentVector<T> {
    if (index === this.size - 1) return new PersistentVector<T>(this.size, this.shift, this.root, value);
    const root = PersistentVector.#assoc(this.root, this.shift, index, value);
    return new PersistentVector<T>(this.size, this.shift, root, this.last);
  }

  /** A list with `value` appended. */
  push(value: T): PersistentVector<T> {
    if (this.size === 0) return new PersistentVector<T>(1, this.shift, this.root, value);
    // The last value moves into the trie, at `size - 1`.
    const index = this.size - 1;
    // The trie is full at this depth: a new root one level up, the old root its first child.
    if (index >>> BITS >= 1 << this.shift) {
      const root = [this.root, PersistentVector.#path(this.shift, this.last)];
      return new PersistentVector<T>(index + 2, this.shift + BITS, root, value);
    }
    const root = PersistentVector.#assoc(this.root, this.shift, index, this.last);
    return new PersistentVector<T>(index + 2, this.shift, root, value);
  }

  /** The values in order, as a new array. */
  toArray(): T[] {
    const out: T[] = new Array<T>(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.get(i) as T;
    return out;
  }

  /** A branch down to `level` 0 holding only `value`, in each node's first slot. */
  static #path(level: number, value: unknown): Node {
    return level === 0 ? [value] : [PersistentVector.#path(level - BITS, value)];
  }

  /** `node` with `value` at `index`: the nodes on the way copied, the rest shared. */
  static #assoc(node: Node, level: number, index: number, value: unknown): Node {
    const copy = node.slice();
    if (level === 0) {
      copy[index & MASK] = value;
      return copy;
    }
    const slot = (index >>> level) & MASK;
    const child = node[slot] as Node | undefined;
    copy[slot] = child
      ? PersistentVector.#assoc(child, level - BITS, index, value)
      : PersistentVector.#path(level - BITS, value);
    return copy;
  }
}
