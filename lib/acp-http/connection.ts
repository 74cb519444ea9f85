// One connection wired together: transports (chosen and built here), streams, the JSON-RPC core,
// the agent's requests, the connection state, the calls and the close policy (what a call does to the
// record of its sessions is call-bookkeeping.ts's).
import { BehaviorSubject, distinctUntilChanged, type Observable } from "rxjs";
import { LazySubject } from "../internal/lazy-subject.js";
import type { AcpReconnectAttempt } from "../internal/backoff.js";
import { deadlineSignal, startDeadline, untilAborted } from "../internal/abort.js";
import { joinUrl } from "../internal/http.js";
import type { AcpLogger } from "../internal/logger.js";
import { AgentRequests } from "./agent-requests.js";
import { ACP_DEFAULTS } from "./defaults.js";
import type { CloseInfo, RequestOptions, ResolvedClientOptions } from "./client-options.js";
import { isErrorResponse, type AcpRequest, type AcpResponse, type JsonRpcId } from "./envelope.js";
import {
  AcpAbortError,
  AcpConnectionClosedError,
  AcpHttpError,
  AcpInterruptedError,
  AcpProtocolVersionError,
  AcpRpcError,
  AcpTimeoutError,
  type CloseReason,
} from "./errors.js";
import type { EventGap, EventStreamStatus } from "./event-stream.js";
import { HttpTransport, type AcpCookieStore } from "./http-transport.js";
import { CallBookkeeping } from "./call-bookkeeping.js";
import { RpcCorrelator, type CorrelatorOwner } from "./call-correlation.js";
import { FrameIntake, Inbound, type FrameSink, type InboundOwner } from "./response-order.js";
import { Outbox, SENT_AT_ONCE, type OutboxOwner, type Transport } from "./outbox.js";
import { ConnectionRecovery, type AcpRecovery, type RecoveryOwner } from "./recovery.js";
import { SessionStreams, type StreamsOwner } from "./session-streams.js";
import { WebSocketTransport, normalizeWatchdogPolicy, type SocketOwner } from "./ws-transport.js";
import { negotiatedProfile, type ProtocolProfile } from "./protocol-versions.js";
import { V2Turns, type V2TurnsOwner } from "./v2-turns.js";

/**
 * One connection's moving parts, wired together: the transport (HTTP, or one WebSocket),
 * the event streams, the inbound merge, request correlation, the agent's requests, state,
 * recovery and the close policy. `AcpHttpClient` is its public face; nothing here is
 * exported from the package. Both transports feed the same inbound and correlator: a
 * WebSocket frame is handled as a stream frame of the connection stream.
 *
 * Frames go up to the JSON-RPC core through one `FrameSink`, and envelopes go out through one
 * `Transport` (`outbox.ts`), chosen once in `createTransports`. What else a part has to tell the
 * connection, it tells through a small interface the connection implements, each in its own
 * section below: `SocketOwner` (the WebSocket), `StreamsOwner` (the event streams), `OutboxOwner`
 * (a send that failed for the whole connection), `RecoveryOwner` (rebuilding a lost one),
 * `InboundOwner` and `CorrelatorOwner` (the JSON-RPC core). Methods, not callbacks, for what an idle
 * connection keeps: bench scenario 5b holds that budget (bench/README.md, "Targets": ≤ 21 KB of heap
 * per idle connection; `bench/idle-heap-probe.ts` measures it).
 */
export class Connection
  implements SocketOwner, StreamsOwner, OutboxOwner, RecoveryOwner, InboundOwner, CorrelatorOwner, V2TurnsOwner
{
  /** The HTTP transport: the event streams' GETs and the closing DELETE (and the POSTs, over HTTP). */
  readonly http: HttpTransport;
  readonly inbound: Inbound;
  readonly streams: SessionStreams;
  readonly state = new ConnectionStateMachine();
  // Made when the client's observable is first read (LazySubject): most connections never read them.
  readonly gaps = new LazySubject<EventGap>();
  readonly recoveries = new LazySubject<AcpRecovery>();
  /** Each reconnect attempt of the connection stream or of a recovery (`reconnecting$`). */
  readonly reconnects = new LazySubject<AcpReconnectAttempt>();
  /** Resolves once, when the connection has closed, with why. Never rejects. */
  readonly closed: Promise<CloseInfo>;
  readonly #logger: AcpLogger;
  readonly #correlator: RpcCorrelator;
  readonly #agentRequests: AgentRequests;
  readonly #outbox: Outbox;
  /** Every envelope goes out through it: the HTTP transport, or the socket for `transport: "websocket"`. */
  readonly #transport: Transport;
  readonly #lifetime = new AbortController();
  readonly #recovery: ConnectionRecovery;
  /** Sessions refused with 409, calls waiting on a session's stream, the recovery ledger. */
  readonly #calls: CallBookkeeping;
  readonly #closeTimeoutMs: number;
  readonly #isConnectionGone: ResolvedClientOptions["isConnectionGone"];
  /** The default cookie store is ours to clear on close; a caller's is not. */
  readonly #ownCookies: AcpCookieStore | undefined;
  /** The prompts waiting for their session's idle, on a connection that speaks a version whose turns end so. */
  #turns: V2Turns | undefined;
  /** The version asked for in `initialize` (option `protocolVersion`); a recovery asks for it again. */
  readonly #asked: ProtocolProfile;
  /** The version spoken: the one asked for until `initialize` is answered, then the agent's (`speak`). */
  #profile: ProtocolProfile;
  /** The first `initialize` is out and unanswered: losing the connection now fails it (`initialize-failed`). */
  #opening = false;
  /** An `initialize` was answered: from then on a lost connection is `connection-lost` (or recovered). */
  #initializedOnce = false;
  #resolveClosed!: (info: CloseInfo) => void;
  #closeInfo: CloseInfo | undefined;
  #deleting: Promise<void> | undefined;

  /** `options`: resolved once by the client (`resolveClientOptions`); no default is set here. */
  constructor(options: ResolvedClientOptions) {
    this.#asked = this.#profile = options.profile;
    this.#correlator = new RpcCorrelator(ACP_DEFAULTS.postReleaseMs, this, options.randomRequestIds);
    const logger = (this.#logger = options.logger);
    const policy = options.reconnectPolicy;
    const maxMessageBytes = options.maxMessageBytes;
    this.inbound = new Inbound({ correlator: this.#correlator, responseEcho: options.responseEcho }, this);
    const { http, transport, sink, sessionHeader } = createTransports(options, this.inbound, this);
    this.http = http;
    this.#transport = transport;
    this.#closeTimeoutMs = options.closeTimeoutMs;
    this.#ownCookies = options.ownCookies ? options.cookies : undefined;
    this.#isConnectionGone = options.isConnectionGone;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.streams = new SessionStreams(
      {
        http: this.http,
        policy,
        logger,
        sessionHeader,
        lastEventId: options.lastEventId,
        contiguousIds: options.contiguousEventIds,
        onCursor: options.onCursor,
        sink,
        maxMessageBytes,
        refreshableToken: typeof options.token === "function",
      },
      this,
    );
    this.#outbox = new Outbox(this, {
      transport: this.#transport,
      streams: this.streams,
      inbound: this.inbound,
      state: this.state,
      maxMessageBytes,
      lifetime: this.#lifetime.signal,
      logger,
      cancelRequests: options.cancelRequests,
      refreshableToken: typeof options.token === "function",
    });
    const agentRequestSettings = { handlers: options.handlers, lifetime: this.#lifetime.signal };
    this.#agentRequests = new AgentRequests(agentRequestSettings, this.#outbox);
    this.#recovery = new ConnectionRecovery(options.recover, { policy, signal: this.#lifetime.signal, logger }, this);
    this.#calls = new CallBookkeeping({
      correlator: this.#correlator,
      outbox: this.#outbox,
      streams: this.streams,
      ledger: this.#recovery.ledger,
    });
  }

  /** Why the connection closed; undefined while it is not closed. */
  get closeInfo(): CloseInfo | undefined {
    return this.#closeInfo;
  }

  get connectionId(): string | undefined {
    return this.#transport.connectionId;
  }

  /**
   * Speaks `profile` from now on (the version asked for, then the one `initialize` negotiated): a
   * version whose turns end on idle has its session updates read as they are delivered.
   */
  speak(profile: ProtocolProfile): void {
    this.#profile = profile;
    this.#turns = profile.turnEnd === "idle" ? (this.#turns ?? new V2Turns(this)) : undefined;
    this.inbound.delivered = this.#turns;
  }

  /** The version spoken (see `speak`). */
  get profile(): ProtocolProfile {
    return this.#profile;
  }

  /** The prompts waiting for their idle (a version whose turns end so; see `speak`). */
  get turns(): V2Turns | undefined {
    return this.#turns;
  }

  /** V2TurnsOwner: a malformed v2 update, reported beside its envelope. */
  parseError(error: { source: "stream" | "response-body"; raw: string; error: string }): void {
    this.inbound.parseErrors.next(error);
  }

  /**
   * Sends a request and resolves with its `result`. `deferStream`: an answer in the POST
   * body opens no event stream (the caller opens it once it has read the answer).
   */
  request(method: string, params: unknown, options: RequestOptions, deferStream = false): Promise<unknown> {
    // While a lost connection is rebuilt, requests wait for the new one. Not async: 3 microtasks fewer each.
    const recovering = this.closeInfo ? undefined : this.#recovery.pending;
    if (method === "initialize" && !this.#initializedOnce) this.#opening = true;
    if (!recovering) return this.#send(method, params, options, deferStream); // #send fails a closed one
    return this.#sendAfterRecovery(recovering, method, params, options, deferStream);
  }

  /**
   * A call made during a rebuild: its one deadline starts now, so the wait for the new connection
   * counts against its `timeoutMs` and its `signal` ends that wait too; then it goes out under the same signal.
   */
  async #sendAfterRecovery(
    recovering: Promise<void>,
    method: string,
    params: unknown,
    options: RequestOptions,
    deferStream: boolean,
  ): Promise<unknown> {
    const deadline = deadlineSignal(options, (ms) => new AcpTimeoutError(method, ms));
    try {
      await untilAborted(recovering, deadline.signal, (reason) =>
        reason instanceof AcpTimeoutError ? reason : new AcpAbortError(method, reason),
      );
      return await this.#send(method, params, { signal: deadline.signal }, deferStream);
    } finally {
      deadline.dispose();
    }
  }

  async #send(method: string, params: unknown, options: RequestOptions, deferStream = false): Promise<unknown> {
    this.#assertOpen(method);
    this.#calls.admit(method, params);
    const id = this.#correlator.nextId();
    const registered = this.#correlator.register(id, method, options, this.#transport.abortable);
    const { response, postSignal, postFinished } = registered;
    const call = this.#calls.sending(id, method, params, postSignal !== undefined);
    const envelope = params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    // Settled by `register` already (its signal was aborted before the send): nothing goes out. A
    // POST would see its aborted signal, but a WebSocket frame has no signal and would be sent.
    const sent = this.#correlator.has(id)
      ? this.#outbox.post({ envelope, method, signal: postSignal, deferStream })
      : SENT_AT_ONCE;
    // A frame that went out at once on an open socket: no POST to finish, nothing more to hear.
    if (sent !== SENT_AT_ONCE) {
      void sent.then(
        (outcome) => {
          postFinished();
          this.#calls.posted(call, outcome);
        },
        (error: unknown) => {
          postFinished();
          this.#correlator.reject(id, error);
        },
      );
    }
    let answer: AcpResponse | undefined;
    try {
      answer = await response;
    } finally {
      this.#calls.settled(call, answer);
    }
    if (isErrorResponse(answer)) throw new AcpRpcError(method, answer.error);
    if (method === "initialize") this.#initialized(answer.result);
    this.#calls.succeeded(call, answer.result);
    return answer.result;
  }

  /** After `initialize`: the protocol version goes on every later request (RFD). */
  #initialized(result: unknown): void {
    this.#initializedOnce = true;
    this.#opening = false;
    const version = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof version === "number" || typeof version === "string") this.http.setProtocolVersion(version);
    // A transport that carries the frames itself is open now: no event stream will say so.
    if (this.#transport.live) this.state.set("open");
  }

  /** Sends a notification; resolves once the server accepted it. */
  async notify(method: string, params: unknown): Promise<void> {
    // During a rebuild there is no connection to address it to yet: it waits for the new one (bounded).
    const recovering = this.closeInfo ? undefined : this.#recovery.pending;
    if (recovering) await this.#untilRecovered(recovering, method);
    this.#assertOpen(method);
    const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
    const envelope = { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) };
    // The connection's lifetime signal: a close aborts a notification the server is holding.
    const sent = this.#outbox.post({ envelope, method, signal: this.#lifetime.signal });
    // Cancelling a turn ends what the agent asked within it (the protocol wants permission answered
    // `cancelled`), answered once the cancel itself is with the server.
    if (method === "session/cancel" && typeof sessionId === "string") {
      this.#agentRequests.cancelSession(sessionId, sent);
    }
    try {
      await sent;
    } catch (error) {
      // Withdrawn by the close (the lifetime's own reason): the closed error, as for any call.
      const lifetime = this.#lifetime.signal;
      if (!lifetime.aborted || error !== lifetime.reason) throw error;
      throw new AcpConnectionClosedError(this.closeInfo?.reason ?? "disconnected", { method });
    }
  }

  /**
   * Waits for the rebuild under way, at most `ACP_DEFAULTS.recoveryWaitMs`; past that the message fails
   * as interrupted. A rebuild that fails closes the connection, which the caller then finds closed.
   */
  async #untilRecovered(recovering: Promise<void>, method: string): Promise<void> {
    const controller = new AbortController();
    const cancel = startDeadline(ACP_DEFAULTS.recoveryWaitMs, () => controller.abort());
    try {
      await untilAborted(recovering, controller.signal, () => new AcpInterruptedError(method));
    } finally {
      cancel();
    }
  }

  /**
   * Ends the connection and resolves once the bounded DELETE is done. The first close wins and is
   * recorded (why, and the error callers get from then on), every part is torn down, the server is
   * told with a bounded DELETE unless it no longer knows us (or refuses our credentials), and an
   * affinity cookie we own goes after it.
   */
  close(reason: CloseReason, cause?: unknown): Promise<void> {
    if (this.#closeInfo) return this.#deleting ?? Promise.resolve();
    const error = reason === "disconnected" ? undefined : new AcpConnectionClosedError(reason, { cause });
    const info: CloseInfo = (this.#closeInfo = error ? { reason, error } : { reason });
    this.#logger.debug("connection closed", { reason });
    this.#teardown(reason, cause);
    // 404: the server no longer knows us; 401/403: it refuses our credentials, a DELETE included.
    const gone = cause instanceof AcpHttpError && [404, 401, 403].includes(cause.status);
    const deleting = gone ? Promise.resolve() : this.http.delete(this.#closeTimeoutMs);
    // The DELETE still carries the affinity cookie (it must reach the same backend); then it goes.
    this.#deleting = deleting.finally(() => this.#ownCookies?.clear());
    this.#resolveClosed(info);
    return this.#deleting;
  }

  /** Throws the closed error for `method` once the connection has closed. */
  #assertOpen(method: string): void {
    const info = this.#closeInfo;
    if (info) throw new AcpConnectionClosedError(info.reason, { method, cause: info.error?.cause });
  }

  /** Every part stops, everything in flight fails with `reason` (once, from `close`). */
  #teardown(reason: CloseReason, cause: unknown): void {
    this.streams.stopAll();
    this.#transport.close();
    this.recoveries.complete();
    this.reconnects.complete();
    this.#lifetime.abort();
    this.inbound.close();
    this.#correlator.rejectAll((method) => new AcpConnectionClosedError(reason, { method, cause }));
    this.#turns?.failAll((method) => new AcpConnectionClosedError(reason, { method, cause }));
    this.gaps.complete();
    this.state.set("closed");
  }

  // --- SocketOwner, StreamsOwner, OutboxOwner: what the transports, streams and outbox report ---

  /** Requests are waiting for answers (the socket's watchdog counts silence only then). */
  get busy(): boolean {
    return this.#correlator.size > 0;
  }

  /**
   * The server no longer knows this connection (404), or the socket dropped. With recovery on
   * and an `initialize` to repeat, a new connection is built and true is returned; otherwise
   * the connection closes as `connection-lost` (`initialize-failed` while the first `initialize`
   * is unanswered, as when that call fails any other way).
   */
  lost(cause: unknown): boolean {
    if (this.closeInfo) return false;
    if (this.#recovery.start(cause)) return true;
    // Before the first `initialize` was answered there was no connection to lose: that call failed.
    void this.close(this.#opening ? "initialize-failed" : "connection-lost", cause);
    return false;
  }

  gap(gap: EventGap): void {
    // A held answer's copy may be among the lost events (told before subscribers hear).
    if (!this.#closeInfo) this.inbound.eventsLost();
    this.gaps.next(gap);
  }

  streamStatus(status: EventStreamStatus): void {
    this.state.set(status);
  }

  /** A reconnect attempt of the connection stream or of a recovery (`reconnecting$`). */
  reconnecting(attempt: AcpReconnectAttempt): void {
    this.reconnects.next(attempt);
  }

  /** A stream failed for good: a lost connection may be rebuilt, anything else closes it. */
  streamFailed(reason: CloseReason, cause: unknown): void {
    if (reason === "connection-lost") this.lost(cause);
    else void this.close(reason, cause);
  }

  /** The session's stream or POST got 409: that session fails until it is loaded again. */
  sessionConflict(sessionId: string, error: AcpHttpError): void {
    this.#logger.warn("session refused with 409 (held elsewhere) until session/load", { session: sessionId });
    this.#calls.sessionConflict(sessionId, error);
  }

  /** The requests waiting on that session's stream for their answers fail. */
  sessionStreamLost(sessionId: string, cause: Error): void {
    this.#calls.sessionStreamLost(sessionId, cause);
    this.#turns?.failSession(sessionId, (method) => new AcpInterruptedError(method, cause, "stream-lost"));
  }

  connectionGone(error: AcpHttpError): boolean {
    return this.#isConnectionGone?.(error, this.connectionId) ?? true;
  }

  unauthorized(cause: AcpHttpError): void {
    void this.close("unauthorized", cause);
  }

  // --- InboundOwner, CorrelatorOwner: what the JSON-RPC core asks and reports ---

  /** More frames can arrive: on a stream that exists, or on the transport itself (an open socket). */
  streamStarted(): boolean {
    return this.#transport.live || this.streams.started;
  }

  streamOpen(): boolean {
    return this.state.value === "open";
  }

  streamReconnecting(): boolean {
    return this.state.value === "reconnecting";
  }

  agentRequest(request: AcpRequest): void {
    this.#agentRequests.handle(request);
  }

  /** An agent request from before this client (`AcpHttpClient.adoptAgentRequest`): taken once. */
  adoptAgentRequest(request: AcpRequest): void {
    this.#agentRequests.adopt(request);
  }

  agentWithdrew(requestId: unknown): void {
    this.#agentRequests.withdraw(requestId);
  }

  /** A sent request its caller gave up: the agent is told (`$/cancel_request`, with `cancelRequests`). */
  abandoned(id: JsonRpcId): void {
    this.#outbox.cancelRequest(id);
  }

  // --- RecoveryOwner: rebuilding a lost connection (recovery.ts drives it) ---

  recoveryStarted(cause: unknown): void {
    this.state.set("reconnecting");
    this.inbound.releaseHeld();
    this.#correlator.rejectAll((method) => new AcpInterruptedError(method, cause));
    this.#turns?.failAll((method) => new AcpInterruptedError(method, cause));
    // The agent that asked is gone; the rebuilt one numbers its requests afresh.
    this.#agentRequests.forgetAll(new AcpInterruptedError(undefined, cause));
  }

  resetTransports(): void {
    this.#transport.reset();
    this.streams.reset();
    this.http.reset(); // the GETs' and the DELETE's (over HTTP the transport itself: once more changes nothing)
  }

  async recoveryRequest(method: string, params: unknown): Promise<unknown> {
    const bound = { timeoutMs: ACP_DEFAULTS.recoveryRequestTimeoutMs };
    const result = await this.#send(method, params, bound, method === "initialize");
    if (method === "initialize") {
      // The rebuilt agent's answer decides the version again, as the first one did (it may be
      // another build); one this client cannot speak fails the attempt.
      const answered = (result as { protocolVersion?: unknown } | null | undefined)?.protocolVersion;
      const spoken = negotiatedProfile(this.#asked.version, answered);
      if (!spoken) throw new AcpProtocolVersionError(this.#asked.version, answered);
      this.speak(spoken);
      this.streams.openConnection();
    }
    return result;
  }

  recovered(recovery: AcpRecovery): void {
    if (this.closeInfo) return;
    // A live transport's `initialize` has set it open already (`#initialized`); a connection stream
    // that is opening says so itself when it is open.
    if (this.state.value === "reconnecting") this.state.set("open");
    this.recoveries.next(recovery);
  }

  recoveryFailed(error: unknown): void {
    void this.close("connection-lost", error);
  }
}

export interface Transports {
  /** Always: the event streams' GETs and the DELETE use it. */
  http: HttpTransport;
  /** What every envelope goes out through: `http`, or for `transport: "websocket"` the socket. */
  transport: Transport;
  /** Where both transports hand what they read: one interface to the JSON-RPC core. */
  sink: FrameSink;
  /** The RFD profile's per-session stream header; none over a WebSocket, where everything arrives on the socket. */
  sessionHeader: string | undefined;
}

/**
 * The one place the `transport` option is read (default `http`), with the WebSocket's watchdog
 * settings (`reconnect.webSocket`). The HTTP transport (always: DELETE and the RFD GETs
 * use it) and, for `transport: "websocket"`, the socket, sharing one cookie store; `transport` is the
 * one envelopes go out through. Without a store (a browser) the page's cookie jar serves, with
 * fetch's credentials mode as the caller set it.
 */
export function createTransports(options: ResolvedClientOptions, inbound: Inbound, owner: SocketOwner): Transports {
  const { cookies, credentials, path, connectionIdHeader, logger, maxMessageBytes } = options;
  const http = new HttpTransport({
    baseUrl: options.baseUrl,
    path,
    connectionIdHeader,
    bootstrapQuery: options.bootstrapQuery,
    headers: options.headers,
    token: options.token,
    fetch: options.fetch,
    connectionId: options.connectionId,
    logger,
    cookies,
    credentials,
    protocolVersionHeader: options.protocolVersionHeader,
    protocolVersion: options.protocolVersion,
    maxMessageBytes,
  });
  if (options.transport !== "websocket") {
    const sink = new FrameIntake(inbound, maxMessageBytes, "stream");
    return { http, transport: http, sink, sessionHeader: options.sessionStreams?.header };
  }
  const sink = new FrameIntake(inbound, maxMessageBytes, "websocket");
  const socket = new WebSocketTransport(
    {
      url: joinUrl(options.baseUrl, path).replace(/^http/i, "ws"),
      WebSocket: options.WebSocket,
      connectionIdHeader,
      headers: options.headers,
      token: options.token,
      cookies,
      maxMessageBytes,
      watchdog: normalizeWatchdogPolicy((options.reconnect || undefined)?.webSocket),
      logger,
      sink,
    },
    owner,
  );
  return { http, transport: socket, sink, sessionHeader: undefined };
}

/**
 * `idle`: nothing sent yet. `connecting`: the first exchange or the first stream open
 * is under way. `open`: the event stream is live. `reconnecting`: it dropped and is
 * coming back. `closed`: final; a new client is needed.
 */
export type AcpConnectionState = "idle" | "connecting" | "open" | "reconnecting" | "closed";

/**
 * The connection's state as a replay-one stream; `closed` is terminal and completes it. The
 * stream is made when `state$` is first read (from the current value, completed if that is
 * `closed`, as the stream would be by then): a connection nobody watches keeps only the value.
 */
export class ConnectionStateMachine {
  #value: AcpConnectionState = "idle";
  #subject: BehaviorSubject<AcpConnectionState> | undefined;
  #state$: Observable<AcpConnectionState> | undefined;

  get state$(): Observable<AcpConnectionState> {
    if (!this.#state$) {
      const subject = (this.#subject = new BehaviorSubject(this.#value));
      if (this.#value === "closed") subject.complete();
      this.#state$ = subject.pipe(distinctUntilChanged());
    }
    return this.#state$;
  }

  get value(): AcpConnectionState {
    return this.#value;
  }

  set(next: AcpConnectionState): void {
    if (this.#value === "closed") return;
    this.#value = next;
    this.#subject?.next(next);
    if (next === "closed") this.#subject?.complete();
  }
}
