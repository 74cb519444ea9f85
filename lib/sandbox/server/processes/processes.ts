import { mergeMap, Observable } from "rxjs";
import type * as v from "valibot";
import type { WebSocketConstructor } from "../../../internal/web-socket.js";
import type { CallOptions } from "../../call-options.js";
import type { ControlPlaneHttp, HttpSettings } from "../control-plane.js";
import { normalizeTimeout } from "../../../internal/abort.js";
import { Bound } from "../../deadline.js";
import { PROCESS_DEFAULTS } from "../../defaults.js";
import { V1_LIMITS } from "../profiles.js";
import { asBytes, toBase64 } from "./bytes.js";
import { openEventStream } from "./event-stream-request.js";
import { followLogs, type FollowLogsOptions } from "./log-follow.js";
import { toLogEntry, type ProcessLogEntry } from "./log-entry.js";
import { mapProcessErrors, type ProcessSubject } from "./process-errors.js";
import * as s from "./schemas.js";
import { watchStatus, type WatchStatusOptions } from "./status-watch.js";
import { terminalConnector } from "./terminal-connector.js";
import { Terminal, type TerminalOptions } from "./terminal.js";

/** A command to run to completion with {@link Processes.run}. */
export interface RunRequest {
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /**
   * Kill it after this long (server default 30 000, max 300 000); the result then has `timedOut: true`.
   * Absent: the call's `timeoutMs` when it has one, else the server's default.
   */
  timeoutMs?: number;
  /** Keep at most this many bytes of each of stdout and stderr (server default 1 MiB). */
  maxOutputBytes?: number;
}

/** A long-lived process to start with {@link Processes.spawn}. */
export interface SpawnRequest {
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Keep stdin open for {@link Processes.input}. */
  interactive?: boolean;
  /** Run under a pseudo-terminal (needed for {@link Processes.terminal}); output is then logged as `pty`. */
  tty?: boolean;
}

export interface LogsQuery {
  stream?: s.LogStreamName;
  /** Only the last N entries. */
  tail?: number;
  /** Only entries after this sequence number (exclusive). */
  since?: number;
}

export interface SignalOptions extends CallOptions {
  /** Wait up to this long for the process to exit before answering (its state may still be `running`). */
  waitMs?: number;
}

/** `follow: false` reads the retained entries once; the default follows until the process has exited. */
export type LogsFollowOptions = FollowLogsOptions & { follow?: boolean };

export interface ProcessesOptions {
  /** A WebSocket constructor for terminals, e.g. the `ws` package on Node 20; default `globalThis.WebSocket`. */
  WebSocket?: WebSocketConstructor;
}

const P = "/v1/processes";
const path = (id: string, rest = "") => `${P}/${encodeURIComponent(id)}${rest}`;

/**
 * The server's process API: run commands to completion, spawn long-lived processes,
 * write to them, read and follow their logs, watch their state, attach terminals.
 * Control plane only: no agent connection is needed.
 */
export class Processes {
  readonly #http: ControlPlaneHttp;
  readonly #settings: HttpSettings;
  readonly #options: ProcessesOptions;

  constructor(http: ControlPlaneHttp, settings: HttpSettings, options: ProcessesOptions = {}) {
    this.#http = http;
    this.#settings = settings;
    this.#options = options;
  }

  /**
   * Runs a command and waits for it. A non-zero exit or a timeout is a result; a command
   * that cannot start is a `SandboxAgentHttpError` of kind `spawn-failed` (with its `command`).
   * A request without a `timeoutMs` of its own gets the call's `timeoutMs` (a little less) as the
   * server's, so the server stops the command before the call gives up on it (the result then has
   * `timedOut: true`, or the call fails with `CallTimeoutError` when the answer is late). The server's run cannot be
   * cancelled: an abort through the call's `signal` ends the wait only, and the command runs on
   * until its own `timeoutMs` (server default 30 s); use `spawn` and `kill` for a command to stop.
   */
  run(request: RunRequest, call?: CallOptions): Promise<s.RunResult> {
    // The server takes whole milliseconds; a call without a deadline (none, or 2^31 − 1 and over) sends none.
    // Its timer must fire before the call's: a request dropped by the client leaves the command running.
    const callMs = normalizeTimeout(call?.timeoutMs);
    let json = request;
    if (request.timeoutMs === undefined && callMs !== undefined) {
      const margin = Math.min(PROCESS_DEFAULTS.runAnswerMarginMs, callMs / 10);
      json = { ...request, timeoutMs: Math.max(1, Math.floor(callMs - margin)) };
    }
    const init = { json, ...call };
    return this.#call({ command: request.command }, "processes.run", s.RunResultSchema, "post", `${P}/run`, init);
  }

  /** Starts a process and returns at once with its info (`status: "running"`). */
  spawn(request: SpawnRequest, call?: CallOptions): Promise<s.ProcessInfo> {
    const init = { json: request, ...call };
    return this.#call({ command: request.command }, "processes.spawn", s.ProcessInfoSchema, "post", P, init);
  }

  /** Every process the server tracks (running and exited), optionally only one owner's. */
  async list(filter: { owner?: s.ProcessOwner } = {}, call?: CallOptions): Promise<s.ProcessInfo[]> {
    const init = { query: { owner: filter.owner }, ...call };
    return (await this.#http.json("processes.list", s.ProcessListSchema, "get", P, init)).processes;
  }

  /** One process's info; a `NotFoundError` of kind `process-not-found` when the server has none with this id. */
  get(id: string, call?: CallOptions): Promise<s.ProcessInfo> {
    return this.#call(id, "processes.get", s.ProcessInfoSchema, "get", path(id), { ...call });
  }

  /** Sends SIGTERM. A program that ignores it stays `running`; see {@link Processes.kill}. */
  stop(id: string, options: SignalOptions = {}): Promise<s.ProcessInfo> {
    return this.#signal(id, "stop", options);
  }

  /** Sends SIGKILL; the process then has no exit code. */
  kill(id: string, options: SignalOptions = {}): Promise<s.ProcessInfo> {
    return this.#signal(id, "kill", options);
  }

  /** Forgets an exited process and its log; a `SandboxAgentHttpError` of kind `process-running` while it still runs. */
  async remove(id: string, call?: CallOptions): Promise<void> {
    const remove = async () => {
      const response = await this.#http.send("processes.remove", "delete", path(id), { ...call });
      await response.body?.cancel();
    };
    await mapProcessErrors({ processId: id }, remove);
  }

  /** The server's process limits. */
  getConfig(call?: CallOptions): Promise<s.ProcessConfig> {
    return this.#http.json("processes.getConfig", s.ProcessConfigSchema, "get", `${P}/config`, { ...call });
  }

  /** Replaces the server's process limits (all fields); returns what the server now uses. */
  setConfig(config: s.ProcessConfig, call?: CallOptions): Promise<s.ProcessConfig> {
    const init = { json: config, ...call };
    return this.#http.json("processes.setConfig", s.ProcessConfigSchema, "post", `${P}/config`, init);
  }

  /**
   * Writes to the process's stdin (or its PTY). Text goes as UTF-8; everything travels
   * base64-encoded. A `SandboxAgentHttpError` of kind `process-not-running` once it has exited.
   * Data over the server's per-request input limit (64 KiB by default) goes as several requests,
   * in order, one after the other, under the call's one deadline; `bytesWritten` is their sum. A
   * failure part way leaves the pieces before it written (their sum is not reported then).
   */
  async input(id: string, data: string | Uint8Array, call?: CallOptions): Promise<{ bytesWritten: number }> {
    const bytes = asBytes(data);
    const piece = V1_LIMITS.maxInputBytesPerRequest;
    const bound = new Bound("processes.input", call);
    try {
      let bytesWritten = 0;
      // An empty input is still one request (the server answers it; a caller may use it as a probe).
      for (let offset = 0; offset === 0 || offset < bytes.byteLength; offset += piece) {
        const json = { data: toBase64(bytes.subarray(offset, offset + piece)), encoding: "base64" };
        const init = { json, ...bound.call };
        const result = await this.#call(id, "processes.input", s.InputResultSchema, "post", path(id, "/input"), init);
        bytesWritten += result.bytesWritten;
      }
      return { bytesWritten };
    } finally {
      bound.dispose();
    }
  }

  /** The retained log entries, oldest first, with `data` decoded to bytes. */
  async logs(id: string, query: LogsQuery = {}, call?: CallOptions): Promise<ProcessLogEntry[]> {
    const init = { query: { stream: query.stream, tail: num(query.tail), since: num(query.since) }, ...call };
    const response = await this.#call(id, "processes.logs", s.LogsResponseSchema, "get", path(id, "/logs"), init);
    return response.entries.map(toLogEntry);
  }

  /**
   * The log as a cold stream: what is retained (from `since`/`tail`), then live output;
   * completes once the process has exited and its last entries were delivered. Reconnects
   * after a drop with `Last-Event-ID`, so no entry is lost or repeated. Unsubscribing aborts.
   */
  logs$(id: string, options: LogsFollowOptions = {}): Observable<ProcessLogEntry> {
    const { follow = true, ...rest } = options;
    if (!follow) return readOnce((signal) => this.logs(id, rest, { signal })).pipe(mergeMap((entries) => entries));
    const open = (lastEventId: string | undefined, signal: AbortSignal) => {
      // No `tail` here: followLogs takes it with a plain read first (see there why).
      const query = { follow: true, stream: rest.stream, since: rest.since };
      const request = () =>
        openEventStream(this.#settings, "processes.logs$", path(id, "/logs"), query, lastEventId, signal);
      return mapProcessErrors({ processId: id }, request);
    };
    const read = (from: { since?: number; tail?: number }, signal: AbortSignal) =>
      this.logs(id, { stream: rest.stream, ...from }, { signal });
    return followLogs(id, { open, get: (signal) => this.get(id, { signal }), read }, rest);
  }

  /** The process's info each time its status changes (polled); completes after `exited`. */
  status$(id: string, options: WatchStatusOptions = {}): Observable<s.ProcessInfo> {
    return watchStatus((signal) => this.get(id, { signal }), options);
  }

  /** Resizes a tty process's PTY over HTTP (no terminal socket needed); a 409 of kind `not-a-terminal` otherwise. */
  resize(id: string, cols: number, rows: number, call?: CallOptions): Promise<s.TerminalSize> {
    const init = { json: { cols, rows }, ...call };
    return this.#call(id, "processes.resize", s.TerminalSizeSchema, "post", path(id, "/terminal/resize"), init);
  }

  /**
   * Attaches a terminal to a process spawned with `tty: true`. The token goes in the
   * `Authorization` header when the WebSocket constructor can send headers (`ws`), else
   * as `?access_token=` (browsers). Output written before attaching is not replayed.
   */
  terminal(id: string, options: TerminalOptions = {}): Terminal {
    const connector = terminalConnector({
      processId: id,
      settings: this.#settings,
      WebSocket: this.#options.WebSocket,
      url: (accessToken) => this.terminalUrl(id, accessToken === undefined ? {} : { accessToken }),
      get: (call) => this.get(id, call),
    });
    return new Terminal(id, connector, options);
  }

  /**
   * The terminal WebSocket URL (`ws:`/`wss:`), for a socket of your own. Pass `accessToken`
   * only for a client that cannot send headers: the URL then carries the token, so keep
   * it out of logs (the server itself writes request URIs, query included, to its log).
   */
  terminalUrl(id: string, options: { accessToken?: string } = {}): string {
    const base = this.#settings.baseUrl.replace(/\/+$/, "").replace(/^http(s?):/i, "ws$1:");
    const query = options.accessToken ? `?access_token=${encodeURIComponent(options.accessToken)}` : "";
    return `${base}${path(id, "/terminal/ws")}${query}`;
  }

  #signal(id: string, which: "stop" | "kill", options: SignalOptions): Promise<s.ProcessInfo> {
    const { waitMs, ...call } = options;
    const init = { query: { waitMs: num(waitMs) }, ...call };
    return this.#call(id, `processes.${which}`, s.ProcessInfoSchema, "post", path(id, `/${which}`), init);
  }

  /** A JSON call whose failures become typed process errors (`subject`: a process id or the command). */
  #call<T>(
    subject: string | ProcessSubject,
    operation: string,
    schema: v.GenericSchema<unknown, T>,
    ...rest: JsonRest
  ): Promise<T> {
    const about = typeof subject === "string" ? { processId: subject } : subject;
    return mapProcessErrors(about, () => this.#http.json(operation, schema, ...rest));
  }
}

type JsonRest = Parameters<ControlPlaneHttp["json"]> extends [unknown, unknown, ...infer R] ? R : never;

const num = (value: number | undefined): string | undefined => (value === undefined ? undefined : String(value));

/** One call as a cold observable whose unsubscribe aborts the call (`defer` would let it run on). */
function readOnce<T>(call: (signal: AbortSignal) => Promise<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    call(controller.signal).then(
      (value) => {
        subscriber.next(value);
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => controller.abort();
  });
}
