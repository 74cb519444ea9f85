import { Subject, Subscription, filter, map, merge, share, takeUntil, tap, type Observable } from "rxjs";
import {
  AcpHttpClient,
  type AcpClientHandlers,
  AcpHttpError,
  type AcpEnvelope,
  type AcpLogger,
  type CursorAdvance,
  type InitializeResult,
  type PromptParams,
  type ReconnectOption,
  type RequestOptions,
  type TokenSource,
} from "../../acp-http/index.js";
import { linkSignal } from "../../internal/abort.js";
import { FanOutSubject } from "../../internal/fan-out-subject.js";
import { agentExited, CallTimeoutError, SandboxAgentError, UnsupportedFeatureError } from "../errors.js";
import { credentialsReading, toSandboxError } from "../error-mapping.js";
import {
  endSessionsOnAgentExit,
  fromGap,
  fromTransportParseError,
  toSandboxEvents,
  type SandboxEvent,
} from "../events/events.js";
import { readExtensions, SANDBOX_META_KEY, type SandboxExtensions } from "../metadata.js";
import { clientSessionCapabilities, NOTHING_SAID, readAgentCan, readDraftAgentCan } from "./capabilities.js";
import type { AgentCan, Shown } from "./capabilities.js";
import { VERSION_TRAITS, type VersionTraits } from "./version-traits.js";
import type { ServerProfile } from "../server/profiles.js";
import type { ControlPlaneHttp } from "../server/control-plane.js";
import type { CallSignal } from "../call-options.js";

/** What the connection calls for every inbound envelope and cursor move (the store's recording). */
export interface ConnectionTap {
  cursor(advance: CursorAdvance): void;
  /** Records the envelope when it belongs to a recorded session; false drops it from `events$` (seen before). */
  inbound(envelope: AcpEnvelope): boolean;
}

/**
 * The slice of the store's recording (`SessionRecording`, sessions/) that the connection lifecycle
 * uses: a tap for each connection it makes. Declared here so that connection/ does not import sessions/.
 */
export interface ConnectionRecording {
  tap(connection: () => SandboxConnection | undefined): ConnectionTap;
}

export interface ConnectionSettings {
  baseUrl: string;
  agent: string;
  serverId: string;
  profile: ServerProfile;
  /** The server's plain HTTP routes (what the profile's settling after a cut-off creation sends). */
  http: ControlPlaneHttp;
  token: TokenSource | undefined;
  headers: Record<string, string> | undefined;
  fetch: typeof globalThis.fetch | undefined;
  reconnect: ReconnectOption | undefined;
  /** The protocol version asked of the agent (2: the ACP v2 draft, experimental). */
  protocolVersion: 1 | 2;
  handlers: AcpClientHandlers;
  clientInfo: { name: string; version: string };
  /** What the client tells the agent it can present (the client option `shows`, defaulted). */
  shows: Shown;
  logger: AcpLogger | undefined;
  /** Reattach to this existing connection (v2 connection id; on v1 the server id is the connection). */
  connectionId?: string | undefined;
  /** Resume the connection stream after this event id. */
  lastEventId?: string | undefined;
  /** v1: the server id exists already, so no bootstrap query (which would name an agent to start). */
  reattach?: boolean;
  /** Persistence: sees every inbound envelope and cursor move; may drop an envelope seen before. */
  tap?: ConnectionTap | undefined;
}

/** Errors name the sandbox method a caller used, not the wire method behind it. */
const METHOD_NAMES: Record<string, string> = {
  "session/new": "newSession",
  "session/load": "loadSession",
  "session/prompt": "prompt",
  "session/cancel": "cancel",
  "session/set_mode": "setSessionMode",
  "session/set_config_option": "setSessionConfigOption",
  "session/set_model": "setSessionModel",
  "session/list": "listSessions",
  "session/fork": "forkSession",
  "session/resume": "resumeSession",
  "session/delete": "deleteSession",
  logout: "logout",
  "_sandboxagent/session/list_models": "listModels",
  "_sandboxagent/session/set_metadata": "setMetadata",
  "_sandboxagent/session/detach": "detachSession",
  "_sandboxagent/session/terminate": "terminateSession",
};

export function sandboxName(method: string): string {
  return METHOD_NAMES[method] ?? method;
}

export type ConnectionStatus = "connecting" | "connected" | "reconnecting" | "closed";


/**
 * One live connection to the server: the protocol client, what the agent said it can
 * do, the sessions opened here, and whether the agent process is still there. Every
 * call goes through `call`, which converts protocol errors into sandbox errors and
 * fails fast once the agent has exited.
 */
export class SandboxConnection {
  readonly settings: ConnectionSettings;
  readonly protocol: AcpHttpClient;
  readonly openSessions = new Set<string>();
  readonly status = new Subject<ConnectionStatus>();
  /**
   * This connection's events, composed from the protocol client's streams: its envelopes (past the
   * store's tap) as sandbox events, its parse errors and its gaps. Hot from construction until
   * `close()`, when it completes.
   */
  readonly events$: Observable<SandboxEvent>;
  readonly #closing = new Subject<void>();
  /** Set once `open()` succeeded: until then the connection is not reported as up. */
  up = false;
  #extensions: SandboxExtensions = { flags: {}, methods: [] };
  /** Whether the agent advertised `loadSession` in its `initialize` answer. */
  canLoadSession = false;
  /** The optional calls the agent advertised in its `initialize` answer. */
  agentCan: AgentCan = NOTHING_SAID;
  /** The agent's exit code once it has exited (`null`: killed by a signal). */
  #agentExitCode: number | null | undefined;
  readonly #inFlight = new Set<AbortController>();
  readonly #subscriptions = new Subscription();
  readonly #transport: ReturnType<ServerProfile["transport"]>;
  /**
   * The bootstrap query this connection's `initialize` carries, which has the server create its side
   * (an agent process): the transport's, unless the connection reattaches to a side that exists.
   */
  readonly #bootstrapQuery: Record<string, string> | undefined;
  /** While the `initialize` that may create the server's side is out without the server's answer. */
  #creating = false;

  constructor(settings: ConnectionSettings) {
    this.settings = settings;
    const transport = settings.profile.transport(settings.agent, settings.serverId);
    this.#transport = transport;
    this.#bootstrapQuery = settings.reattach ? undefined : transport.bootstrapQuery;
    this.protocol = new AcpHttpClient({
      baseUrl: settings.baseUrl,
      path: transport.path,
      connectionIdHeader: transport.connectionIdHeader,
      ...(this.#bootstrapQuery ? { bootstrapQuery: this.#bootstrapQuery } : {}),
      ...(settings.connectionId ? { connectionId: settings.connectionId } : {}),
      ...(settings.lastEventId ? { lastEventId: settings.lastEventId } : {}),
      // The earlier client's answers come back on the reattached stream, with its ids.
      ...(settings.reattach ? { randomRequestIds: true } : {}),
      ...(settings.tap ? { onCursor: (advance: CursorAdvance) => settings.tap?.cursor(advance) } : {}),
      responseEcho: transport.responseEcho,
      closeTimeoutMs: transport.closeTimeoutMs,
      ...(settings.headers ? { headers: settings.headers } : {}),
      ...(settings.token ? { token: settings.token } : {}),
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
      ...(settings.reconnect !== undefined ? { reconnect: settings.reconnect } : {}),
      protocolVersion: settings.protocolVersion,
      ...(settings.logger ? { logger: settings.logger } : {}),
      handlers: settings.handlers,
      clientInfo: settings.clientInfo,
      ...(settings.profile.isConnectionGone ? { isConnectionGone: settings.profile.isConnectionGone } : {}),
    });
    this.events$ = merge(
      this.protocol.envelopes$.pipe(
        filter((envelope) => settings.tap?.inbound(envelope) ?? true),
        toSandboxEvents(),
        endSessionsOnAgentExit(() => this.openSessions),
      ),
      this.protocol.parseErrors$.pipe(
        map(fromTransportParseError),
        filter((event): event is SandboxEvent => event !== undefined),
      ),
      this.protocol.gaps$.pipe(map(fromGap)),
    ).pipe(
      tap((event) => this.#observe(event)),
      takeUntil(this.#closing),
      // rxjs's own Subject allocates per value and subscriber in its Node build (see FanOutSubject).
      share({ connector: () => new FanOutSubject<SandboxEvent>() }),
    );
    // Connected from the start, whoever listens: the store's tap and the exit watch must see every frame.
    this.#subscriptions.add(this.events$.subscribe());
    this.#subscriptions.add(
      this.protocol.state$.subscribe((state) => {
        if (state === "open") this.status.next("connected");
        else if (state === "reconnecting") this.status.next("reconnecting");
        else if (state === "closed") this.status.next("closed");
      }),
    );
  }

  /**
   * What this connection's ACP version changes in the sandbox calls: the version the protocol client
   * speaks, which is the one asked for until `initialize` is answered, then the agent's (a recovery's
   * `initialize` decides it again).
   */
  get traits(): VersionTraits {
    return VERSION_TRAITS[this.protocol.protocolVersion];
  }

  get extensions(): SandboxExtensions {
    return this.#extensions;
  }

  get closed(): boolean {
    return this.protocol.state === "closed";
  }

  /** Opens the connection: `initialize` with the agent selection, then the capability read-out. */
  async open(): Promise<InitializeResult> {
    const agent = { agent: this.settings.agent };
    const meta = this.settings.profile.agentInMeta ? { _meta: { [SANDBOX_META_KEY]: agent } } : {};
    let result: InitializeResult;
    this.#creating = this.#bootstrapQuery !== undefined;
    try {
      // What the client shows is said in the asked version's initialize, when it has a place for it.
      const shows = this.traits.announcesShows ? clientSessionCapabilities(this.settings.shows) : {};
      result = await this.protocol.initialize({ ...meta, ...shows });
      this.#creating = false;
    } catch (error) {
      // The server answered (an HTTP status): whatever it created, it has finished.
      if (error instanceof AcpHttpError) this.#creating = false;
      throw this.#mapped(error, "connect");
    }
    if (this.settings.profile.needsConnectionHeader && !this.protocol.connectionId) {
      throw new SandboxAgentError(
        "connect: the server's x-acp-connection-id response header could not be read. " +
          "In a browser the server must list it in Access-Control-Expose-Headers.",
        { kind: "protocol" },
      );
    }
    // The v2 draft names them `capabilities` and `info` (it has no `session/load`: it resumes).
    const v2 = result as { capabilities?: InitializeResult["agentCapabilities"]; info?: InitializeResult["agentInfo"] };
    this.#extensions = readExtensions(result.agentCapabilities ?? v2.capabilities);
    this.agentCan = v2.capabilities && !result.agentCapabilities
      ? readDraftAgentCan(v2.capabilities, result.authMethods)
      : readAgentCan(result.agentCapabilities);
    this.canLoadSession = (result.agentCapabilities as { loadSession?: unknown } | undefined)?.loadSession === true;
    return v2.info && !result.agentInfo ? { ...result, agentInfo: v2.info } : result;
  }

  /** True when the server or agent advertised this extension (by flag or by method name). */
  supports(flag: string, method: string): boolean {
    return this.#extensions.flags[flag] === true || this.#extensions.methods.includes(method);
  }

  requireExtension(feature: string, flag: string, method: string): void {
    if (!this.supports(flag, method)) {
      const { profile, agent } = this.settings;
      const detail = `the ${profile.api} server and the "${agent}" agent do not advertise ${method}`;
      throw new UnsupportedFeatureError(feature, detail);
    }
  }

  /**
   * Sends a request; its errors name `operation` (the user's call), by default the method's sandbox
   * name. `options.signal` carries the call's deadline already (made at its boundary, `deadline.ts`):
   * no timer is armed here, and a deadline that fired fails the call with its `CallTimeoutError`.
   */
  async call(method: string, params: unknown, options: CallSignal = {}, operation?: string): Promise<unknown> {
    const name = operation ?? sandboxName(method);
    if (this.#agentExitCode !== undefined) throw agentExited(this.#agentExitCode, name);
    // One controller per call, aborted by the caller's signal (deadline included) or the agent's
    // exit. Nothing listens on a connection-wide signal, so listeners never pile up over many calls.
    const { signal } = options;
    const controller = new AbortController();
    const unlink = linkSignal(signal, controller);
    this.#inFlight.add(controller);
    const requestOptions: RequestOptions = { signal: controller.signal };
    try {
      // A turn that ends on its session's idle is waited for by the typed prompt: the answer only
      // acknowledges it. Otherwise the answer is the turn's end, read as it came.
      if (method === "session/prompt" && this.traits.promptEndsOnIdle) {
        return await this.protocol.prompt(params as PromptParams, requestOptions);
      }
      return await this.protocol.request(method, params, requestOptions);
    } catch (error) {
      // Read again after the await: the agent may have exited while the call was pending.
      const exitCode = this.#agentExitCode as number | null | undefined;
      if (exitCode !== undefined && !signal?.aborted) throw agentExited(exitCode, name);
      if (signal?.aborted && signal.reason instanceof CallTimeoutError) throw signal.reason;
      throw this.#mapped(error, name);
    } finally {
      unlink();
      this.#inFlight.delete(controller);
    }
  }

  async notify(method: string, params: unknown): Promise<void> {
    const name = sandboxName(method);
    if (this.#agentExitCode !== undefined) throw agentExited(this.#agentExitCode, name);
    try {
      await this.protocol.notify(method, params);
    } catch (error) {
      throw this.#mapped(error, name);
    }
  }

  /** A protocol failure as the sandbox error of the user's call `name` (a 401 without a token says so). */
  #mapped(error: unknown, name: string): unknown {
    return credentialsReading(toSandboxError(error, name), this.settings);
  }

  /**
   * Closes the connection. A close that cuts off the creating `initialize` leaves the server's side
   * to the profile's settling, in the background: the caller does not wait for the server's creation.
   */
  async close(): Promise<void> {
    const cutOff = this.#creating;
    this.#creating = false;
    await this.protocol.disconnect();
    const settle = this.settings.profile.settleCutOffCreation;
    if (cutOff && settle) {
      void settle(this.settings.http, this.#transport.path).catch(() => undefined);
    }
    this.#closing.next();
    this.#subscriptions.unsubscribe();
    this.status.complete();
  }

  #observe(event: SandboxEvent): void {
    if (event.kind === "session-ended" && event.sessionId) this.openSessions.delete(event.sessionId);
    if (event.kind === "agent-exited" && this.#agentExitCode === undefined) {
      this.#agentExitCode = event.exitCode;
      // Requests the exited agent can no longer answer fail now instead of at the server's timeout.
      const exit = agentExited(event.exitCode);
      for (const controller of this.#inFlight) controller.abort(exit);
    }
  }
}
