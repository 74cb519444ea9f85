import { BehaviorSubject, Observable, Subject, distinctUntilChanged, filter, share, type Observable as Obs } from "rxjs";
import type { AcpClientHandlers, ReconnectPolicy, TokenSource } from "../acp-http/index.js";
import { consoleLogger } from "../acp-http/index.js";
import { SandboxConnection, type CallOptions } from "./connection.js";
import {
  AgentListSchema,
  AgentInfoSchema,
  ControlPlaneHttp,
  FsEntrySchema,
  FsStatSchema,
  HealthSchema,
  InstallResultWireSchema,
  MoveResultSchema,
  PathResultSchema,
  UploadResultSchema,
  WriteResultSchema,
  toInstallResult,
  validate,
  type AgentInfo,
  type FsEntry,
  type FsStat,
  type Health,
  type InstallOptions,
  type InstallResult,
  type MoveResult,
  type UploadResult,
  type WriteResult,
} from "./control-plane.js";
import { AlreadyConnectedError } from "./errors/already-connected-error.js";
import { ConnectionLostError } from "./errors/connection-lost-error.js";
import { NotConnectedError } from "./errors/not-connected-error.js";
import { CallAbortedError } from "./errors/call-errors.js";
import { SandboxAgentError } from "./errors/sandbox-agent-error.js";
import { SandboxAgentHttpError } from "./errors/http-error.js";
import { forSession, parseErrorsOnly, sessionEndedOnly, type PermissionRequest, type SandboxEvent, type SandboxParseError, type SessionEnded } from "./events.js";
import type { SessionMetadata } from "./metadata.js";
import { apiFromHealthProbe, profileFor, type ServerApi } from "./profiles.js";
import * as sessions from "./sessions.js";
import * as v from "valibot";

/** The answer to a permission request: one of the offered options, or no decision. */
export type PermissionReply = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };

/** Receives the client's debug and warning lines; callers pass ids and statuses, never tokens. */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}

export interface SandboxAgentClientOptions {
  /** The server, e.g. `http://127.0.0.1:2468`. */
  baseUrl: string;
  /** The agent to drive (`claude`, `codex`, `mock`, ...); required to connect. */
  agent?: string;
  token?: TokenSource;
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  /** Connect from the constructor (default true); the outcome is on `ready` and `state$`. */
  autoConnect?: boolean;
  /** Which server contract; asked of the server when absent. */
  serverApi?: ServerApi;
  /** `v1` servers only: the server-side id of this client's agent process. Default: random. */
  serverId?: string;
  reconnect?: ReconnectPolicy;
  /** Working directory for new sessions when a call does not give one. Default `/`. */
  cwd?: string;
  /** Decides the agent's permission requests; without it every request is answered "cancelled". */
  onPermissionRequest?: (request: PermissionRequest) => PermissionReply | Promise<PermissionReply>;
  /** Answers the agent's file reads and writes (advertised to the agent only when given). */
  onReadTextFile?: (request: { sessionId: string; path: string; line?: number | null; limit?: number | null }) => string | Promise<string>;
  onWriteTextFile?: (request: { sessionId: string; path: string; content: string }) => void | Promise<void>;
  /** Log what the client does (never tokens): `true` for the console, or a logger of your own. */
  debug?: boolean | Logger;
}

/** `disconnected` until connected and after `disconnect()` or a lost connection. */
export type ConnectionState = "disconnected" | "connecting" | "connected" | "reconnecting";

export interface ConnectInfo {
  api: ServerApi;
  agent: string;
  agentInfo: { name: string; version?: string } | undefined;
  /** Extension flags the server or agent advertised. */
  extensions: Record<string, boolean>;
}

/** Why a connection ended: `disconnected` is `disconnect()`; anything else came from the server or the network. */
export interface DisconnectInfo {
  reason: "disconnected" | "connection-lost" | "retries-exhausted" | "unauthorized" | "stream-rejected";
  /** Absent for `disconnect()`; otherwise the error that ended the connection. */
  error?: ConnectionLostError;
}

/** A prompt turn as a stream: the session's events while it runs, then its outcome. */
export type PromptEvent = SandboxEvent | { kind: "stop"; stopReason: string };

/** One session seen from the client: its own events and its own calls. */
export interface SessionView {
  readonly sessionId: string;
  /** This session's events; completes after the session ends. */
  readonly events$: Obs<SandboxEvent>;
  prompt(prompt: sessions.PromptInput, options?: CallOptions): Promise<sessions.PromptOutcome>;
  prompt$(prompt: sessions.PromptInput): Obs<PromptEvent>;
  cancel(): Promise<void>;
}

const CLIENT_INFO = { name: "sandbox-agent-rx", version: "0.1.0" };

/**
 * The client for a sandbox-agent server: one connection to one agent, session
 * methods, events as observables, and the server's plain HTTP routes.
 */
export class SandboxAgentClient {
  /** Every session event of the current connection (and later ones); hot, no replay. */
  readonly events$: Obs<SandboxEvent>;
  /** Sessions that ended (terminated, finished, or their agent exited). */
  readonly sessionEnded$: Obs<SessionEnded>;
  /** Output the agent or the wire produced that was not understood. */
  readonly parseErrors$: Obs<SandboxParseError>;
  /** Connection state, replaying the current value. */
  readonly state$: Obs<ConnectionState>;
  /** One value each time a connection ends, with why; hot, no replay. */
  readonly disconnected$: Obs<DisconnectInfo>;
  /** Settles when auto-connect does: resolves when connected, rejects with the connect error. */
  readonly ready: Promise<ConnectInfo | undefined>;

  readonly #options: SandboxAgentClientOptions;
  readonly #events = new Subject<SandboxEvent>();
  readonly #disconnects = new Subject<DisconnectInfo>();
  readonly #state = new BehaviorSubject<ConnectionState>("disconnected");
  readonly #http: ControlPlaneHttp;
  readonly #logger: Logger | undefined;
  #api: Promise<ServerApi> | undefined;
  #connection: SandboxConnection | undefined;
  #connecting: Promise<ConnectInfo> | undefined;
  /** Why the last connection attempt or connection failed: the cause of later `NotConnectedError`s. */
  #lastFailure: unknown;
  #connectAbort: AbortController | undefined;

  constructor(options: SandboxAgentClientOptions) {
    this.#options = options;
    this.#logger = options.debug === true ? consoleLogger("sandbox-agent") : options.debug || undefined;
    this.#http = new ControlPlaneHttp({ baseUrl: options.baseUrl, token: options.token, headers: options.headers, fetch: options.fetch });
    this.events$ = this.#events.asObservable();
    this.sessionEnded$ = this.events$.pipe(sessionEndedOnly(), share());
    this.parseErrors$ = this.events$.pipe(parseErrorsOnly(), share());
    this.state$ = this.#state.pipe(distinctUntilChanged());
    this.disconnected$ = this.#disconnects.asObservable();
    if (options.autoConnect ?? true) {
      this.ready = this.connect();
      // The failure stays observable on `ready` and `state$`; it must not also surface as an unhandled rejection.
      this.ready.catch(() => undefined);
    } else {
      this.ready = Promise.resolve(undefined);
    }
  }

  get state(): ConnectionState {
    return this.#state.value;
  }

  get connected(): boolean {
    return this.#connection !== undefined && !this.#connection.closed;
  }

  // --- lifecycle -------------------------------------------------------------------

  /** Opens the one connection (initialize with the agent selection). Throws `AlreadyConnectedError` when one exists. */
  connect(): Promise<ConnectInfo> {
    if (this.#connecting || this.connected) return Promise.reject(new AlreadyConnectedError());
    const abort = new AbortController();
    this.#connectAbort = abort;
    const attempt = this.#open(abort.signal);
    this.#connecting = attempt;
    attempt.then(
      () => (this.#connecting = undefined),
      (error: unknown) => {
        this.#connecting = undefined;
        this.#lastFailure = error;
        this.#state.next("disconnected");
      },
    );
    return attempt;
  }

  /**
   * Closes the connection; session methods fail with `NotConnectedError` until `connect()`
   * again. A connect still under way is cancelled (its promise rejects with `CallAbortedError`).
   */
  async disconnect(): Promise<void> {
    const connecting = this.#connecting;
    this.#connectAbort?.abort();
    const connection = this.#connection;
    this.#connection = undefined;
    this.#state.next("disconnected");
    // Closing first makes a pending initialize fail at once instead of waiting on the server.
    if (connection) await connection.close();
    if (connecting) {
      await connecting.catch(() => undefined);
      return;
    }
    if (connection) this.#disconnects.next({ reason: "disconnected" });
  }

  async #open(signal: AbortSignal): Promise<ConnectInfo> {
    const agent = this.#options.agent;
    if (!agent) throw new SandboxAgentError("connect: no agent given; pass `agent` in the options");
    this.#state.next("connecting");
    const api = await untilAborted(this.#serverApi(), signal, "connect");
    const connection = new SandboxConnection(
      {
        baseUrl: this.#options.baseUrl,
        agent,
        serverId: this.#options.serverId ?? `sdk-${randomId()}`,
        profile: profileFor(api),
        token: this.#options.token,
        headers: this.#options.headers,
        fetch: this.#options.fetch,
        reconnect: this.#options.reconnect,
        handlers: this.#handlers(),
        clientInfo: CLIENT_INFO,
        logger: this.#logger,
      },
      this.#events,
    );
    connection.status.subscribe((status) => {
      if (this.#connection !== connection) return;
      if (status === "closed") {
        this.#connection = undefined;
        this.#state.next("disconnected");
        // A connection that fails while connecting is reported by connect() itself.
        if (!this.#connecting) this.#connectionEnded(connection);
      } else if (status !== "connecting") this.#state.next(status);
    });
    if (signal.aborted) {
      await connection.close();
      throw new CallAbortedError("connect was cancelled by disconnect()");
    }
    this.#connection = connection;
    try {
      const result = await connection.open();
      this.#lastFailure = undefined;
      this.#state.next("connected");
      const info = result.agentInfo;
      return {
        api,
        agent,
        agentInfo: info ? { name: info.name, ...(info.version !== undefined ? { version: info.version } : {}) } : undefined,
        extensions: { ...connection.extensions.flags },
      };
    } catch (error) {
      if (this.#connection === connection) this.#connection = undefined;
      await connection.close().catch(() => undefined);
      if (signal.aborted) throw new CallAbortedError("connect was cancelled by disconnect()", { cause: error });
      throw error;
    }
  }

  /** A connection the client did not close: record why, and say so on `disconnected$`. */
  #connectionEnded(connection: SandboxConnection): void {
    const info = connection.protocol.closeInfo;
    const reason = info?.reason ?? "connection-lost";
    const error = new ConnectionLostError(reason, undefined, { cause: info?.error?.cause });
    this.#lastFailure = error;
    this.#logger?.warn("connection lost", { reason });
    this.#disconnects.next({ reason, error });
  }

  #handlers(): AcpClientHandlers {
    const { onPermissionRequest, onReadTextFile, onWriteTextFile } = this.#options;
    return {
      ...(onPermissionRequest
        ? { requestPermission: async (params) => ({ outcome: await onPermissionRequest({ sessionId: params.sessionId, toolCall: params.toolCall, options: params.options }) }) }
        : {}),
      ...(onReadTextFile ? { readTextFile: async (params) => ({ content: await onReadTextFile(params) }) } : {}),
      ...(onWriteTextFile
        ? {
            writeTextFile: async (params) => {
              await onWriteTextFile(params);
              return {};
            },
          }
        : {}),
    };
  }

  /** The live connection, waiting (as long as the call's signal allows) for one being made; otherwise `NotConnectedError`. */
  async #live(method: string, call?: CallOptions): Promise<SandboxConnection> {
    if (this.#connecting) {
      try {
        await untilAborted(this.#connecting, call?.signal, method);
      } catch (error) {
        if (error instanceof CallAbortedError) throw error;
        throw new NotConnectedError(method, { cause: error });
      }
    }
    const connection = this.#connection;
    if (!connection || connection.closed) throw new NotConnectedError(method, this.#lastFailure ? { cause: this.#lastFailure } : undefined);
    return connection;
  }

  #serverApi(): Promise<ServerApi> {
    if (this.#options.serverApi) return Promise.resolve(this.#options.serverApi);
    if (!this.#api) {
      const detecting = this.#detectApi();
      // A failed probe is not remembered: the next call asks again.
      detecting.catch(() => (this.#api = undefined));
      this.#api = detecting;
    }
    return this.#api;
  }

  async #detectApi(): Promise<ServerApi> {
    try {
      await this.#http.send("detect server version", "get", "/v1/health");
      return "v1";
    } catch (error) {
      const api = error instanceof SandboxAgentHttpError ? apiFromHealthProbe(error.status) : undefined;
      if (api) return api;
      throw error;
    }
  }

  // --- sessions ----------------------------------------------------------------------

  async newSession(options: sessions.NewSessionOptions = {}, call?: CallOptions): Promise<sessions.SessionHandle> {
    return sessions.newSession(await this.#live("newSession", call), "session/new", options, this.#cwd(), call);
  }

  async loadSession(sessionId: string, options: sessions.NewSessionOptions = {}, call?: CallOptions): Promise<sessions.SessionHandle> {
    return sessions.newSession(await this.#live("loadSession", call), "session/load", { ...options, sessionId }, this.#cwd(), call);
  }

  async prompt(sessionId: string, prompt: sessions.PromptInput, call?: CallOptions): Promise<sessions.PromptOutcome> {
    return sessions.prompt(await this.#live("prompt", call), sessionId, prompt, call);
  }

  /**
   * The turn as an observable: this session's events while it runs, then a `stop`
   * event, then completion. Unsubscribing before the end cancels the turn.
   */
  prompt$(sessionId: string, prompt: sessions.PromptInput): Obs<PromptEvent> {
    return new Observable<PromptEvent>((subscriber) => {
      const controller = new AbortController();
      let settled = false;
      const updates = this.events$.pipe(filter((event) => "sessionId" in event && event.sessionId === sessionId)).subscribe(subscriber);
      this.prompt(sessionId, prompt, { signal: controller.signal }).then(
        (outcome) => {
          settled = true;
          subscriber.next({ kind: "stop", stopReason: outcome.stopReason });
          subscriber.complete();
        },
        (error: unknown) => {
          settled = true;
          subscriber.error(error);
        },
      );
      return () => {
        updates.unsubscribe();
        if (settled) return;
        controller.abort();
        this.cancel(sessionId).catch((error: unknown) => this.#logger?.warn("cancel after unsubscribe failed", { error: (error as Error).message }));
      };
    });
  }

  async cancel(sessionId: string): Promise<void> {
    await (await this.#live("cancel")).notify("session/cancel", { sessionId });
  }

  async setSessionMode(sessionId: string, modeId: string, call?: CallOptions): Promise<void> {
    await (await this.#live("setSessionMode", call)).call("session/set_mode", { sessionId, modeId }, call);
  }

  async setSessionConfigOption(sessionId: string, configId: string, value: unknown, call?: CallOptions): Promise<unknown> {
    return (await this.#live("setSessionConfigOption", call)).call("session/set_config_option", { sessionId, configId, value }, call);
  }

  async setSessionModel(sessionId: string, modelId: string, call?: CallOptions): Promise<void> {
    await (await this.#live("setSessionModel", call)).call("session/set_model", { sessionId, modelId }, call);
  }

  async listSessions(params: { cwd?: string; cursor?: string } = {}, call?: CallOptions): Promise<sessions.SessionList> {
    return sessions.listSessions(await this.#live("listSessions", call), params, call);
  }

  async forkSession(sessionId: string, options: { cwd?: string } = {}, call?: CallOptions): Promise<{ sessionId: string }> {
    return sessions.forkSession(await this.#live("forkSession", call), sessionId, options.cwd ?? this.#cwd(), call);
  }

  async resumeSession(sessionId: string, options: { cwd?: string } = {}, call?: CallOptions): Promise<void> {
    return sessions.resumeSession(await this.#live("resumeSession", call), sessionId, options.cwd ?? this.#cwd(), call);
  }

  async listModels(sessionId?: string, call?: CallOptions): Promise<sessions.ModelList> {
    return sessions.listModels(await this.#live("listModels", call), sessionId, call);
  }

  async setMetadata(sessionId: string, metadata: SessionMetadata, call?: CallOptions): Promise<void> {
    return sessions.setMetadata(await this.#live("setMetadata", call), sessionId, metadata, call);
  }

  async detachSession(sessionId: string, call?: CallOptions): Promise<void> {
    return sessions.detachSession(await this.#live("detachSession", call), sessionId, call);
  }

  async terminateSession(sessionId: string, call?: CallOptions): Promise<sessions.TerminateResult> {
    return sessions.terminateSession(await this.#live("terminateSession", call), sessionId, call);
  }

  /** A view of one session: its events (completing when it ends) and its calls. */
  session(sessionId: string): SessionView {
    return {
      sessionId,
      events$: this.events$.pipe(forSession(sessionId)),
      prompt: (prompt, options) => this.prompt(sessionId, prompt, options),
      prompt$: (prompt) => this.prompt$(sessionId, prompt),
      cancel: () => this.cancel(sessionId),
    };
  }

  // --- control plane -----------------------------------------------------------------
  // Every method takes `{ signal, timeoutMs }` last: none waits forever unless asked to.

  async health(call?: CallOptions): Promise<Health> {
    const api = await this.#serverApi();
    return this.#http.json("health", HealthSchema, "get", `${profileFor(api).controlPrefix}/health`, { ...call });
  }

  async listAgents(call?: CallOptions): Promise<AgentInfo[]> {
    if ((await this.#serverApi()) === "v1") return (await this.#http.json("listAgents", AgentListSchema, "get", "/v1/agents", { ...call })).agents;
    return validate("listAgents", AgentListSchema, await this.#extension("listAgents", "agentList", "_sandboxagent/agent/list", {}, call)).agents;
  }

  async getAgent(agentId: string, call?: CallOptions): Promise<AgentInfo> {
    if ((await this.#serverApi()) === "v1") return this.#http.json("getAgent", AgentInfoSchema, "get", `/v1/agents/${encodeURIComponent(agentId)}`, { ...call });
    const agent = (await this.listAgents(call)).find((candidate) => candidate.id === agentId);
    // v2 has no per-agent route; an unknown id fails as the v1 route does, so callers handle one error on both.
    if (!agent) throw new SandboxAgentHttpError("getAgent", 400, { type: "urn:sandbox-agent:error:unsupported_agent", detail: `unsupported agent: ${agentId}` }, undefined);
    return agent;
  }

  async installAgent(agentId: string, options: InstallOptions = {}, call?: CallOptions): Promise<InstallResult> {
    if ((await this.#serverApi()) === "v1") {
      return toInstallResult(await this.#http.json("installAgent", InstallResultWireSchema, "post", `/v1/agents/${encodeURIComponent(agentId)}/install`, { json: options, ...call }));
    }
    return toInstallResult(validate("installAgent", InstallResultWireSchema, await this.#extension("installAgent", "agentInstall", "_sandboxagent/agent/install", { agent: agentId, ...options }, call)));
  }

  /** The server's filesystem (paths are the server's; relative ones resolve against its `$HOME`). */
  readonly fs = {
    readFile: async (path: string, call?: CallOptions): Promise<Uint8Array> => {
      const prefix = profileFor(await this.#serverApi()).controlPrefix;
      const response = await this.#http.send("fs.readFile", "get", `${prefix}/fs/file`, { query: { path }, ...call });
      return new Uint8Array(await response.arrayBuffer());
    },
    writeFile: async (path: string, content: Uint8Array | string, call?: CallOptions): Promise<WriteResult> => {
      const prefix = profileFor(await this.#serverApi()).controlPrefix;
      const body = typeof content === "string" ? new TextEncoder().encode(content) : content;
      return this.#http.json("fs.writeFile", WriteResultSchema, "put", `${prefix}/fs/file`, { query: { path }, body: body as BodyInit, contentType: "application/octet-stream", ...call });
    },
    listEntries: async (path?: string, call?: CallOptions): Promise<FsEntry[]> => {
      if ((await this.#serverApi()) === "v1") return this.#http.json("fs.listEntries", v.array(FsEntrySchema), "get", "/v1/fs/entries", { query: { path }, ...call });
      const result = await this.#extension("fs.listEntries", "fsListEntries", "_sandboxagent/fs/list_entries", path === undefined ? {} : { path }, call);
      return validate("fs.listEntries", v.looseObject({ entries: v.array(FsEntrySchema) }), result).entries;
    },
    stat: async (path: string, call?: CallOptions): Promise<FsStat> => {
      if ((await this.#serverApi()) === "v1") return this.#http.json("fs.stat", FsStatSchema, "get", "/v1/fs/stat", { query: { path }, ...call });
      return validate("fs.stat", FsStatSchema, await this.#extension("fs.stat", "fsStat", "_sandboxagent/fs/stat", { path }, call));
    },
    mkdir: async (path: string, call?: CallOptions): Promise<{ path: string }> => {
      if ((await this.#serverApi()) === "v1") return this.#http.json("fs.mkdir", PathResultSchema, "post", "/v1/fs/mkdir", { query: { path }, ...call });
      return validate("fs.mkdir", PathResultSchema, await this.#extension("fs.mkdir", "fsMkdir", "_sandboxagent/fs/mkdir", { path }, call));
    },
    move: async (from: string, to: string, options: { overwrite?: boolean } = {}, call?: CallOptions): Promise<MoveResult> => {
      const body = { from, to, ...(options.overwrite !== undefined ? { overwrite: options.overwrite } : {}) };
      if ((await this.#serverApi()) === "v1") return this.#http.json("fs.move", MoveResultSchema, "post", "/v1/fs/move", { json: body, ...call });
      return validate("fs.move", MoveResultSchema, await this.#extension("fs.move", "fsMove", "_sandboxagent/fs/move", body, call));
    },
    deleteEntry: async (path: string, options: { recursive?: boolean } = {}, call?: CallOptions): Promise<{ path: string }> => {
      if ((await this.#serverApi()) === "v1") return this.#http.json("fs.deleteEntry", PathResultSchema, "delete", "/v1/fs/entry", { query: { path, recursive: options.recursive }, ...call });
      return validate("fs.deleteEntry", PathResultSchema, await this.#extension("fs.deleteEntry", "fsDeleteEntry", "_sandboxagent/fs/delete_entry", { path, recursive: options.recursive ?? false }, call));
    },
    /** Extracts an uncompressed tar archive under `path`. */
    uploadBatch: async (tar: Uint8Array, options: { path?: string } = {}, call?: CallOptions): Promise<UploadResult> => {
      const prefix = profileFor(await this.#serverApi()).controlPrefix;
      return this.#http.json("fs.uploadBatch", UploadResultSchema, "post", `${prefix}/fs/upload-batch`, { query: { path: options.path }, body: tar as BodyInit, contentType: "application/x-tar", ...call });
    },
  };

  /** A `v2` control-plane operation that exists only as an extension over the connection. */
  async #extension(operation: string, flag: string, method: string, params: Record<string, unknown>, call?: CallOptions): Promise<unknown> {
    const connection = await this.#live(operation, call);
    connection.requireExtension(operation, flag, method);
    return connection.call(method, params, call);
  }

  #cwd(): string {
    return this.#options.cwd ?? "/";
  }
}

function randomId(): string {
  return globalThis.crypto.randomUUID();
}

/** `promise`, unless `signal` aborts first: then a `CallAbortedError` (the work itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new CallAbortedError(`${what} was aborted`, { cause: signal.reason }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CallAbortedError(`${what} was aborted`, { cause: signal.reason }));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
