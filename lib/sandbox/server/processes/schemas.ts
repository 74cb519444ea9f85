import * as v from "valibot";

/**
 * The process routes' wire shapes (sandbox-agent 0.4.2), validated loosely: the fields
 * this client reads are checked, anything extra passes through.
 */

export const ProcessStatusSchema = v.picklist(["running", "exited"]);
/** `running`, or `exited` (with `exitCode`, absent when a signal ended it). */
export type ProcessStatus = v.InferOutput<typeof ProcessStatusSchema>;

export const ProcessOwnerSchema = v.picklist(["user", "desktop", "system"]);
export type ProcessOwner = v.InferOutput<typeof ProcessOwnerSchema>;

export const ProcessInfoSchema = v.looseObject({
  id: v.string(),
  command: v.string(),
  args: v.array(v.string()),
  cwd: v.optional(v.nullable(v.string())),
  tty: v.boolean(),
  interactive: v.boolean(),
  owner: v.string(),
  status: ProcessStatusSchema,
  pid: v.optional(v.nullable(v.number())),
  exitCode: v.optional(v.nullable(v.number())),
  createdAtMs: v.number(),
  exitedAtMs: v.optional(v.nullable(v.number())),
});
/**
 * One managed process as the server reports it.
 * - `pid`: absent once a signal-killed process is reaped.
 * - `exitCode`: set when the process exited by itself; absent (or null) when a signal ended it.
 */
export type ProcessInfo = v.InferOutput<typeof ProcessInfoSchema>;
export const ProcessListSchema = v.looseObject({ processes: v.array(ProcessInfoSchema) });

export const RunResultSchema = v.looseObject({
  exitCode: v.optional(v.nullable(v.number()), null),
  timedOut: v.boolean(),
  stdout: v.string(),
  stderr: v.string(),
  stdoutTruncated: v.boolean(),
  stderrTruncated: v.boolean(),
  durationMs: v.number(),
});
/**
 * The outcome of {@link Processes.run}: a non-zero exit code is a result, not an error.
 * - `exitCode`: null when the command timed out (it was killed).
 */
export type RunResult = v.InferOutput<typeof RunResultSchema>;

export const ProcessConfigSchema = v.looseObject({
  maxConcurrentProcesses: v.number(),
  defaultRunTimeoutMs: v.number(),
  maxRunTimeoutMs: v.number(),
  maxOutputBytes: v.number(),
  maxLogBytesPerProcess: v.number(),
  maxInputBytesPerRequest: v.number(),
});
/** The server's process limits (all six fields are required when setting them). */
export type ProcessConfig = v.InferOutput<typeof ProcessConfigSchema>;

export const LogStreamNameSchema = v.picklist(["stdout", "stderr", "combined", "pty"]);
/** Which output to read: `combined` (default) is stdout and stderr; a tty process logs only `pty`. */
export type LogStreamName = v.InferOutput<typeof LogStreamNameSchema>;

export const LogEntryWireSchema = v.looseObject({
  sequence: v.number(),
  stream: v.string(),
  timestampMs: v.number(),
  data: v.string(),
  encoding: v.optional(v.string(), "base64"),
});
export type LogEntryWire = v.InferOutput<typeof LogEntryWireSchema>;
export const LogsResponseSchema = v.looseObject({
  processId: v.string(),
  stream: v.string(),
  entries: v.array(LogEntryWireSchema),
});

export const InputResultSchema = v.looseObject({ bytesWritten: v.number() });
export const TerminalSizeSchema = v.looseObject({ cols: v.number(), rows: v.number() });
export type TerminalSize = v.InferOutput<typeof TerminalSizeSchema>;

/** Text frames the terminal socket sends: control only; output comes as binary frames. */
export const TerminalServerFrameSchema = v.variant("type", [
  v.looseObject({ type: v.literal("ready"), processId: v.optional(v.string()) }),
  v.looseObject({ type: v.literal("exit"), exitCode: v.optional(v.nullable(v.number()), null) }),
  v.looseObject({ type: v.literal("error"), message: v.optional(v.string(), "unknown error") }),
]);
export type TerminalServerFrame = v.InferOutput<typeof TerminalServerFrameSchema>;
