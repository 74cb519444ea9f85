/** What the client imports from persistence, in one line. */
export { memoryStore } from "./memory-store.js";
export { SessionRecording } from "./session-recording.js";
export type { HistoryOptions } from "./history.js";
export type { StoreError } from "../errors.js";
