/**
 * Persistence: a `SessionStore` (the interface and its browser-safe drivers), the recorder that
 * writes a live stream into it, `history$` (stored then live, one seamless stream) and the bounded
 * replay text for agents that cannot reload a session. SQLite lives in `sandbox-agent-rx/sqlite`.
 */
export type { SessionStore, ListPage, ListPageRequest, ListEventsRequest, InsertOutcome } from "./store.js";
export {
  SessionRecordSchema,
  SessionEventSchema,
  NewSessionEventSchema,
  type SessionRecord,
  type SessionEvent,
  type NewSessionEvent,
  type Sender,
} from "./schemas.js";
export { memoryStore, type MemoryStoreOptions } from "./memory-store.js";
export { indexedDbStore, type IndexedDbStoreOptions } from "./indexeddb-store.js";
export { eventIdentity, type IdentitySource } from "./identity.js";
export { createRecorder, type Recorder, type RecorderOptions } from "./recorder.js";
export { history$, type HistoryEvent, type HistoryOptions } from "./history.js";
export { buildReplayText, replayFromStore, type ReplayText, type ReplayOptions, type ReplaySource } from "./replay.js";
export { StoreError, LeaseLostError, type StoreErrorKind } from "../errors.js";
export { localLeases, type SessionLease, type SessionLeases, type ClaimRequest } from "./lease.js";
export { LeaseKeeper, DEFAULT_LEASE_TTL_MS, type ClaimOptions, type LeaseLost } from "./lease-keeper.js";
