import { BehaviorSubject, Subject, mergeMap, share, type Observable } from "rxjs";
import { CLIENT_INFO, type AcpClientHandlers } from "../../acp-http/index.js";
import { linkSignal, untilAborted } from "../../internal/abort.js";
import { FanOutSubject } from "../../internal/fan-out-subject.js";
import { SandboxConnection, type ConnectionRecording } from "./connection.js";
import type { VersionTraits } from "./version-traits.js";
import type { CallOptions, CallSignal } from "../call-options.js";
import type { ExtensionChannel } from "../server/control-routes.js";
import { Bound } from "../deadline.js";
import {
  alreadyConnected,
  CallAbortedError,
  CallTimeoutError,
  connectionLost,
  NotConnectedError,
  type NotConnectedReason,
  SandboxAgentError,
} from "../errors.js";
import { toSandboxError } from "../error-mapping.js";
import { explainConnectFailure, type ConnectFailureContext } from "../error-hints.js";
import type { SandboxEvent } from "../events/events.js";
import { profileFor, type ServerApi } from "../server/profiles.js";
import type { ServerContract } from "../server/server-contract.js";
import type { ClientSettings } from "../client-options.js";
import type { ConnectInfo, ConnectionState, DisconnectInfo, ReconnectAttempt } from "../types.js";

/** Where to connect when a connection is made for a resume. */
export interface AttachTarget {
  /** Reattach: v1 server id or v2 connection id of the stored connection. */
  connection?: string;
  lastEventId?: string;
  /** Use a new random v1 server id (a fresh connection must never reuse the stored one's event ids). */
  fresh?: boolean;
}

/**
 * The one connection of a client: connecting (bounded and cancellable), disconnecting,
 * the state it is in, and why it ended. `ended` fires whenever a connection or attempt
 * ends, so what lives as long as a connection (session views) can end with it.
 *
 * Every call on the connection enters through `with` (the call's boundary). The server's contract
 * says how to connect; the store's recording taps each connection it makes. It is also the channel
 * of v2's control plane (`extension`), whose routes are extensions on the live connection.
 */
export class ConnectionLifecycle implements ExtensionChannel {
  readonly state = new BehaviorSubject<ConnectionState>("disconnected");
  readonly disconnects = new Subject<DisconnectInfo>();
  /** The reconnect attempts of every connection this client makes (`reconnecting$`). */
  readonly reconnects = new Subject<ReconnectAttempt>();
  readonly ended = new Subject<void>();
  /**
   * The events of every connection this client makes, in turn (each until it is closed): the
   * client's `events$`. Hot, no replay.
   */
  readonly events$: Observable<SandboxEvent>;
  readonly #connections = new Subject<SandboxConnection>();
  readonly #options: ClientSettings;
  readonly #contract: ServerContract;
  readonly #handlers: AcpClientHandlers;
  readonly #recording: ConnectionRecording;
  #connection: SandboxConnection | undefined;
  #connecting: Promise<ConnectInfo> | undefined;
  #cancelConnect: AbortController | undefined;
  /** Why the last connection attempt or connection failed: the cause of later `NotConnectedError`s. */
  #lastFailure: { cause: unknown; reason: NotConnectedReason } | undefined;
  #info: ConnectInfo | undefined;
  #traits: VersionTraits | undefined;
  /** The agent connections are made to: the option, or the last one a caller's `connect({ agent })` named. */
  #agent: string | undefined;
  /**
   * The caller's `disconnect()` holds the client down until its own `connect()`: a resume then makes
   * no connection of its own (calls fail with `NotConnectedError`, as the other session methods do).
   */
  #heldDown = false;

  constructor(
    options: ClientSettings,
    contract: ServerContract,
    handlers: AcpClientHandlers,
    recording: ConnectionRecording,
  ) {
    this.#options = options;
    this.#contract = contract;
    this.#handlers = handlers;
    this.#recording = recording;
    this.#agent = options.agent;
    this.events$ = this.#connections.pipe(
      mergeMap((connection) => connection.events$),
      share({ connector: () => new FanOutSubject<SandboxEvent>() }),
    );
    // Always connected, so that a subscriber joining later gets the live connection's events too.
    this.events$.subscribe();
  }

  /** What the last successful connect learnt (undefined before one). */
  get info(): ConnectInfo | undefined {
    return this.#info;
  }

  /** What the version the last successful connect negotiated changes in the sandbox calls (undefined before one). */
  get traits(): VersionTraits | undefined {
    return this.#traits;
  }

  get connected(): boolean {
    return this.#connection !== undefined && !this.#connection.closed;
  }

  /** The agent this client connects to (undefined while none was given). */
  get agent(): string | undefined {
    return this.#agent;
  }

  /**
   * The caller's connect; `agent` is the agent of this connection and of later ones (as if given to
   * the constructor). It lifts the hold a `disconnect()` put on resumes.
   */
  connect(options?: CallOptions, agent?: string): Promise<ConnectInfo> {
    return this.#connect(options, undefined, agent);
  }

  /**
   * A resume's own connect: `target` reattaches to a stored connection, or forces a fresh server id.
   * Refused with `NotConnectedError` after the caller's `disconnect()`, until the caller connects.
   */
  connectFor(method: string, target: AttachTarget, options?: CallOptions): Promise<ConnectInfo> {
    if (this.#heldDown) return Promise.reject(new NotConnectedError(method));
    return this.#connect(options, target, undefined);
  }

  /** Throws `NotConnectedError` while the caller's `disconnect()` holds the client down (see `connectFor`). */
  checkNotHeldDown(method: string): void {
    if (this.#heldDown && !this.connected) throw new NotConnectedError(method);
  }

  #connect(options: CallOptions | undefined, target: AttachTarget | undefined, agent: string | undefined) {
    let bound: Bound;
    try {
      bound = new Bound("connect", options);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#connecting || this.connected) {
      bound.dispose();
      return Promise.reject(alreadyConnected());
    }
    if (!target) this.#heldDown = false;
    if (agent !== undefined) this.#agent = agent;
    const cancel = new AbortController();
    this.#cancelConnect = cancel;
    const attempt = this.#open(cancel.signal, bound, target).catch(async (error: unknown) => {
      if (cancel.signal.aborted || bound.signal?.aborted) throw error;
      // The hint's lookups (the known agents, a CORS probe) must not hold a disconnect or the deadline.
      const given = new Promise<unknown>((resolve) => {
        for (const signal of [cancel.signal, bound.signal]) signal?.addEventListener("abort", () => resolve(error));
      });
      throw await Promise.race([explainConnectFailure(error, this.#hintContext()), given]);
    });
    this.#connecting = attempt;
    attempt.then(
      () => (this.#connecting = undefined),
      (error: unknown) => {
        this.#connecting = undefined;
        this.#lastFailure = { cause: error, reason: "connect-failed" };
        this.state.next("disconnected");
        this.ended.next();
      },
    );
    void attempt.catch(() => undefined).finally(() => bound.dispose());
    return attempt;
  }

  async disconnect(): Promise<void> {
    this.#heldDown = true;
    const connecting = this.#connecting;
    this.#cancelConnect?.abort();
    const connection = this.#connection;
    this.#connection = undefined;
    this.state.next("disconnected");
    // Closing first makes a pending initialize fail at once instead of waiting on the server.
    if (connection) await connection.close();
    if (connecting) {
      await connecting.catch(() => undefined);
      return;
    }
    if (connection) {
      this.ended.next();
      this.disconnects.next({ reason: "disconnected" });
    }
  }

  /**
   * The live connection, waiting (within the call's signal and deadline) for one being
   * made; `NotConnectedError` when there is none or the one being made did not come up.
   */
  async live(method: string, bound: Bound): Promise<SandboxConnection> {
    if (this.#connecting) {
      try {
        await untilAborted(this.#connecting, bound.signal, (reason) => bound.error(reason, method));
      } catch (error) {
        if (bound.signal?.aborted) throw error;
        throw new NotConnectedError(method, { cause: error, reason: "connect-failed" });
      }
    }
    const connection = this.#connection;
    if (!connection || connection.closed) {
      throw new NotConnectedError(method, this.#lastFailure);
    }
    return connection;
  }

  /**
   * Runs `run` on the live connection. The call's boundary: its `{ signal, timeoutMs }` become one
   * signal here, which covers the wait for the connection and the call together; `run` gets it alone.
   */
  async with<T>(
    method: string,
    call: CallOptions | undefined,
    run: (connection: SandboxConnection, call: CallSignal) => Promise<T>,
  ): Promise<T> {
    const bound = new Bound(method, call);
    try {
      return await run(await this.live(method, bound), bound.call);
    } finally {
      bound.dispose();
    }
  }

  /** A `_sandboxagent/*` extension request on the live connection (v2's control plane), through `with`. */
  extension(
    operation: string,
    flag: string,
    method: string,
    params: Record<string, unknown>,
    call?: CallOptions,
  ): Promise<unknown> {
    return this.with(operation, call, (connection, bounds) => {
      connection.requireExtension(operation, flag, method);
      return connection.call(method, params, bounds, operation);
    });
  }

  async #open(cancel: AbortSignal, bound: Bound, target: AttachTarget | undefined): Promise<ConnectInfo> {
    const agent = this.#agent;
    if (!agent) {
      const hint = "pass `agent` in the options or to connect()";
      throw new SandboxAgentError(`connect: no agent given; ${hint}`, { kind: "no-agent" });
    }
    this.state.next("connecting");
    const stopped = (reason: unknown): SandboxAgentError =>
      cancel.aborted ? new CallAbortedError("connect was cancelled by disconnect()") : bound.error(reason);
    const either = new AbortController();
    const unlink = [linkSignal(cancel, either), linkSignal(bound.signal, either)];
    try {
      const api = await untilAborted(this.#contract.api("connect"), either.signal, stopped);
      const connection = this.#create(api, agent, target);
      this.#connection = connection;
      const closeOnAbort = (): void => void connection.close().catch(() => undefined);
      either.signal.addEventListener("abort", closeOnAbort, { once: true });
      try {
        const result = await untilAborted(connection.open(), either.signal, stopped);
        this.#lastFailure = undefined;
        connection.up = true;
        this.state.next("connected");
        const info = result.agentInfo;
        const version = info?.version !== undefined ? { version: info.version } : {};
        const agentInfo = info ? { name: info.name, ...version } : undefined;
        const agentCan = { ...connection.agentCan };
        const { protocolVersion } = connection.protocol;
        const extensions = { ...connection.extensions.flags };
        this.#info = { api, protocolVersion, agent, agentInfo, extensions, agentCan };
        this.#traits = connection.traits;
        return this.#info;
      } catch (error) {
        if (this.#connection === connection) this.#connection = undefined;
        await connection.close().catch(() => undefined);
        const ownStop = error instanceof CallAbortedError || error instanceof CallTimeoutError;
        if (!either.signal.aborted || ownStop) throw error;
        // Aborting closed the connection under open(): report the abort, with what it caused.
        throw Object.assign(stopped(either.signal.reason), { cause: error });
      } finally {
        either.signal.removeEventListener("abort", closeOnAbort);
      }
    } finally {
      for (const undo of unlink) undo();
    }
  }

  /** What the hints of a failed connect need: the agents the server knows come from its agent route. */
  #hintContext(): ConnectFailureContext {
    const options = this.#options;
    return {
      agent: this.#agent ?? "",
      baseUrl: options.baseUrl,
      fetch: options.fetch,
      knownAgents: async (signal) => {
        // Only over HTTP (v1): v2 lists agents over the connection, which is the one that just failed.
        if ((await this.#contract.api("listAgents", { signal })) !== "v1") return [];
        const routes = await this.#contract.routes("listAgents", this, { signal });
        return (await routes.listAgents({}, { signal })).map((agent) => agent.id);
      },
    };
  }

  #create(api: ServerApi, agent: string, target: AttachTarget | undefined): SandboxConnection {
    const options = this.#options;
    const random = `sdk-${globalThis.crypto.randomUUID()}`;
    const stored = target?.connection;
    let created: SandboxConnection | undefined;
    const connection = new SandboxConnection(
      {
        baseUrl: options.baseUrl,
        agent,
        serverId: (api === "v1" ? stored : undefined) ?? (target?.fresh ? random : (options.serverId ?? random)),
        ...(stored ? { reattach: true, lastEventId: target?.lastEventId } : {}),
        ...(stored && api === "v2" ? { connectionId: stored } : {}),
        tap: this.#recording.tap(() => created),
        profile: profileFor(api),
        http: this.#contract.http,
        token: options.token,
        headers: options.headers,
        fetch: options.fetch,
        reconnect: options.reconnect,
        protocolVersion: options.protocolVersion,
        handlers: this.#handlers,
        clientInfo: { ...CLIENT_INFO },
        shows: options.shows,
        logger: options.logger,
      },
    );
    created = connection;
    this.#connections.next(connection);
    connection.status.subscribe((status) => {
      if (this.#connection !== connection) return;
      if (status === "closed") {
        this.#connection = undefined;
        this.state.next("disconnected");
        // A connection that fails while connecting is reported by connect() itself.
        if (connection.up) this.#connectionEnded(connection);
        // Until open() succeeded the connection is not up: state$ stays `connecting`.
      } else if (status !== "connecting" && connection.up) this.state.next(status);
    });
    // Completes with the connection; a connection still coming up reports its failure through connect().
    connection.protocol.reconnecting$.subscribe(({ attempt, maxAttempts, nextDelayMs, cause }) => {
      if (this.#connection !== connection || !connection.up) return;
      this.reconnects.next({ attempt, maxAttempts, nextDelayMs, cause: toSandboxError(cause, "reconnect") });
    });
    return connection;
  }

  /** A connection the client did not close: record why, and say so on `disconnected$`. */
  #connectionEnded(connection: SandboxConnection): void {
    const info = connection.protocol.closeInfo;
    const reason = info?.reason ?? "connection-lost";
    const error = connectionLost(reason, undefined, { cause: info?.error?.cause });
    this.#lastFailure = { cause: error, reason: "connection-ended" };
    this.#options.logger?.warn("connection lost", { reason });
    this.ended.next();
    this.disconnects.next({ reason, error });
  }
}
