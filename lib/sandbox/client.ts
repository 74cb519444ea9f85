import { distinctUntilChanged, share, type Observable } from "rxjs";
import type * as v from "valibot";
import { agentHandlers, inputDesk, permissionDesk, type PermissionDesk } from "./connection/agent-handlers.js";
import { resolveClientOptions, type ClientSettings } from "./client-options.js";
import type { CallOptions } from "./call-options.js";
import { Bound } from "./deadline.js";
import { parseErrorsOnly, sessionEndedOnly } from "./events/events.js";
import type { SandboxEvent, SandboxParseError, SessionEnded } from "./events/events.js";
import { ConnectionLifecycle } from "./connection/lifecycle.js";
import type { SessionMetadata } from "./metadata.js";
import { SessionRecording } from "./sessions/session-recording.js";
import type { StoreError } from "./errors.js";
import type { LeaseLost } from "./persistence/lease-keeper.js";
import type { RestoreOptions, ResumedSession } from "./sessions/resume.js";
import { rawRequest, type RawRequestOptions, type RequestResult } from "./connection/raw-request.js";
import { launchSandbox, type Launched, type StartSandboxOptions } from "./start/launch.js";
import type { SandboxCallOptions, SandboxInfo } from "./start/provider-contract.js";
import type { HealthWaitResult, ServerConfig } from "./server/config/index.js";
import type { AgentInfo, AgentQueryOptions, Health, InstallOptions, InstallResult } from "./server/control-schemas.js";
import type { ServerConnection } from "./server/control-schemas.js";
import type { Desktop } from "./server/desktop/index.js";
import type { FileSystem } from "./server/file-system.js";
import type { Processes } from "./server/processes/index.js";
import { ServerContract } from "./server/server-contract.js";
import { ServerRoutes } from "./server/server-routes.js";
import { SessionSettings } from "./sessions/session-config.js";
import type { SessionConfigOption, SessionModes } from "./sessions/session-config.js";
import type * as sessions from "./sessions/session-calls.js";
import { Sessions } from "./sessions/sessions.js";
import { paramsForm, sessionIdOf, type SessionParams, type SessionPlace } from "./sessions/call-forms.js";
import type { ConnectInfo, ConnectOptions, ConnectionState, DisconnectInfo, PromptEvent } from "./types.js";
import type {
  HealthWaitBounds,
  InputReply,
  PermissionReply,
  ReconnectAttempt,
  SandboxAgentClientOptions,
  SessionView,
} from "./types.js";

export type * from "./types.js";

type SessionHandle = sessions.SessionHandle;

/** The fields that are set (a params object's absent fields leave the defaults in place). */
function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

// One class made of parts it owns, each a plain object: the control plane (`ServerRoutes`), the
// connection (`ConnectionLifecycle`), the store's recording (`SessionRecording`), the sessions
// (`Sessions`) and their configuration (`SessionSettings`); see docs/architecture.md.
/**
 * The client for a sandbox-agent server: one connection to one agent; sessions, prompts and their
 * events as observables (`events$`, `session(id)`, `prompt$`) with promise twins for scripts; the
 * sessions' modes, models and options; a store of every session for resume (`resumeSession`,
 * `restoreSessions`); and the server's own areas: `health()`, agents, `fs`, `processes`, `desktop`
 * and `config`. Made with `new SandboxAgentClient({ baseUrl, agent })` (it connects by itself; await
 * `ready`) or `SandboxAgentClient.start({ sandbox })`, which starts the server too.
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
  /** Each reconnect attempt while `state$` says `reconnecting` (option `reconnect`); hot, no replay. */
  readonly reconnecting$: Observable<ReconnectAttempt>;
  /** Settles when auto-connect does: resolves when connected, rejects with the connect error. */
  readonly ready: Promise<ConnectInfo | undefined>;
  /** Why something was not written to the store (the session goes on regardless). */
  readonly storeErrors$: Observable<StoreError>;
  /** The server's process API: commands, processes, logs and terminals (no connection needed). */
  readonly processes: Processes;
  /** The sandbox's virtual desktop: screen, input, windows, clipboard, recordings (released server). */
  readonly desktop: Desktop;
  /** Per-directory MCP server and skills entries (released server; no connection needed). */
  readonly config: ServerConfig;
  /** The server's filesystem (paths are the server's; relative ones resolve against its `$HOME`). */
  readonly fs: FileSystem;

  readonly #options: ClientSettings;
  readonly #server: ServerRoutes;
  readonly #settings: SessionSettings;
  readonly #lifecycle: ConnectionLifecycle;
  readonly #recording: SessionRecording;
  readonly #sessions: Sessions;
  readonly #desk: PermissionDesk;
  readonly #questions = inputDesk();
  #sandbox: Launched<SandboxAgentClient> | undefined;

  /**
   * Creates a sandbox with `options.sandbox` (`local()`, `docker()`, your own provider), waits for its
   * server and connects. `destroySandbox()` tears it down; `disconnect()` alone leaves it running.
   */
  static async start(options: StartSandboxOptions): Promise<SandboxAgentClient> {
    const started = await launchSandbox(options, (settings) => new SandboxAgentClient(settings));
    started.client.#sandbox = started;
    return started.client;
  }

  /** Throws a `TypeError` naming the option when one is missing or of the wrong kind (nothing is sent then). */
  constructor(given: SandboxAgentClientOptions) {
    const options = resolveClientOptions(given);
    this.#options = options;
    // The parts, each handed the parts it works with (no callbacks back into the client). The
    // contract is asked by the lifecycle (how to connect) and the routes; the lifecycle is the one
    // entry of every call on the connection, v2's control-plane extensions included.
    const contract = new ServerContract(options);
    this.#recording = new SessionRecording(options.store, options.replay);
    this.#desk = permissionDesk();
    const handlers = agentHandlers(options, this.#desk, this.#recording, this.#questions);
    this.#lifecycle = new ConnectionLifecycle(options, contract, handlers, this.#recording);
    this.#server = new ServerRoutes(options, contract, this.#lifecycle);
    this.#settings = new SessionSettings(options, this.#lifecycle, this.#server, this.#recording);
    this.#sessions = new Sessions(options, this.#lifecycle, this.#recording, this.#settings);
    this.processes = this.#server.processes;
    this.desktop = this.#server.desktop;
    this.config = this.#server.config;
    this.fs = this.#server.fs;
    // The events, composed up from each connection's streams, are the client's.
    this.events$ = this.#lifecycle.events$;
    this.storeErrors$ = this.#recording.storeErrors$;
    this.sessionEnded$ = this.events$.pipe(sessionEndedOnly(), share());
    this.parseErrors$ = this.events$.pipe(parseErrorsOnly(), share());
    this.state$ = this.#lifecycle.state.pipe(distinctUntilChanged());
    this.disconnected$ = this.#lifecycle.disconnects.asObservable();
    this.reconnecting$ = this.#lifecycle.reconnects.asObservable();
    if (options.autoConnect) {
      this.ready = this.connect({ waitForServer: options.waitForServer });
      // The failure stays observable on `ready` and `state$`, not also as an unhandled rejection.
      this.ready.catch(() => undefined);
    } else {
      this.ready = Promise.resolve(undefined);
    }
  }

  /** The connection state now (`state$` without the waiting). */
  get state(): ConnectionState {
    return this.#lifecycle.state.value;
  }

  /** Whether a connection is up now. */
  get connected(): boolean {
    return this.#lifecycle.connected;
  }

  /**
   * What the last successful connect learnt (the agent, its extensions, `agentCan`); undefined
   * before one. A connect that `resumeSession` or `autoConnect` made counts too.
   */
  get connectInfo(): ConnectInfo | undefined {
    return this.#lifecycle.info;
  }

  /** The sandbox this client started with `SandboxAgentClient.start`, if any. */
  get sandbox(): SandboxInfo | undefined {
    return this.#sandbox?.info;
  }

  /** Disconnects, then destroys the sandbox `start` created (nothing for a client made with `new`). */
  async destroySandbox(options?: SandboxCallOptions): Promise<void> {
    await this.#sandbox?.destroy(options);
  }

  // --- lifecycle -------------------------------------------------------------------

  /**
   * Opens the one connection (initialize with the agent selection: `agent`, else the client's).
   * Throws an `AlreadyConnectedError` (kind `already-connected`) when one exists; `signal` cancels
   * the attempt (`CallAbortedError`), `timeoutMs` bounds it (`CallTimeoutError`), including the wait
   * for the server that `waitForServer` asks for. An `agent` that is not a non-empty string is a
   * `TypeError`, and nothing is sent.
   */
  async connect(options: ConnectOptions = {}): Promise<ConnectInfo> {
    const { waitForServer, agent, ...bounds } = options;
    if (agent !== undefined && (typeof agent !== "string" || agent === "")) {
      throw new TypeError(`connect: option agent must be a non-empty string (e.g. "claude"), got ${typeof agent}`);
    }
    if (!waitForServer) return this.#lifecycle.connect(bounds, agent);
    // One deadline for the wait and the connect together; the wait keeps its pace (and, without a
    // `timeoutMs`, its own default bound) and stops when that deadline passes.
    const bound = new Bound("connect", bounds);
    try {
      const pace = waitForServer === true ? {} : waitForServer;
      const within = bounds.timeoutMs === undefined ? {} : { timeoutMs: bounds.timeoutMs };
      await this.waitForHealth({ ...pace, ...within, ...bound.call });
      return await this.#lifecycle.connect(bound.call, agent);
    } finally {
      bound.dispose();
    }
  }

  /**
   * Closes the connection; session methods fail with `NotConnectedError` until `connect()` again. A
   * connect still under way is cancelled (its promise rejects with `CallAbortedError`, calls waiting
   * for it with `NotConnectedError`). Session views complete. Leases of claimed sessions are given
   * up once the last events are written (another worker may take the sessions over at once).
   */
  async disconnect(): Promise<void> {
    try {
      await this.#lifecycle.disconnect();
    } finally {
      await this.#sessions.releaseLeases();
    }
  }

  // --- sessions ----------------------------------------------------------------------

  /**
   * Opens a new session (`session/new`) in `options.cwd` (default: the client's `cwd`); it is
   * recorded in the store.
   */
  newSession(options: sessions.NewSessionOptions = {}, call?: CallOptions): Promise<sessions.SessionHandle> {
    return this.#sessions.newSession(options, call);
  }

  /**
   * Opens an existing session on this connection (`session/load`): the agent replays its history.
   * Also takes the protocol's params object (`{ sessionId, cwd, mcpServers, additionalDirectories }`).
   */
  loadSession(sessionId: string, options?: sessions.NewSessionOptions, call?: CallOptions): Promise<SessionHandle>;
  loadSession(params: SessionParams<sessions.NewSessionOptions>, call?: CallOptions): Promise<SessionHandle>;
  async loadSession(
    first: string | SessionParams<sessions.NewSessionOptions>,
    second?: sessions.NewSessionOptions | CallOptions,
    third?: CallOptions,
  ): Promise<SessionHandle> {
    const params = paramsForm<SessionParams<sessions.NewSessionOptions>>("loadSession", first);
    if (!params) {
      const options = (second as sessions.NewSessionOptions | undefined) ?? {};
      return this.#sessions.loadSession(first as string, options, third);
    }
    const { cwd, mcpServers, additionalDirectories } = params;
    const options = defined({ cwd, mcpServers, additionalDirectories });
    return this.#sessions.loadSession(params.sessionId, options, second as CallOptions | undefined);
  }

  /**
   * Runs one turn. Aborting `call.signal` before the outcome also cancels the turn on the server.
   * Also takes the protocol's params object: `prompt({ sessionId, prompt: [...] }, call)`.
   */
  prompt(sessionId: string, prompt: sessions.PromptInput, call?: CallOptions): Promise<sessions.PromptOutcome>;
  prompt(params: SessionParams<{ prompt: sessions.PromptInput }>, call?: CallOptions): Promise<sessions.PromptOutcome>;
  async prompt(
    first: string | SessionParams<{ prompt: sessions.PromptInput }>,
    second?: sessions.PromptInput | CallOptions,
    third?: CallOptions,
  ): Promise<sessions.PromptOutcome> {
    const params = paramsForm<SessionParams<{ prompt: sessions.PromptInput }>>("prompt", first, ["prompt"]);
    if (!params) return this.#sessions.prompt(first as string, second as sessions.PromptInput, third);
    return this.#sessions.prompt(params.sessionId, params.prompt, second as CallOptions | undefined);
  }

  /**
   * The turn as an observable: this session's events (and gaps that may concern it) while it runs,
   * then a `stop` event, then completion. Unsubscribing before the end cancels the turn.
   */
  prompt$(sessionId: string, prompt: sessions.PromptInput): Observable<PromptEvent> {
    return this.#sessions.prompt$(sessionId, prompt);
  }

  /**
   * Cancels the session's running turn (`session/cancel`, a notification: nothing to wait for but the
   * send). Also takes the protocol's params object (`{ sessionId }`).
   */
  async cancel(session: string | SessionParams): Promise<void> {
    return this.#sessions.cancel(sessionIdOf("cancel", session));
  }

  /**
   * A raw request on the live connection for methods not wrapped here (agent or server extensions).
   * With `schema` the result is parsed by it (a `SandboxAgentError` of kind `protocol` when it does not match).
   */
  request<TSchema extends v.GenericSchema | undefined = undefined>(
    method: string,
    params?: Record<string, unknown> | unknown[],
    options: RawRequestOptions<TSchema> = {},
  ): Promise<RequestResult<TSchema>> {
    return this.#lifecycle.with(method, options, (c, bounds) => rawRequest(c, method, params, options, bounds));
  }

  /** The agent's sessions (`session/list`), a page at a time (`cursor`). */
  listSessions(params: { cwd?: string; cursor?: string } = {}, call?: CallOptions): Promise<sessions.SessionList> {
    return this.#sessions.list(params, call);
  }

  /**
   * `session/fork`; the fork is recorded like a new session, `metadata.forkedFrom` naming the parent.
   * `additionalDirectories`: more directories the fork may work in beside `cwd`. Also takes the
   * protocol's params object (`{ sessionId, cwd, additionalDirectories }`).
   */
  forkSession(sessionId: string, options?: SessionPlace, call?: CallOptions): Promise<{ sessionId: string }>;
  forkSession(params: SessionParams<SessionPlace>, call?: CallOptions): Promise<{ sessionId: string }>;
  async forkSession(
    first: string | SessionParams<SessionPlace>,
    second?: SessionPlace | CallOptions,
    third?: CallOptions,
  ): Promise<{ sessionId: string }> {
    const [sessionId, place, call] = this.#placed("forkSession", first, second, third);
    return this.#sessions.forkSession(sessionId, place, call);
  }

  /**
   * A session the store has a record of (local id) comes back as `resumeStored` says (reattach,
   * `session/load` or replay); any other id is the agent's `session/resume`, resolving undefined
   * (the session is recorded from then on). Also takes the protocol's params object
   * (`{ sessionId, cwd, additionalDirectories }`).
   */
  resumeSession(sessionId: string, options?: SessionPlace, call?: CallOptions): Promise<ResumedSession | undefined>;
  resumeSession(params: SessionParams<SessionPlace>, call?: CallOptions): Promise<ResumedSession | undefined>;
  async resumeSession(
    first: string | SessionParams<SessionPlace>,
    second?: SessionPlace | CallOptions,
    third?: CallOptions,
  ): Promise<ResumedSession | undefined> {
    const [sessionId, place, call] = this.#placed("resumeSession", first, second, third);
    return this.#sessions.resumeSession(sessionId, place, call);
  }

  /** Fork's and resume's arguments, in either form, with the client's `cwd` where none is given. */
  #placed(
    method: string,
    first: string | SessionParams<SessionPlace>,
    second: SessionPlace | CallOptions | undefined,
    third: CallOptions | undefined,
  ): [string, { cwd: string; additionalDirectories: string[] | undefined }, CallOptions | undefined] {
    const params = paramsForm<SessionParams<SessionPlace>>(method, first);
    const [sessionId, options, call] = params
      ? [params.sessionId, params, second as CallOptions | undefined]
      : [first as string, (second ?? {}) as SessionPlace, third];
    const { cwd = this.#options.cwd, additionalDirectories } = options;
    return [sessionId, { cwd, additionalDirectories }, call];
  }

  /**
   * Deletes the session at the agent (a local id or the agent's): it leaves `listSessions()` and can
   * no longer be loaded or resumed there. The store keeps its record, marked ended (so
   * `restoreSessions` and claims skip it), and its events (`history$`).
   * Agents that do not offer it answer with an `AgentError` (code -32601).
   */
  async deleteSession(session: string | SessionParams, call?: CallOptions): Promise<void> {
    return this.#sessions.deleteSession(sessionIdOf("deleteSession", session), call);
  }

  /** Signs the agent out: new sessions need it to sign in again (agents that offer it). */
  logout(call?: CallOptions): Promise<void> {
    return this.#sessions.logout(call);
  }

  /**
   * Resumes every stored session that has not ended (see `resumeSession`); with `autoConnect: false`
   * to reattach. With `claim`, only the sessions this client claims: open sessions no other worker
   * holds a lease on (at most `claim.max`), each then driven by this client alone until its lease is
   * released (`releaseSession`, `disconnect`) or lost (`leaseLost$`). See docs/persistence.md.
   */
  async restoreSessions(options: RestoreOptions = {}): Promise<ResumedSession[]> {
    // After disconnect() it opens no connection of its own, as resumeSession does not.
    this.#lifecycle.checkNotHeldDown("restoreSessions");
    const { claim, ...call } = options;
    if (!claim) return this.#sessions.restoreStored(call);
    return this.#sessions.restoreClaimed(claim === true ? {} : claim, call);
  }

  /**
   * Sessions this client stopped driving because their lease is gone (expired before a renewal got
   * through, taken by another worker, or refused by the store); emitted once recording has stopped
   * and the turn was cancelled, and before another worker can claim them. Hot, no replay.
   */
  get leaseLost$(): Observable<LeaseLost> {
    return this.#sessions.leaseLost$;
  }

  /** Gives up the lease of a session claimed with `restoreSessions({ claim })`: another worker may take it at once. */
  releaseSession(sessionId: string): Promise<void> {
    return this.#sessions.releaseSession(sessionId);
  }

  /**
   * Marks a session finished in the store: `restoreSessions` (and so every worker's claim) no longer
   * offers it, and a claimed session's lease is released once the record is written. The agent's
   * session on the server is left as it is; `terminateSession` ends it there where the server can.
   * Rejects with `LeaseLostError` when the session's lease is already gone.
   */
  endSession(sessionId: string): Promise<void> {
    return this.#sessions.end(sessionId);
  }

  /** The models the agent offers (for a session, or in general). Also takes `{ sessionId }`. */
  async listModels(session?: string | SessionParams, call?: CallOptions): Promise<sessions.ModelList> {
    return this.#sessions.listModels(session === undefined ? undefined : sessionIdOf("listModels", session), call);
  }

  /** Sets the server's metadata of a session (title and the like). Also takes `{ sessionId, metadata }`. */
  setMetadata(sessionId: string, metadata: SessionMetadata, call?: CallOptions): Promise<void>;
  setMetadata(params: SessionParams<{ metadata: SessionMetadata }>, call?: CallOptions): Promise<void>;
  async setMetadata(
    first: string | SessionParams<{ metadata: SessionMetadata }>,
    second?: SessionMetadata | CallOptions,
    third?: CallOptions,
  ): Promise<void> {
    const params = paramsForm<SessionParams<{ metadata: SessionMetadata }>>("setMetadata", first, ["metadata"]);
    const [sessionId, metadata, call] = params
      ? [params.sessionId, params.metadata, second as CallOptions | undefined]
      : [first as string, second as SessionMetadata, third];
    return this.#sessions.setMetadata(sessionId, metadata, call);
  }

  /**
   * Detaches the session from this connection on the server; it goes on running for a later reattach.
   * Also takes `{ sessionId }`.
   */
  async detachSession(session: string | SessionParams, call?: CallOptions): Promise<void> {
    return this.#sessions.detach(sessionIdOf("detachSession", session), call);
  }

  /** Ends the session on the server for good (its agent stops working on it). Also takes `{ sessionId }`. */
  async terminateSession(session: string | SessionParams, call?: CallOptions): Promise<sessions.TerminateResult> {
    return this.#sessions.terminate(sessionIdOf("terminateSession", session), call);
  }

  /**
   * Answers a permission request waiting with `onPermissionRequest: "ask"` (the one about `toolCallId`
   * in `sessionId`, a local or the agent's id). False when none is waiting (answered, withdrawn, or
   * its turn ended).
   */
  replyPermission(sessionId: string, toolCallId: string, reply: PermissionReply): boolean {
    return this.#desk.reply(this.#recording.agentId(sessionId), toolCallId, reply);
  }

  /**
   * Answers a question of the agent waiting with `onInput: "ask"` (the transcript's `pendingInput`:
   * its `requestId` in `sessionId`, a local or the agent's id). False when none is waiting (answered,
   * or its turn ended).
   */
  replyInput(sessionId: string, requestId: string, reply: InputReply): boolean {
    return this.#questions.reply(this.#recording.agentId(sessionId), requestId, reply);
  }

  /** A view of one session: its events (completing when it ends or its connection closes) and its calls. */
  session(sessionId: string): SessionView {
    return this.#sessions.view(sessionId);
  }

  // --- session configuration ----------------------------------------------------------

  /** The session's modes (current and available), or null when the agent reported none. */
  getSessionModes(sessionId: string, call?: CallOptions): Promise<SessionModes | null> {
    return this.#settings.modes(this.#recording.agentId(sessionId), call);
  }

  /** The session's configuration options, kept current from its update events. */
  getSessionConfigOptions(sessionId: string, call?: CallOptions): Promise<SessionConfigOption[]> {
    return this.#settings.configOptions(this.#recording.agentId(sessionId), call);
  }

  /**
   * Switches mode. A mode the session does not list is an `UnsupportedFeatureError` (with the valid
   * ids) and is not sent; an agent without `session/set_mode` gets the `mode` config option set.
   * Also takes the protocol's params object (`{ sessionId, modeId }`).
   */
  setSessionMode(sessionId: string, modeId: string, call?: CallOptions): Promise<void>;
  setSessionMode(params: SessionParams<{ modeId: string }>, call?: CallOptions): Promise<void>;
  async setSessionMode(
    first: string | SessionParams<{ modeId: string }>,
    second?: string | CallOptions,
    third?: CallOptions,
  ): Promise<void> {
    const params = paramsForm<SessionParams<{ modeId: string }>>("setSessionMode", first, ["modeId"]);
    const [sessionId, modeId, call] = params
      ? [params.sessionId, params.modeId, second as CallOptions | undefined]
      : [first as string, second as string, third];
    return this.#settings.setMode(this.#recording.agentId(sessionId), modeId, call);
  }

  /**
   * Sets a config option, checked against the session's options; resolves with the agent's answer.
   * Also takes the protocol's params object (`{ sessionId, configId, value }`).
   */
  setSessionConfigOption(sessionId: string, configId: string, value: unknown, call?: CallOptions): Promise<unknown>;
  setSessionConfigOption(
    params: SessionParams<{ configId: string; value: unknown }>,
    call?: CallOptions,
  ): Promise<unknown>;
  async setSessionConfigOption(
    first: string | SessionParams<{ configId: string; value: unknown }>,
    ...rest: [string, unknown, CallOptions?] | [CallOptions?]
  ): Promise<unknown> {
    const params = paramsForm<SessionParams<{ configId: string; value: unknown }>>(
      "setSessionConfigOption",
      first,
      ["configId", "value"],
    );
    const [sessionId, configId, value, call] = params
      ? [params.sessionId, params.configId, params.value, rest[0] as CallOptions | undefined]
      : [first as string, rest[0] as string, rest[1], rest[2] as CallOptions | undefined];
    return this.#settings.setOption(this.#recording.agentId(sessionId), configId, value, call);
  }

  /**
   * `session/set_model`, or the `model` config option when the agent has no such method. A model the
   * agent does not offer is an `UnsupportedFeatureError` (with the offered ids) and is not sent.
   * Also takes the protocol's params object (`{ sessionId, modelId }`).
   */
  setSessionModel(sessionId: string, modelId: string, call?: CallOptions): Promise<void>;
  setSessionModel(params: SessionParams<{ modelId: string }>, call?: CallOptions): Promise<void>;
  async setSessionModel(
    first: string | SessionParams<{ modelId: string }>,
    second?: string | CallOptions,
    third?: CallOptions,
  ): Promise<void> {
    const params = paramsForm<SessionParams<{ modelId: string }>>("setSessionModel", first, ["modelId"]);
    const [sessionId, modelId, call] = params
      ? [params.sessionId, params.modelId, second as CallOptions | undefined]
      : [first as string, second as string, third];
    return this.#settings.setModel(this.#recording.agentId(sessionId), modelId, call);
  }

  /** Sets the config option of category `thought_level` (`UnsupportedFeatureError` when there is none). */
  async setSessionThoughtLevel(sessionId: string, level: string, call?: CallOptions): Promise<void> {
    await this.#settings.setCategory(this.#recording.agentId(sessionId), "thought_level", level, call);
  }

  // --- the server's own routes (no agent connection needed on the released server) ------

  /** The server's health (`GET /v1/health`). */
  health(call?: CallOptions): Promise<Health> {
    return this.#server.health(call);
  }

  /**
   * The server's agents; `config: true` adds each one's `configOptions` (or `configError`),
   * `noCache: true` makes the server look again. Both are released-server options.
   */
  listAgents(options: AgentQueryOptions & CallOptions = {}): Promise<AgentInfo[]> {
    return this.#server.listAgents(options);
  }

  /**
   * One agent; an unknown id is a 400 `SandboxAgentHttpError` of kind `invalid-request` whose `code`
   * is `unsupported_agent`. On a v2 server it is read from the agent list, on the connection.
   */
  getAgent(agentId: string, options: AgentQueryOptions & CallOptions = {}): Promise<AgentInfo> {
    return this.#server.getAgent(agentId, options);
  }

  /** Installs an agent on the server (it downloads it: the server needs network access). */
  installAgent(agentId: string, options: InstallOptions = {}, call?: CallOptions): Promise<InstallResult> {
    return this.#server.installAgent(agentId, options, call);
  }

  /** The agent processes the server runs now, one per connection (released server: `GET /v1/acp`). */
  listConnections(call?: CallOptions): Promise<ServerConnection[]> {
    return this.#server.listConnections(call);
  }

  /**
   * Waits, with doubling pauses, until the server's health route answers ok: a server in a sandbox
   * often starts after its client. 401/403 end it at once; `CallTimeoutError` after `timeoutMs`
   * (default 30 s). A v2 server's 410 on `/v1/health` counts as up (the contract is detected later).
   */
  waitForHealth(options: HealthWaitBounds & CallOptions = {}): Promise<HealthWaitResult> {
    return this.#server.waitForHealth(options);
  }

  /** The server's inspector UI (`/ui/`) with this client's token and headers in its query: a secret. */
  inspectorUrl(): Promise<string> {
    return this.#server.inspectorUrl();
  }
}

/** A started sandbox: its connected client, and the means to tear both down. */
export type StartedSandbox = Launched<SandboxAgentClient>;

/**
 * Creates a sandbox with `options.sandbox`, waits (bounded backoff, abortable) for its server,
 * and connects a client to `options.agent`. On any failure the sandbox this call created is destroyed
 * and the error is rethrown (`SandboxStartError` when the server never became healthy).
 */
export function startSandbox(options: StartSandboxOptions): Promise<StartedSandbox> {
  return launchSandbox(options, (settings) => new SandboxAgentClient(settings));
}
