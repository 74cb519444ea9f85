// One subscription to a hot stream whose values each concern one key (a session's events), handing
// each value to the subscribers of its key only. A filter per subscriber costs every value one call
// per subscriber: with 1,000 session views on one client, 1,000 calls per update, which made an
// update cost 9× what it costs with one view (bench scenario 13). Here a value costs one Map lookup.
import { Observable, Subscription } from "rxjs";
import { FanOutSubject } from "./fan-out-subject.js";

/** What `keyOf` returns for a value every key's subscribers receive. */
export const EVERY_KEY: unique symbol = Symbol("every key");

/**
 * `of(key)` is `source.pipe(filter((value) => keyOf(value) === key || keyOf(value) === EVERY_KEY))`,
 * hot like its source, with the same completion and error; values whose key is `undefined` reach
 * nobody. The source is subscribed while some key has a subscriber, once for all of them.
 */
export class KeyedFanOut<T> {
  readonly #source: Observable<T>;
  readonly #keyOf: (value: T) => string | typeof EVERY_KEY | undefined;
  readonly #routes = new Map<string, FanOutSubject<T>>();
  #subscription: Subscription | undefined;

  constructor(source: Observable<T>, keyOf: (value: T) => string | typeof EVERY_KEY | undefined) {
    this.#source = source;
    this.#keyOf = keyOf;
  }

  of(key: string): Observable<T> {
    return new Observable<T>((subscriber) => {
      let route = this.#routes.get(key);
      if (!route) {
        route = new FanOutSubject<T>();
        this.#routes.set(key, route);
      }
      const inner = route.subscribe(subscriber);
      this.#connect();
      const taken = route;
      return () => {
        inner.unsubscribe();
        if (taken.observed || this.#routes.get(key) !== taken) return;
        this.#routes.delete(key);
        if (this.#routes.size > 0) return;
        this.#subscription?.unsubscribe();
        this.#subscription = undefined;
      };
    });
  }

  #connect(): void {
    if (this.#subscription) return;
    // Set before subscribing: a source that emits or ends at once finds it (and may clear it).
    const subscription = (this.#subscription = new Subscription());
    subscription.add(this.#source.subscribe({
      next: (value) => {
        const key = this.#keyOf(value);
        if (key === undefined) return;
        if (key !== EVERY_KEY) return this.#routes.get(key)?.next(value);
        for (const route of [...this.#routes.values()]) route.next(value);
      },
      error: (error: unknown) => this.#end((route) => route.error(error)),
      complete: () => this.#end((route) => route.complete()),
    }));
  }

  /** The source ended: so does every route (a later `of` subscribes it again, as `share` would). */
  #end(end: (route: FanOutSubject<T>) => void): void {
    const routes = [...this.#routes.values()];
    this.#routes.clear();
    this.#subscription = undefined;
    for (const route of routes) end(route);
  }
}
