import type { SessionLeases } from "./lease.js";
import type { NewSessionEvent, SessionEvent, SessionRecord } from "./schemas.js";

/** A page request: `cursor` is the `nextCursor` of the previous page (opaque), `limit` at most 1000. */
export interface ListPageRequest {
  cursor?: string;
  limit?: number;
}

/** One page; `nextCursor` is absent on the last page. */
export interface ListPage<T> {
  items: T[];
  nextCursor?: string;
}

export interface ListEventsRequest extends ListPageRequest {
  sessionId: string;
  /** Only events with a larger `eventIndex` (what `history$` uses to page on from a seam). */
  afterIndex?: number;
}

/**
 * What `insertEvent` did. `inserted: false` means an event with that id was already stored; `event`
 * is then the stored copy, absent only when a bounded store has already evicted it.
 */
export type InsertOutcome = { inserted: true; event: SessionEvent } | { inserted: false; event?: SessionEvent };

/**
 * Where sessions and their events are kept. The shape follows upstream sandbox-agent's
 * `SessionPersistDriver` (same five methods and names), with two differences that make the
 * "written once, in order" guarantee the store's own: `insertEvent` assigns the per-session
 * `eventIndex` itself (atomically, max + 1) and ignores an event whose `id` is already stored
 * for that session (a unique constraint), reporting which happened.
 */
export interface SessionStore {
  getSession(id: string): Promise<SessionRecord | undefined>;
  /** Sessions oldest first (`createdAt`, then `id`). */
  listSessions(request?: ListPageRequest): Promise<ListPage<SessionRecord>>;
  /** Inserts or replaces the record with this `id`. */
  updateSession(session: SessionRecord): Promise<void>;
  /** A session's events by ascending `eventIndex`. */
  listEvents(request: ListEventsRequest): Promise<ListPage<SessionEvent>>;
  insertEvent(sessionId: string, event: NewSessionEvent): Promise<InsertOutcome>;
  /**
   * Optional batch form of `insertEvent`: the same outcome for each event, in order (events of several
   * sessions may be mixed; each session's keep their order), in fewer round trips. The recorder
   * uses it when present. All or nothing: when it rejects, none of the batch was stored.
   */
  insertEvents?(events: NewSessionEvent[]): Promise<InsertOutcome[]>;
  /**
   * Optional: leases shared with other processes (`restoreSessions({ claim: true })`); a store that
   * has them refuses writes on a session whose lease it has lost (`LeaseLostError`). Without them a
   * claim is local to this process.
   */
  readonly leases?: SessionLeases;
  /** Releases the database handle, where there is one. */
  close?(): Promise<void>;
}
