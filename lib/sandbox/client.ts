import { Subject, distinctUntilChanged, share, type Observable } from "rxjs";
import { consoleLogger } from "../acp-http/index.js";
import { agentHandlers } from "./agent-handlers.js";
import type { CallOptions, SandboxConnection } from "./connection.js";
import { ControlPlaneHttp } from "./control-plane.js";
import type { ControlRoutes } from "./control-routes.js";
import type { AgentInfo, Health, InstallOptions, InstallResult } from "./control-schemas.js";
import { parseErrorsOnly, sessionEndedOnly } from "./events.js";
import type { SandboxEvent, SandboxParseError, SessionEnded } from "./events.js";
import { fileSystem, type FileSystem } from "./file-system.js";
import { ConnectionLifecycle } from "./lifecycle.js";
import type { SessionMetadata } from "./metadata.js";
import { detectServerApi, profileFor, type ServerApi } from "./profiles.js";
import { Processes } from "./processes/index.js";
import { promptStream, sessionView } from "./session-views.js";
import * as sessions from "./sessions.js";
import type {
  ConnectInfo,
  ConnectOptions,
  ConnectionState,
  DisconnectInfo,
  PromptEvent,
  SandboxAgentClientOptions,
  SessionView,
} from "./types.js";

export type * from "./types.js";

/**
 * The client for a sandbox-agent server: one connection to one agent, session
 * methods, events as observables, and the server's plain HTTP routes.
 */
export class SandboxAgentClient {
  /** Every session event of the current connection (and later ones); hot, no replay. */
  readonly events$: Observable<SandboxEvent>;
  /** Sessions that ended (terminated, finished, or their agent exited). */
  readonly sessionEnded$: Observable<SessionEnded>;
  /** Output the agent or the wire produced that was not understood. */
  readonly parseErrors$: Observable<SandboxParseError>;
  /** Connection state, replaying the current value; `connected` only once a connect succeeded. */
  readonly state$: Observable<ConnectionState>;
  /** One value each time a connection ends, with why; hot, no replay. */
  readonly disconnected$: Observable<DisconnectInfo>;
  /** Settles when auto-connect does: resolves when connected, rejects with the connect error. */
  readonly ready: Promise<ConnectInfo | undefined>;
  /** The server's process API: commands, processes, logs and terminals (no connection needed). */
  readonly processes: Processes;

  readonly #options: SandboxAgentClientOptions;
  readonly #events = new Subject<SandboxEvent>();
  readonly #http: ControlPlaneHttp;
  readonly #lifecycle: ConnectionLifecycle;
  readonly #logger;
  #api: Promise<ServerApi> | undefined;

  constructor(options: SandboxAgentClientOptions) {
    this.#options = options;
    this.#logger = options.debug === true ? consoleLogger("sandbox-agent") : options.debug || undefined;
    const { baseUrl, token, headers, fetch } = options;
    const settings = { baseUrl, token, headers, fetch };
    this.#http = new ControlPlaneHttp(settings);
    this.processes = new Processes(this.#http, settings, { WebSocket: options.WebSocket });
    this.#lifecycle = new ConnectionLifecycle({
      options,
      events: this.#events,
      serverApi: () => this.#serverApi(),
      handlers: agentHandlers(options),
      logger: this.#logger,
    });
    this.events$ = this.#events.asObservable();
    this.sessionEnded$ = this.events$.pipe(sessionEndedOnly(), share());
    this.parseErrors$ = this.events$.pipe(parseErrorsOnly(), share());
    this.state$ = this.#lifecycle.state.pipe(distinctUntilChanged());
    this.disconnected$ = this.#lifecycle.disconnects.asObservable();
    if (options.autoConnect ?? true) {
      this.ready = this.connect();
      // The failure stays observable on `ready` and `state$`, not also as an unhandled rejection.
      this.ready.catch(() => undefined);
    } else {
      this.ready = Promise.resolve(undefined);
    }
  }

  get state(): ConnectionState {
    return this.#lifecycle.state.value;
  }

  get connected(): boolean {
    return this.#lifecycle.connected;
  }

  // --- lifecycle -------------------------------------------------------------------

  /**
   * Opens the one connection (initialize with the agent selection). Throws `AlreadyConnectedError`
   * when one exists; `signal` cancels the attempt (`CallAbortedError`), `timeoutMs` bounds it
   * (`CallTimeoutError`).
   */
  connect(options?: ConnectOptions): Promise<ConnectInfo> {
    return this.#lifecycle.connect(options);
  }

  /**
   * Closes the connection; session methods fail with `NotConnectedError` until `connect()` again. A
   * connect still under way is cancelled (its promise rejects with `CallAbortedError`, calls waiting
   * for it with `NotConnectedError`). Session views complete.
   */
  disconnect(): Promise<void> {
    return this.#lifecycle.disconnect();
  }

  #serverApi(): Promise<ServerApi> {
    if (this.#options.serverApi) return Promise.resolve(this.#options.serverApi);
    if (!this.#api) {
      const detecting = detectServerApi(this.#http);
      // A failed probe is not remembered: the next call asks again.
      detecting.catch(() => (this.#api = undefined));
      this.#api = detecting;
    }
    return this.#api;
  }

  /** Runs a session call on the live connection (waiting for one being made, within `call`'s bounds). */
  #on<T>(method: string, call: CallOptions | undefined, run: (c: SandboxConnection, call: CallOptions) => Promise<T>) {
    return this.#lifecycle.with(method, call, run);
  }

  // --- sessions ----------------------------------------------------------------------

  newSession(options: sessions.NewSessionOptions = {}, call?: CallOptions): Promise<sessions.SessionHandle> {
    return this.#on("newSession", call, (c, bounds) => sessions.newSession(c, options, this.#cwd(), bounds));
  }

  /** Opens an existing session on this connection (`session/load`): the agent replays its history. */
  loadSession(
    sessionId: string,
    options: sessions.NewSessionOptions = {},
    call?: CallOptions,
  ): Promise<sessions.SessionHandle> {
    return this.#on("loadSession", call, (c, b) => sessions.loadSession(c, sessionId, options, this.#cwd(), b));
  }

  /** Runs one turn. Aborting `call.signal` before the outcome also cancels the turn on the server. */
  prompt(sessionId: string, prompt: sessions.PromptInput, call?: CallOptions): Promise<sessions.PromptOutcome> {
    return this.#on("prompt", call, (c, bounds) => sessions.prompt(c, sessionId, prompt, bounds, this.#logger));
  }

  /**
   * The turn as an observable: this session's events (and gaps that may concern it) while it runs,
   * then a `stop` event, then completion. Unsubscribing before the end cancels the turn.
   */
  prompt$(sessionId: string, prompt: sessions.PromptInput): Observable<PromptEvent> {
    return promptStream(this.#views(), sessionId, prompt);
  }

  cancel(sessionId: string): Promise<void> {
    return this.#on("cancel", undefined, (c) => c.notify("session/cancel", { sessionId }));
  }

  async setSessionMode(sessionId: string, modeId: string, call?: CallOptions): Promise<void> {
    await this.#on("setSessionMode", call, (c, b) => c.call("session/set_mode", { sessionId, modeId }, b));
  }

  setSessionConfigOption(sessionId: string, configId: string, value: unknown, call?: CallOptions): Promise<unknown> {
    const params = { sessionId, configId, value };
    return this.#on("setSessionConfigOption", call, (c, b) => c.call("session/set_config_option", params, b));
  }

  async setSessionModel(sessionId: string, modelId: string, call?: CallOptions): Promise<void> {
    await this.#on("setSessionModel", call, (c, b) => c.call("session/set_model", { sessionId, modelId }, b));
  }

  listSessions(params: { cwd?: string; cursor?: string } = {}, call?: CallOptions): Promise<sessions.SessionList> {
    return this.#on("listSessions", call, (c, b) => sessions.listSessions(c, params, b));
  }

  forkSession(sessionId: string, options: { cwd?: string } = {}, call?: CallOptions): Promise<{ sessionId: string }> {
    const cwd = options.cwd ?? this.#cwd();
    return this.#on("forkSession", call, (c, b) => sessions.forkSession(c, sessionId, cwd, b));
  }

  resumeSession(sessionId: string, options: { cwd?: string } = {}, call?: CallOptions): Promise<void> {
    const cwd = options.cwd ?? this.#cwd();
    return this.#on("resumeSession", call, (c, b) => sessions.resumeSession(c, sessionId, cwd, b));
  }

  listModels(sessionId?: string, call?: CallOptions): Promise<sessions.ModelList> {
    return this.#on("listModels", call, (c, b) => sessions.listModels(c, sessionId, b));
  }

  setMetadata(sessionId: string, metadata: SessionMetadata, call?: CallOptions): Promise<void> {
    return this.#on("setMetadata", call, (c, b) => sessions.setMetadata(c, sessionId, metadata, b));
  }

  detachSession(sessionId: string, call?: CallOptions): Promise<void> {
    return this.#on("detachSession", call, (c, b) => sessions.detachSession(c, sessionId, b));
  }

  terminateSession(sessionId: string, call?: CallOptions): Promise<sessions.TerminateResult> {
    return this.#on("terminateSession", call, (c, b) => sessions.terminateSession(c, sessionId, b));
  }

  /** A view of one session: its events (completing when it ends or its connection closes) and its calls. */
  session(sessionId: string): SessionView {
    return sessionView(this.#views(), sessionId);
  }

  #views() {
    return {
      events$: this.events$,
      connectionEnded$: this.#lifecycle.ended,
      prompt: (id: string, input: sessions.PromptInput, call?: CallOptions) => this.prompt(id, input, call),
      cancel: (id: string) => this.cancel(id),
    };
  }

  // --- control plane -----------------------------------------------------------------
  // Every method takes `{ signal, timeoutMs }` last: none waits forever unless asked to.

  health(call?: CallOptions): Promise<Health> {
    return this.#routes().then((routes) => routes.health(call));
  }

  listAgents(call?: CallOptions): Promise<AgentInfo[]> {
    return this.#routes().then((routes) => routes.listAgents(call));
  }

  getAgent(agentId: string, call?: CallOptions): Promise<AgentInfo> {
    return this.#routes().then((routes) => routes.getAgent(agentId, call));
  }

  installAgent(agentId: string, options: InstallOptions = {}, call?: CallOptions): Promise<InstallResult> {
    return this.#routes().then((routes) => routes.installAgent(agentId, options, call));
  }

  /** The server's filesystem (paths are the server's; relative ones resolve against its `$HOME`). */
  readonly fs: FileSystem = fileSystem(() => this.#routes());

  /** The control-plane routes of the server's contract. */
  async #routes(): Promise<ControlRoutes> {
    const profile = profileFor(await this.#serverApi());
    return profile.controlRoutes(this.#http, (operation, flag, method, params, call) =>
      this.#on(operation, call, (connection, bounds) => {
        connection.requireExtension(operation, flag, method);
        return connection.call(method, params, bounds);
      }),
    );
  }

  #cwd(): string {
    return this.#options.cwd ?? "/";
  }
}
