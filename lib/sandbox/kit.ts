// What code built on the sandbox layer's two contracts needs of it, beyond the main entry: the
// store drivers (lib/sqlite, lib/postgres implement `SessionStore`, postgres `SessionLeases` too)
// and the sandbox providers (lib/providers/local and docker implement `SandboxProvider`).
//
// The layer line (spec/architecture.spec.ts): outside lib/sandbox, a file enters it only through
// `index.ts` (the public entry, which lib/react uses) or this module. The sandbox layer owns both
// contracts and imports nothing from the folders that implement them. This module is not an
// entry point of the package (package.json maps no subpath to it): what it adds to the public
// names (cursor helpers, record checks, the builders of provider errors) is for those folders.
// It loads only errors, the provider contract and persistence helpers, never the client.

// --- errors ---------------------------------------------------------------------------------
export {
  CallAbortedError,
  SandboxStartError,
  StoreError,
  LeaseLostError,
  providerError,
  sandboxNotFound,
} from "./errors.js";

// --- the provider contract (lib/providers) ---------------------------------------------------
export type {
  SandboxCallOptions,
  SandboxCreateOptions,
  SandboxInfo,
  SandboxProvider,
} from "./start/provider-contract.js";

// --- the store contract (lib/sqlite, lib/postgres) -------------------------------------------
export type { InsertOutcome, ListPage, SessionStore } from "./persistence/store.js";
export type { ClaimRequest, SessionLease, SessionLeases } from "./persistence/lease.js";
export type { NewSessionEvent, SessionEvent, SessionRecord } from "./persistence/schemas.js";
/** The cursors every store hands out, so that a page cursor means the same in each driver. */
export { eventsPage, pageLimit, readEventsCursor, readSessionsCursor, sessionsCursor } from "./persistence/cursor.js";
/** The checks every store applies to what it is given and what it reads back. */
export { checkEvent, checkInsert, checkSession } from "./persistence/validate.js";
