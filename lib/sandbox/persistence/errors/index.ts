export { StoreError } from "./store-error.js";
export { InvalidCursorError } from "./invalid-cursor-error.js";
export { InvalidRecordError } from "./invalid-record-error.js";
export { StoreWriteError } from "./store-write-error.js";
export { StoreBacklogError } from "./store-backlog-error.js";
export { LeaseLostError } from "./lease-lost-error.js";
