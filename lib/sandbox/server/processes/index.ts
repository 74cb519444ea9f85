/** The process API: commands, long-lived processes, their logs and state, and terminals. */
export {
  Processes,
  type RunRequest,
  type SpawnRequest,
  type LogsQuery,
  type SignalOptions,
  type LogsFollowOptions,
  type ProcessesOptions,
} from "./processes.js";
export { Terminal, type TerminalExit, type TerminalOptions } from "./terminal.js";
export type { ProcessLogEntry } from "./log-entry.js";
export type { FollowLogsOptions } from "./log-follow.js";
export type { WatchStatusOptions } from "./status-watch.js";
export type {
  ProcessInfo,
  ProcessStatus,
  ProcessOwner,
  RunResult,
  ProcessConfig,
  LogStreamName,
  TerminalSize,
} from "./schemas.js";
