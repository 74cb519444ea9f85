import { Observable, Subject, type MonoTypeOperatorFunction } from "rxjs";
import { StoreError } from "../errors.js";
import type { NewSessionEvent, SessionEvent } from "./schemas.js";
import type { InsertOutcome, SessionStore } from "./store.js";
import { PERSISTENCE_DEFAULTS } from "../defaults.js";

export interface RecorderOptions {
  /**
   * Events waiting for the store at most; past it new events are reported (a `StoreError` of kind
   * `store-backlog`), not queued. Default 10000, or 100000 with a store that has `insertEvents`: a burst of 100,000
   * updates arrives in one to three seconds, faster than any store writes while the same event loop
   * parses it, and is written off in large batches afterwards (tens of MB at most).
   */
  maxBacklog?: number;
  /**
   * Events per write at most, with a store that has `insertEvents` (default 5000): the writer takes
   * everything queued up to this many in one call, so the write rate grows with the arrival rate
   * (each round trip waits for the event loop, which a burst keeps busy).
   */
  maxBatch?: number;
}

export const DEFAULT_MAX_BACKLOG = PERSISTENCE_DEFAULTS.maxBacklog;
export const DEFAULT_MAX_BACKLOG_BATCHED = PERSISTENCE_DEFAULTS.maxBacklogBatched;
export const DEFAULT_MAX_BATCH = PERSISTENCE_DEFAULTS.maxBatch;

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
  /** Why an event was not stored: a `StoreError` of kind `store-write` or `store-backlog`, or one from `toEvent`. */
  readonly storeErrors$: Observable<StoreError>;
  /** The events accepted and not yet written, oldest first (optionally of one session). */
  pending(sessionId?: string): NewSessionEvent[];
  /** Resolves once everything accepted so far has been written (or has failed). */
  flush(): Promise<void>;
  readonly store: SessionStore;
}

/**
 * A recorder writing into `store`: `record()` passes a stream on unchanged and queues each value for
 * one writer, so a slow or failing store never delays, reorders or ends it (failures on `storeErrors$`).
 */
export function createRecorder(store: SessionStore, options: RecorderOptions = {}): Recorder {
  const batched = typeof store.insertEvents === "function";
  const backlog = options.maxBacklog ?? (batched ? DEFAULT_MAX_BACKLOG_BATCHED : DEFAULT_MAX_BACKLOG);
  const maxBacklog = Math.max(1, Math.floor(backlog));
  const maxBatch = Math.max(1, Math.floor(options.maxBatch ?? DEFAULT_MAX_BATCH));
  const queue: NewSessionEvent[] = [];
  const accepted = new Subject<NewSessionEvent>();
  const stored = new Subject<SessionEvent>();
  const errors = new Subject<StoreError>();
  let draining: Promise<void> | undefined;
  const insertEvents = store.insertEvents?.bind(store);

  const writeOne = async (event: NewSessionEvent) => {
    try {
      const outcome = await store.insertEvent(event.sessionId, event);
      if (outcome.inserted) stored.next(outcome.event);
    } catch (error) {
      errors.next(StoreError.writeFailed(event.sessionId, event.id, error));
    }
  };

  /**
   * A batch is all or nothing. When it fails with several sessions in it, each session's part is
   * written again on its own, so one session's refusal (a lost lease) does not cost the others.
   */
  const writeBatch = async (
    batch: NewSessionEvent[],
    insertEvents: (e: NewSessionEvent[]) => Promise<InsertOutcome[]>,
  ) => {
    try {
      const outcomes = await insertEvents(batch);
      for (const outcome of outcomes) if (outcome.inserted) stored.next(outcome.event);
      return;
    } catch (error) {
      const sessions = new Map<string, NewSessionEvent[]>();
      for (const event of batch) sessions.set(event.sessionId, [...(sessions.get(event.sessionId) ?? []), event]);
      if (sessions.size === 1) {
        for (const event of batch) errors.next(StoreError.writeFailed(event.sessionId, event.id, error));
        return;
      }
      for (const part of sessions.values()) await writeBatch(part, insertEvents);
    }
  };

  const drain = async () => {
    while (queue.length > 0) {
      if (insertEvents) {
        // Everything queued so far (up to maxBatch) in one write; removed from the queue once written.
        const batch = queue.slice(0, maxBatch);
        await writeBatch(batch, insertEvents);
        queue.splice(0, batch.length);
      } else {
        await writeOne(queue[0] as NewSessionEvent);
        queue.shift();
      }
    }
    draining = undefined;
  };

  const enqueue = (event: NewSessionEvent) => {
    if (queue.length >= maxBacklog) {
      errors.next(StoreError.backlog(event.sessionId, event.id, maxBacklog));
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
