import { Observable } from "rxjs";
import { StoreError } from "../errors.js";
import type { Recorder } from "./recorder.js";
import type { NewSessionEvent } from "./schemas.js";
import { PERSISTENCE_DEFAULTS } from "../defaults.js";

/** A session event from `history$`: stored ones carry their `eventIndex`, live ones not yet. */
export type HistoryEvent = NewSessionEvent & { eventIndex?: number };

export interface HistoryOptions {
  /** Events per store page while loading (default 500). */
  pageSize?: number;
  /** Ids remembered to drop an event that arrives again live (a replayed stream), default 4096. */
  recentIds?: number;
}

/**
 * A session's stored events, then its live ones, as one observable without a gap or a duplicate at
 * the seam. Live events are taken from the recorder the moment it accepts them, before the store
 * is read: anything accepted before that moment is either in the store or still in the recorder's
 * queue (both are read), anything after it is buffered until the stored part has been emitted.
 * An event found both in the store and in the buffer is emitted once, at its stored position.
 * Unsubscribing stops the paging. A failing store errors the observable with a `StoreError` whose
 * message starts with `call`, the name the user called (`history$`, `transcript$`).
 */
export function history$(
  recorder: Recorder,
  sessionId: string,
  options: HistoryOptions = {},
  call = "history$",
): Observable<HistoryEvent> {
  const pageSize = options.pageSize ?? PERSISTENCE_DEFAULTS.historyPageSize;
  const memory = Math.max(1, options.recentIds ?? PERSISTENCE_DEFAULTS.historyRecentIds);
  return new Observable<HistoryEvent>((subscriber) => {
    let stopped = false;
    let loading = true;
    // Insertion-ordered: the recorder's queue first (it was accepted earlier), then what arrives.
    const buffer = new Map<string, HistoryEvent>();
    const recent = new Set<string>();
    const emit = (event: HistoryEvent) => {
      if (recent.has(event.id)) return;
      recent.add(event.id);
      if (recent.size > memory) recent.delete(recent.values().next().value as string);
      subscriber.next(event);
    };
    for (const event of recorder.pending(sessionId)) buffer.set(event.id, event);
    const live = recorder.accepted$.subscribe((event) => {
      if (event.sessionId !== sessionId) return;
      if (loading) {
        if (!buffer.has(event.id)) buffer.set(event.id, event);
      } else emit(event);
    });

    const load = async () => {
      let cursor: string | undefined;
      do {
        const page = await recorder.store.listEvents({ sessionId, limit: pageSize, ...(cursor ? { cursor } : {}) });
        if (stopped) return;
        for (const event of page.items) {
          buffer.delete(event.id);
          emit(event);
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined && !stopped);
      // Still "loading" while the buffer drains: an event accepted re-entrantly joins the Map's
      // iteration instead of overtaking the buffered ones.
      for (const event of buffer.values()) emit(event);
      loading = false;
      buffer.clear();
    };
    load().catch((error: unknown) => {
      if (stopped) return;
      subscriber.error(StoreError.during(call, error, sessionId));
    });

    return () => {
      stopped = true;
      live.unsubscribe();
    };
  });
}
