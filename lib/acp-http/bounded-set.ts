/**
 * A set that forgets its oldest keys past a fixed size: dedupe memory that stays
 * bounded however long a connection lives.
 */
export class BoundedSet {
  readonly #keys = new Set<string>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  add(key: string): void {
    if (this.#keys.has(key)) return;
    this.#keys.add(key);
    if (this.#keys.size > this.#limit) {
      const oldest = this.#keys.values().next().value;
      if (oldest !== undefined) this.#keys.delete(oldest);
    }
  }

  get size(): number {
    return this.#keys.size;
  }
}
