import { Observable, Subject, type MonoTypeOperatorFunction } from "rxjs";
import { StoreBacklogError } from "./errors/store-backlog-error.js";
import { StoreError } from "./errors/store-error.js";
import { StoreWriteError } from "./errors/store-write-error.js";
import type { NewSessionEvent, SessionEvent } from "./schemas.js";
import type { SessionStore } from "./store.js";

export interface RecorderOptions {
  /** Events waiting for the store at most (default 10000); past it new events are reported, not queued. */
  maxBacklog?: number;
}

/**
 * Writes a live stream to a store without getting in its way: `record()` queues each value and passes
 * it on synchronously, and a single writer drains the queue in arrival order, so the store's
 * per-session `eventIndex` follows the stream's order. A store that throws, rejects or is slow never
 * delays, reorders or ends the stream; failures arrive on `storeErrors$`.
 */
export interface Recorder {
  /** An operator: values pass through unchanged and at once; `toEvent` says what to store (or undefined). */
  record<T>(toEvent: (value: T) => NewSessionEvent | undefined): MonoTypeOperatorFunction<T>;
  /** Queues one event (for what is not on a stream, such as outbound requests). */
  enqueue(event: NewSessionEvent): void;
  /** Every event accepted into the queue, at the moment it is accepted (hot, no replay). */
  readonly accepted$: Observable<NewSessionEvent>;
  /** Every event the store inserted (not the ones it already had), with its `eventIndex`. */
  readonly stored$: Observable<SessionEvent>;
  /** Why an event was not stored: `StoreWriteError`, `StoreBacklogError`, or a `StoreError` from `toEvent`. */
  readonly storeErrors$: Observable<StoreError>;
  /** The events accepted and not yet written, oldest first (optionally of one session). */
  pending(sessionId?: string): NewSessionEvent[];
  /** Resolves once everything accepted so far has been written (or has failed). */
  flush(): Promise<void>;
  readonly store: SessionStore;
}

export function createRecorder(store: SessionStore, options: RecorderOptions = {}): Recorder {
  const maxBacklog = Math.max(1, Math.floor(options.maxBacklog ?? 10_000));
  const queue: NewSessionEvent[] = [];
  const accepted = new Subject<NewSessionEvent>();
  const stored = new Subject<SessionEvent>();
  const errors = new Subject<StoreError>();
  let draining: Promise<void> | undefined;

  const drain = async () => {
    while (queue.length > 0) {
      const event = queue[0] as NewSessionEvent;
      try {
        const outcome = await store.insertEvent(event.sessionId, event);
        queue.shift();
        if (outcome.inserted) stored.next(outcome.event);
      } catch (error) {
        queue.shift();
        errors.next(new StoreWriteError(event.sessionId, event.id, error));
      }
    }
    draining = undefined;
  };

  const enqueue = (event: NewSessionEvent) => {
    if (queue.length >= maxBacklog) {
      errors.next(new StoreBacklogError(event.sessionId, event.id, maxBacklog));
      return;
    }
    queue.push(event);
    accepted.next(event);
    // A microtask, not a call: the store is never entered from inside a subscriber's delivery.
    draining ??= Promise.resolve().then(drain);
  };

  const record = <T>(toEvent: (value: T) => NewSessionEvent | undefined): MonoTypeOperatorFunction<T> =>
    (source) =>
      new Observable<T>((subscriber) =>
        source.subscribe({
          next: (value) => {
            let event: NewSessionEvent | undefined;
            try {
              event = toEvent(value);
            } catch (error) {
              errors.next(new StoreError("recorder: could not map a value to an event", { cause: error }));
            }
            if (event) enqueue(event);
            subscriber.next(value);
          },
          error: (error) => subscriber.error(error),
          complete: () => subscriber.complete(),
        }),
      );

  return {
    record,
    enqueue,
    accepted$: accepted.asObservable(),
    stored$: stored.asObservable(),
    storeErrors$: errors.asObservable(),
    pending: (sessionId) => queue.filter((event) => sessionId === undefined || event.sessionId === sessionId),
    flush: async () => {
      while (draining) await draining;
    },
    store,
  };
}
