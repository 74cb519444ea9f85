import { eventsPage, pageLimit, readEventsCursor, readSessionsCursor, sessionsCursor } from "./cursor.js";
import { StoreError } from "../errors.js";
import type { SessionEvent, SessionRecord } from "./schemas.js";
import type { InsertOutcome, ListPage, SessionStore } from "./store.js";
import { checkEvent, checkInsert, checkSession } from "./validate.js";
import { PERSISTENCE_DEFAULTS } from "../defaults.js";

export interface IndexedDbStoreOptions {
  /** Database name. Default `"sandbox-agent-rx"`. */
  name?: string;
  /** The IndexedDB factory; default `globalThis.indexedDB`. */
  indexedDB?: IDBFactory;
}

const VERSION = 1;
const SESSIONS = "sessions";
const EVENTS = "events";
const BY_IDENTITY = "identity";
const BY_ORDER = "order";

/**
 * A session store in the browser's IndexedDB: it survives reloads and is shared by the origin's tabs.
 * Events are keyed `[sessionId, eventIndex]` with a unique `[sessionId, id]` index; an insert reads
 * the identity and the current maximum and writes in one readwrite transaction, which IndexedDB
 * runs one at a time across tabs, so an event is stored once and indexes never repeat.
 */
export function indexedDbStore(options: IndexedDbStoreOptions = {}): SessionStore {
  const factory = options.indexedDB ?? globalThis.indexedDB;
  if (!factory) throw new StoreError("indexedDbStore: no IndexedDB in this environment");
  const opening = open(factory, options.name ?? PERSISTENCE_DEFAULTS.indexedDbName);
  const tx = async (stores: string[], mode: IDBTransactionMode) => (await opening).transaction(stores, mode);

  return {
    async getSession(id) {
      const row = await request((await tx([SESSIONS], "readonly")).objectStore(SESSIONS).get(id));
      return row === undefined ? undefined : checkSession(row);
    },

    async listSessions(request_ = {}): Promise<ListPage<SessionRecord>> {
      const after = readSessionsCursor(request_.cursor);
      const limit = pageLimit(request_.limit);
      const index = (await tx([SESSIONS], "readonly")).objectStore(SESSIONS).index(BY_ORDER);
      const range = after ? IDBKeyRange.lowerBound([after.createdAt, after.id], true) : undefined;
      const rows = await request(index.getAll(range, limit + 1));
      const items = rows.slice(0, limit).map(checkSession);
      const last = items.at(-1);
      return rows.length > limit && last ? { items, nextCursor: sessionsCursor(last.createdAt, last.id) } : { items };
    },

    async updateSession(session) {
      const record = checkSession(session);
      const transaction = await tx([SESSIONS], "readwrite");
      transaction.objectStore(SESSIONS).put(record);
      await done(transaction);
    },

    async listEvents(request_): Promise<ListPage<SessionEvent>> {
      const { sessionId } = request_;
      const from = Math.max(readEventsCursor(request_.cursor, sessionId), request_.afterIndex ?? 0);
      const limit = pageLimit(request_.limit);
      const store = (await tx([EVENTS], "readonly")).objectStore(EVENTS);
      const range = IDBKeyRange.bound([sessionId, from], [sessionId, Infinity], true, false);
      const rows = await request(store.getAll(range, limit + 1));
      return eventsPage(rows, limit, sessionId, checkEvent);
    },

    async insertEvent(sessionId, event): Promise<InsertOutcome> {
      const checked = checkInsert(sessionId, event);
      const transaction = await tx([EVENTS], "readwrite");
      const store = transaction.objectStore(EVENTS);
      const existing = await request(store.index(BY_IDENTITY).get([sessionId, checked.id]));
      if (existing !== undefined) {
        await done(transaction);
        return { inserted: false, event: checkEvent(existing) };
      }
      const newest = await request(store.openCursor(IDBKeyRange.bound([sessionId, 0], [sessionId, Infinity]), "prev"));
      const lastIndex = newest ? (newest.value as SessionEvent).eventIndex : 0;
      const stored: SessionEvent = { ...checked, eventIndex: lastIndex + 1 };
      store.add(stored);
      await done(transaction);
      return { inserted: true, event: stored };
    },

    async close() {
      (await opening).close();
    },
  };
}

function open(factory: IDBFactory, name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const opening = factory.open(name, VERSION);
    opening.onupgradeneeded = () => {
      const db = opening.result;
      db.createObjectStore(SESSIONS, { keyPath: "id" }).createIndex(BY_ORDER, ["createdAt", "id"]);
      const events = db.createObjectStore(EVENTS, { keyPath: ["sessionId", "eventIndex"] });
      events.createIndex(BY_IDENTITY, ["sessionId", "id"], { unique: true });
    };
    opening.onsuccess = () => resolve(opening.result);
    opening.onerror = () =>
      reject(new StoreError("indexedDbStore: could not open the database", { cause: opening.error }));
    opening.onblocked = () => reject(new StoreError("indexedDbStore: the database is held open by an older version"));
  });
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(new StoreError("indexedDbStore: request failed", { cause: req.error }));
  });
}

function done(transaction: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    const fail = (what: string) => () =>
      reject(new StoreError(`indexedDbStore: transaction ${what}`, { cause: transaction.error }));
    transaction.onerror = fail("failed");
    transaction.onabort = fail("aborted");
  });
}
