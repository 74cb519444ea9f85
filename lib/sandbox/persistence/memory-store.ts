import {
  eventsCursor,
  pageLimit,
  readEventsCursor,
  readSessionsCursor,
  sessionAfter,
  sessionsCursor,
} from "./cursor.js";
import type { NewSessionEvent, SessionEvent, SessionRecord } from "./schemas.js";
import type { InsertOutcome, ListEventsRequest, ListPage, ListPageRequest, SessionStore } from "./store.js";
import { checkInsert, checkSession, copy } from "./validate.js";

export interface MemoryStoreOptions {
  /** Sessions kept (default 256). Past it, the session created longest ago goes, with its events. */
  maxSessions?: number;
  /** Events kept per session (default 5000). Past it, the session's oldest events go. */
  maxEventsPerSession?: number;
}

interface Bucket {
  record: SessionRecord | undefined;
  /** When the bucket appeared; orders sessions whose record has not been written yet. */
  firstSeen: number;
  events: SessionEvent[];
  byId: Map<string, SessionEvent>;
  /** Ids of evicted events, so a replayed stream cannot write them again (bounded like the events). */
  evictedIds: Set<string>;
  lastIndex: number;
}

const positive = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;

/**
 * The default store: everything in this process's memory, gone with it. Bounded, with documented
 * eviction: at most `maxSessions` sessions (the one with the oldest `createdAt` is evicted first,
 * ties by id; a session with events but no record yet counts from its first event) and at most
 * `maxEventsPerSession` events per session (lowest `eventIndex` first). An evicted event's id is
 * remembered (as many ids as events are kept), so re-inserting it is still a no-op; indexes are
 * never reused.
 */
export function memoryStore(options: MemoryStoreOptions = {}): SessionStore {
  const maxSessions = positive(options.maxSessions, 256);
  const maxEvents = positive(options.maxEventsPerSession, 5000);
  const buckets = new Map<string, Bucket>();

  const orderKey = (id: string, bucket: Bucket) => ({ createdAt: bucket.record?.createdAt ?? bucket.firstSeen, id });

  const bucketFor = (sessionId: string): Bucket => {
    let bucket = buckets.get(sessionId);
    if (!bucket) {
      const firstSeen = Date.now();
      bucket = { record: undefined, firstSeen, events: [], byId: new Map(), evictedIds: new Set(), lastIndex: 0 };
      buckets.set(sessionId, bucket);
      evictSessions(sessionId);
    }
    return bucket;
  };

  const evictSessions = (keep: string) => {
    while (buckets.size > maxSessions) {
      let oldest: { createdAt: number; id: string } | undefined;
      for (const [id, bucket] of buckets) {
        if (id === keep) continue;
        const key = orderKey(id, bucket);
        if (!oldest || sessionAfter(oldest, key)) oldest = key;
      }
      if (!oldest) return;
      buckets.delete(oldest.id);
    }
  };

  const evictEvents = (bucket: Bucket) => {
    while (bucket.events.length > maxEvents) {
      const gone = bucket.events.shift() as SessionEvent;
      bucket.byId.delete(gone.id);
      bucket.evictedIds.add(gone.id);
      const ids = bucket.evictedIds;
      if (ids.size > maxEvents) ids.delete(ids.values().next().value as string);
    }
  };

  return {
    async getSession(id) {
      const record = buckets.get(id)?.record;
      return record ? copy(record) : undefined;
    },

    async listSessions(request: ListPageRequest = {}): Promise<ListPage<SessionRecord>> {
      const after = readSessionsCursor(request.cursor);
      const limit = pageLimit(request.limit);
      const all = [...buckets.values()]
        .flatMap((bucket) => (bucket.record ? [bucket.record] : []))
        .filter((record) => !after || sessionAfter(record, after))
        .sort((a, b) => (sessionAfter(a, b) ? 1 : -1));
      const items = all.slice(0, limit).map(copy);
      const last = items.at(-1);
      return all.length > limit && last ? { items, nextCursor: sessionsCursor(last.createdAt, last.id) } : { items };
    },

    async updateSession(session) {
      const record = copy(checkSession(session));
      bucketFor(record.id).record = record;
      evictSessions(record.id);
    },

    async listEvents(request: ListEventsRequest): Promise<ListPage<SessionEvent>> {
      const from = Math.max(readEventsCursor(request.cursor, request.sessionId), request.afterIndex ?? 0);
      const limit = pageLimit(request.limit);
      const events = buckets.get(request.sessionId)?.events ?? [];
      const start = firstAbove(events, from);
      const items = events.slice(start, start + limit).map(copy);
      const last = items.at(-1);
      const more = start + limit < events.length;
      return more && last ? { items, nextCursor: eventsCursor(request.sessionId, last.eventIndex) } : { items };
    },

    async insertEvent(sessionId: string, event: NewSessionEvent): Promise<InsertOutcome> {
      const checked = checkInsert(sessionId, event);
      const bucket = bucketFor(sessionId);
      const existing = bucket.byId.get(checked.id);
      if (existing) return { inserted: false, event: copy(existing) };
      if (bucket.evictedIds.has(checked.id)) return { inserted: false };
      const stored: SessionEvent = { ...copy(checked), eventIndex: ++bucket.lastIndex };
      bucket.events.push(stored);
      bucket.byId.set(stored.id, stored);
      evictEvents(bucket);
      return { inserted: true, event: copy(stored) };
    },

    async close() {
      buckets.clear();
    },
  };
}

/** The position of the first event with eventIndex > index (events are sorted by index). */
function firstAbove(events: SessionEvent[], index: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((events[mid] as SessionEvent).eventIndex <= index) low = mid + 1;
    else high = mid;
  }
  return low;
}
