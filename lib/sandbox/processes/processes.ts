import { defer, mergeMap, type Observable } from "rxjs";
import type * as v from "valibot";
import { resolveWebSocket, type WebSocketConstructor, type WebSocketLike } from "../../acp-http/web-socket.js";
import type { CallOptions } from "../connection.js";
import type { ControlPlaneHttp, HttpSettings } from "../control-plane.js";
import { SandboxAgentHttpError } from "../errors/http-error.js";
import { NotATerminalError } from "../errors/not-a-terminal-error.js";
import { TerminalError } from "../errors/terminal-error.js";
import { asBytes, toBase64 } from "./bytes.js";
import { openEventStream } from "./event-stream-request.js";
import { followLogs, type FollowLogsOptions } from "./log-follow.js";
import { toLogEntry, type ProcessLogEntry } from "./log-entry.js";
import { mapProcessErrors, type ProcessSubject } from "./process-errors.js";
import * as s from "./schemas.js";
import { watchStatus, type WatchStatusOptions } from "./status-watch.js";
import { Terminal, type TerminalOptions } from "./terminal.js";

/** A command to run to completion with {@link Processes.run}. */
export interface RunRequest {
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Kill it after this long (server default 30 000, max 300 000); the result then has `timedOut: true`. */
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

  /** Runs a command and waits for it. A non-zero exit or a timeout is a result; a command that cannot start is a `ProcessSpawnError`. */
  run(request: RunRequest, call?: CallOptions): Promise<s.RunResult> {
    return this.#json({ command: request.command }, "processes.run", s.RunResultSchema, "post", `${P}/run`, { json: request, ...call });
  }

  /** Starts a process and returns at once with its info (`status: "running"`). */
  spawn(request: SpawnRequest, call?: CallOptions): Promise<s.ProcessInfo> {
    return this.#json({ command: request.command }, "processes.spawn", s.ProcessInfoSchema, "post", P, { json: request, ...call });
  }

  /** Every process the server tracks (running and exited), optionally only one owner's. */
  async list(filter: { owner?: s.ProcessOwner } = {}, call?: CallOptions): Promise<s.ProcessInfo[]> {
    const query = { owner: filter.owner };
    return (await this.#http.json("processes.list", s.ProcessListSchema, "get", P, { query, ...call })).processes;
  }

  /** One process's info; `ProcessNotFoundError` when the server has none with this id. */
  get(id: string, call?: CallOptions): Promise<s.ProcessInfo> {
    return this.#json({ processId: id }, "processes.get", s.ProcessInfoSchema, "get", path(id), { ...call });
  }

  /** Sends SIGTERM. A program that ignores it stays `running`; see {@link Processes.kill}. */
  stop(id: string, options: SignalOptions = {}): Promise<s.ProcessInfo> {
    return this.#signal(id, "stop", options);
  }

  /** Sends SIGKILL; the process then has no exit code. */
  kill(id: string, options: SignalOptions = {}): Promise<s.ProcessInfo> {
    return this.#signal(id, "kill", options);
  }

  /** Forgets an exited process and its log; `ProcessRunningError` while it still runs. */
  async remove(id: string, call?: CallOptions): Promise<void> {
    await mapProcessErrors({ processId: id }, () => this.#http.send("processes.remove", "delete", path(id), { ...call }));
  }

  /** The server's process limits. */
  getConfig(call?: CallOptions): Promise<s.ProcessConfig> {
    return this.#http.json("processes.getConfig", s.ProcessConfigSchema, "get", `${P}/config`, { ...call });
  }

  /** Replaces the server's process limits (all fields); returns what the server now uses. */
  setConfig(config: s.ProcessConfig, call?: CallOptions): Promise<s.ProcessConfig> {
    return this.#http.json("processes.setConfig", s.ProcessConfigSchema, "post", `${P}/config`, { json: config, ...call });
  }

  /**
   * Writes to the process's stdin (or its PTY). Text goes as UTF-8; everything travels
   * base64-encoded. `ProcessNotRunningError` once it has exited.
   */
  async input(id: string, data: string | Uint8Array, call?: CallOptions): Promise<{ bytesWritten: number }> {
    const json = { data: toBase64(asBytes(data)), encoding: "base64" };
    const result = await this.#json({ processId: id }, "processes.input", s.InputResultSchema, "post", path(id, "/input"), { json, ...call });
    return { bytesWritten: result.bytesWritten };
  }

  /** The retained log entries, oldest first, with `data` decoded to bytes. */
  async logs(id: string, query: LogsQuery = {}, call?: CallOptions): Promise<ProcessLogEntry[]> {
    const q = { stream: query.stream, tail: num(query.tail), since: num(query.since) };
    const response = await this.#json({ processId: id }, "processes.logs", s.LogsResponseSchema, "get", path(id, "/logs"), { query: q, ...call });
    return response.entries.map(toLogEntry);
  }

  /**
   * The log as a cold stream: what is retained (from `since`/`tail`), then live output;
   * completes once the process has exited and its last entries were delivered. Reconnects
   * after a drop with `Last-Event-ID`, so no entry is lost or repeated. Unsubscribing aborts.
   */
  logs$(id: string, options: LogsFollowOptions = {}): Observable<ProcessLogEntry> {
    const { follow = true, ...rest } = options;
    if (!follow) return defer(() => this.logs(id, rest)).pipe(mergeMap((entries) => entries));
    const subject = { processId: id };
    return followLogs(id, {
      open: (lastEventId, signal) => {
        const query = { follow: true, stream: rest.stream, since: rest.since, tail: lastEventId ? undefined : rest.tail };
        return mapProcessErrors(subject, () => openEventStream(this.#settings, "processes.logs$", path(id, "/logs"), query, lastEventId, signal));
      },
      get: (signal) => this.get(id, { signal }),
      readAfter: (since, signal) => this.logs(id, { stream: rest.stream, ...(since === undefined ? {} : { since }) }, { signal }),
    }, rest);
  }

  /** The process's info each time its status changes (polled); completes after `exited`. */
  status$(id: string, options: WatchStatusOptions = {}): Observable<s.ProcessInfo> {
    return watchStatus((signal) => this.get(id, { signal }), options);
  }

  /** Resizes a tty process's PTY over HTTP (without a terminal socket); `NotATerminalError` otherwise. */
  resize(id: string, cols: number, rows: number, call?: CallOptions): Promise<s.TerminalSize> {
    const json = { cols, rows };
    return this.#json({ processId: id }, "processes.resize", s.TerminalSizeSchema, "post", path(id, "/terminal/resize"), { json, ...call });
  }

  /**
   * Attaches a terminal to a process spawned with `tty: true`. The token goes in the
   * `Authorization` header when the WebSocket constructor can send headers (`ws`), else
   * as `?access_token=` (browsers). Output written before attaching is not replayed.
   */
  terminal(id: string, options: TerminalOptions = {}): Terminal {
    let token: string | undefined;
    return new Terminal(id, {
      open: async (protocols) => {
        const { WebSocket, supportsHeaders } = resolveWebSocket(this.#options.WebSocket);
        token = typeof this.#settings.token === "function" ? await this.#settings.token() : this.#settings.token;
        const url = this.terminalUrl(id, supportsHeaders || !token ? {} : { accessToken: token });
        if (!supportsHeaders) return new WebSocket(url, protocols);
        const headers = { ...this.#settings.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
        return new WebSocket(url, protocols, { headers }) as WebSocketLike;
      },
      diagnose: async (reason) => {
        const safe = token ? reason.split(token).join("***") : reason;
        let info: s.ProcessInfo;
        try {
          info = await this.get(id);
        } catch (error) {
          return error as Error;
        }
        if (!info.tty) {
          const detail = "conflict: process is not running in tty mode";
          return new NotATerminalError(id, new SandboxAgentHttpError("processes.terminal", 409, { status: 409, detail }, undefined));
        }
        return new TerminalError(id, `could not connect: ${safe}`, { fromServer: false });
      },
    }, options);
  }

  /**
   * The terminal WebSocket URL (`ws:`/`wss:`), for a socket of your own. Pass `accessToken`
   * only for a client that cannot send headers: the URL then carries the token, so keep it out of logs.
   */
  terminalUrl(id: string, options: { accessToken?: string } = {}): string {
    const base = this.#settings.baseUrl.replace(/\/+$/, "").replace(/^http(s?):/i, "ws$1:");
    const query = options.accessToken ? `?access_token=${encodeURIComponent(options.accessToken)}` : "";
    return `${base}${path(id, "/terminal/ws")}${query}`;
  }

  #signal(id: string, which: "stop" | "kill", options: SignalOptions): Promise<s.ProcessInfo> {
    const { waitMs, ...call } = options;
    const query = { waitMs: num(waitMs) };
    return this.#json({ processId: id }, `processes.${which}`, s.ProcessInfoSchema, "post", path(id, `/${which}`), { query, ...call });
  }

  #json<T>(subject: ProcessSubject, operation: string, schema: v.GenericSchema<unknown, T>, ...rest: JsonRest): Promise<T> {
    return mapProcessErrors(subject, () => this.#http.json(operation, schema, ...rest));
  }
}

type JsonRest = Parameters<ControlPlaneHttp["json"]> extends [unknown, unknown, ...infer R] ? R : never;

const num = (value: number | undefined): string | undefined => (value === undefined ? undefined : String(value));

