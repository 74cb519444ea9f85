// One subscription to a hot stream whose values each concern one key (a session's events), handing
// each value to the subscribers of its key only. A filter per subscriber costs every value one call
// per subscriber: with 1,000 session views on one client, 1,000 calls per update, which made an
// update cost 9× what it costs with one view (bench scenario 13). Here a value costs one Map lookup.
import { Observable, Subscription, type Observer } from "rxjs";

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
  /**
   * Each key's observers, an array replaced (never changed) when one comes or goes: an observer
   * added while a value is delivered waits for the next one, as with a Subject. No Subject per key:
   * with a view per session, a Subject and its observer list were two more objects per update for
   * the update to reach (bench scenario 13).
   */
  readonly #routes = new Map<string, readonly Observer<T>[]>();
  #subscription: Subscription | undefined;

  constructor(source: Observable<T>, keyOf: (value: T) => string | typeof EVERY_KEY | undefined) {
    this.#source = source;
    this.#keyOf = keyOf;
  }

  of(key: string): Observable<T> {
    return new Observable<T>((subscriber) => this.add(key, subscriber));
  }

  /**
   * `of(key).subscribe(observer)` with nothing between the values and `observer`: no subscriber of
   * rxjs's around it, so a value reaches one object less, two with the observer's own wrapping
   * (scenario 13: a transcript per session). For this library's own observers, which do not throw.
   * As with a Subject, an observer removed while a value is being delivered may still be handed
   * that value: it ignores what comes after its removal. Returns its removal.
   */
  add(key: string, observer: Observer<T>): () => void {
    this.#routes.set(key, [...(this.#routes.get(key) ?? []), observer]);
    this.#connect();
    return () => {
      const route = this.#routes.get(key);
      if (!route?.includes(observer)) return;
      if (route.length > 1) return void this.#routes.set(key, route.filter((s) => s !== observer));
      this.#routes.delete(key);
      if (this.#routes.size > 0) return;
      this.#subscription?.unsubscribe();
      this.#subscription = undefined;
    };
  }

  #connect(): void {
    if (this.#subscription) return;
    // Set before subscribing: a source that emits or ends at once finds it (and may clear it).
    const subscription = (this.#subscription = new Subscription());
    subscription.add(this.#source.subscribe({
      next: (value) => {
        const key = this.#keyOf(value);
        if (key === undefined) return;
        if (key !== EVERY_KEY) {
          const route = this.#routes.get(key);
          if (route) for (let i = 0; i < route.length; i++) (route[i] as Observer<T>).next(value);
          return;
        }
        for (const route of [...this.#routes.values()]) for (const subscriber of route) subscriber.next(value);
      },
      error: (error: unknown) => this.#end((observer) => observer.error(error)),
      complete: () => this.#end((observer) => observer.complete()),
    }));
  }

  /** The source ended: so does every route (a later `of` subscribes it again, as `share` would). */
  #end(end: (observer: Observer<T>) => void): void {
    const routes = [...this.#routes.values()];
    this.#routes.clear();
    this.#subscription = undefined;
    for (const route of routes) for (const observer of route) end(observer);
  }
}
