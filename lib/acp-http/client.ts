import { Observable, Subject, type Observable as Obs } from "rxjs";
import * as v from "valibot";
import {
  ForkSessionResultSchema,
  InitializeResultSchema,
  ListSessionsResultSchema,
  LooseResultSchema,
  NewSessionResultSchema,
  PROTOCOL_VERSION,
  PromptResultSchema,
  type AuthenticateParams,
  type CancelParams,
  type ForkSessionResult,
  type Implementation,
  type InitializeParams,
  type InitializeResult,
  type ListSessionsParams,
  type ListSessionsResult,
  type LoadSessionParams,
  type LooseResult,
  type NewSessionParams,
  type NewSessionResult,
  type PromptParams,
  type PromptResult,
  type ResumeSessionParams,
  type SetSessionConfigOptionParams,
  type SetSessionModelParams,
  type SetSessionModeParams,
} from "./acp-types.js";
import { idKey, isErrorResponse, type AcpEnvelope, type AcpRequest } from "./envelope.js";
import { AcpConnectionClosedError, type CloseReason } from "./errors/connection-closed-error.js";
import { AcpHttpError } from "./errors/http-error.js";
import { AcpProtocolError } from "./errors/protocol-error.js";
import { AcpRpcError } from "./errors/rpc-error.js";
import { EventStream, RetriesExhaustedError, type EventGap } from "./event-stream.js";
import { answerAgentRequest, type AcpClientHandlers } from "./handlers.js";
import { HttpTransport, type TokenSource } from "./http.js";
import { Inbound, type AcpParseError, type ResponseEcho } from "./inbound.js";
import { debugLogger, type AcpLogger } from "./logger.js";
import { normalizeReconnectPolicy, type NormalizedReconnectPolicy, type ReconnectPolicy } from "./reconnect.js";
import { RpcCorrelator, type PendingOptions } from "./rpc-correlator.js";
import { ConnectionStateMachine, type AcpConnectionState } from "./state.js";
import { BoundedSet } from "./bounded-set.js";
import { linkSignal } from "./abort.js";
import { CLIENT_INFO } from "./version.js";

export interface AcpHttpClientOptions {
  /** Server origin (and any path prefix), e.g. `http://127.0.0.1:2468`. */
  baseUrl: string;
  /** Endpoint path for POST, GET and DELETE. Default `/v2/rpc`. */
  path?: string;
  /** Header that carries the connection id. Default `x-acp-connection-id`. */
  connectionIdHeader?: string;
  /** Resume an existing connection (e.g. after a page reload) instead of waiting to learn one. */
  connectionId?: string;
  /** Query sent with the POSTs until one succeeds (servers that create the connection lazily). */
  bootstrapQuery?: Record<string, string>;
  headers?: Record<string, string>;
  token?: TokenSource;
  fetch?: typeof globalThis.fetch;
  reconnect?: ReconnectPolicy;
  /** Resume the connection stream from this event id. */
  lastEventId?: string;
  /** Answers to the agent's own requests (permission, files, terminals). */
  handlers?: AcpClientHandlers;
  /** Sent as `clientInfo` by `initialize`. */
  clientInfo?: Implementation;
  /** Whether responses also arrive on the stream (see `ResponseEcho`). Default `"auto"`. */
  responseEcho?: ResponseEcho;
  /**
   * Per-session event streams, as the ACP streamable HTTP RFD profile has them: a GET
   * with this header per session, opened when a session is created or loaded here.
   */
  sessionStreams?: { header: string };
  /** Upper bound for the DELETE sent by `disconnect()`. Default 2000 ms. */
  closeTimeoutMs?: number;
  logger?: AcpLogger;
}

/** Settings for the ACP streamable HTTP RFD profile (`/acp`, `Acp-Connection-Id`, session streams). */
export const RFD_PROFILE = {
  path: "/acp",
  connectionIdHeader: "Acp-Connection-Id",
  sessionStreams: { header: "Acp-Session-Id" },
} as const satisfies Partial<AcpHttpClientOptions>;

export type RequestOptions = PendingOptions;

/** How a connection ended; `error` is absent for a clean `disconnect()`. */
export interface CloseInfo {
  reason: CloseReason;
  error?: AcpConnectionClosedError;
}

const CONNECTION_STREAM = "connection";
const SESSION_OPENING_METHODS = new Set(["session/new", "session/load", "session/resume", "session/fork"]);

/**
 * An ACP client over streamable HTTP: POST sends envelopes, a GET event stream brings
 * them back, DELETE closes. Every inbound envelope is on the hot `envelopes$`, once,
 * in order; requests are settled from it by id. One instance is one connection: after
 * `disconnect()` (or a fatal failure) it stays closed and every call fails fast with
 * `AcpConnectionClosedError`.
 */
export class AcpHttpClient {
  /** Every validated inbound envelope, hot, no replay; completes when the connection closes. */
  readonly envelopes$: Obs<AcpEnvelope>;
  /** Frames and bodies that were not JSON-RPC; the stream goes on after each. */
  readonly parseErrors$: Obs<AcpParseError>;
  /** Events the server could no longer replay after a drop (detected by id gaps). */
  readonly gaps$: Obs<EventGap>;
  /** `idle | connecting | open | reconnecting | closed`, replaying the current value. */
  readonly state$: Obs<AcpConnectionState>;
  /** Resolves once, when the connection has closed, with why. Never rejects. */
  readonly closed: Promise<CloseInfo>;

  readonly #options: AcpHttpClientOptions;
  readonly #logger: AcpLogger;
  readonly #policy: NormalizedReconnectPolicy;
  readonly #http: HttpTransport;
  readonly #correlator = new RpcCorrelator(1000);
  readonly #inbound: Inbound;
  readonly #state = new ConnectionStateMachine();
  readonly #gaps = new Subject<EventGap>();
  readonly #streams = new Map<string, EventStream>();
  readonly #answered = new BoundedSet(1024);
  readonly #lifetime = new AbortController();
  #resolveClosed!: (info: CloseInfo) => void;
  #closeInfo: CloseInfo | undefined;
  #deleting: Promise<void> | undefined;

  constructor(options: AcpHttpClientOptions) {
    this.#options = options;
    this.#logger = options.logger ?? debugLogger("acp-http");
    this.#policy = normalizeReconnectPolicy(options.reconnect);
    this.#http = new HttpTransport({
      baseUrl: options.baseUrl,
      path: options.path ?? "/v2/rpc",
      connectionIdHeader: options.connectionIdHeader ?? "x-acp-connection-id",
      bootstrapQuery: options.bootstrapQuery,
      headers: options.headers,
      token: options.token,
      fetch: options.fetch,
      connectionId: options.connectionId,
      logger: this.#logger,
    });
    this.#inbound = new Inbound({
      correlator: this.#correlator,
      responseEcho: options.responseEcho ?? "auto",
      echoGraceMs: 1500,
      streamStarted: () => this.#streams.size > 0,
      streamOpen: () => this.#state.value === "open",
      onAgentRequest: (request) => void this.#answer(request),
    });
    this.envelopes$ = this.#inbound.envelopes.asObservable();
    this.parseErrors$ = this.#inbound.parseErrors.asObservable();
    this.gaps$ = this.#gaps.asObservable();
    this.state$ = this.#state.state$;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  get state(): AcpConnectionState {
    return this.#state.value;
  }

  /** Why the connection closed, once it has (the value `closed` resolves with). */
  get closeInfo(): CloseInfo | undefined {
    return this.#closeInfo;
  }

  get connectionId(): string | undefined {
    return this.#http.connectionId;
  }

  /** The connection stream's cursor: persist it to resume after a reload. */
  get lastEventId(): string | undefined {
    return this.#streams.get(CONNECTION_STREAM)?.lastEventId ?? this.#options.lastEventId;
  }

  /** Sends a request and resolves with its `result`; a JSON-RPC error rejects with `AcpRpcError`. */
  async request(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    this.#assertOpen(method);
    const id = this.#correlator.nextId();
    const { response, postSignal, postFinished } = this.#correlator.register(id, method, options);
    void this.#post({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }, method, postSignal, (error) =>
      this.#correlator.reject(id, error),
    ).then(postFinished, postFinished);
    const answer = await response;
    if (isErrorResponse(answer)) throw new AcpRpcError(method, answer.error);
    if (SESSION_OPENING_METHODS.has(method)) this.#openSessionStream(answer.result);
    return answer.result;
  }

  /** The cold twin of `request`: sends on subscribe, emits the result once; unsubscribing aborts it. */
  request$(method: string, params?: unknown, options: RequestOptions = {}): Observable<unknown> {
    return new Observable<unknown>((subscriber) => {
      const controller = new AbortController();
      const unlink = linkSignal(options.signal, controller);
      this.request(method, params, { ...options, signal: controller.signal }).finally(unlink).then(
        (result) => {
          subscriber.next(result);
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
      return () => controller.abort();
    });
  }

  /** Sends a notification; resolves once the server accepted it. */
  async notify(method: string, params?: unknown): Promise<void> {
    this.#assertOpen(method);
    let failure: unknown;
    // The connection's lifetime signal: a close aborts a notification the server is holding.
    const delivered = await this.#post({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }, method, this.#lifetime.signal, (error) => (failure = error));
    if (failure !== undefined) throw failure;
    if (!delivered) throw new AcpConnectionClosedError(this.#closeInfo?.reason ?? "disconnected", { method });
  }

  // --- ACP methods ---------------------------------------------------------------

  async initialize(params: Partial<InitializeParams> = {}): Promise<InitializeResult> {
    const handlers = this.#options.handlers ?? {};
    const full: InitializeParams = {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: Boolean(handlers.readTextFile), writeTextFile: Boolean(handlers.writeTextFile) },
        terminal: Boolean(handlers.createTerminal),
      },
      clientInfo: this.#options.clientInfo ?? { ...CLIENT_INFO },
      ...params,
    };
    const result = await this.#typed("initialize", InitializeResultSchema, full);
    if (this.#options.sessionStreams && !this.connectionId) {
      // The RFD profile also puts the id in the result; a browser may not see the header.
      const fromResult = (result as { connectionId?: unknown }).connectionId;
      if (typeof fromResult !== "string") {
        throw new AcpProtocolError(
          "the server's connection id header could not be read (in a browser the server must list it in Access-Control-Expose-Headers)",
          { method: "initialize" },
        );
      }
      this.#http.adoptConnectionId(fromResult);
    }
    return result;
  }

  authenticate(params: AuthenticateParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#typed("authenticate", LooseResultSchema, params, options);
  }

  newSession(params: NewSessionParams, options?: RequestOptions): Promise<NewSessionResult> {
    return this.#typed("session/new", NewSessionResultSchema, params, options);
  }

  loadSession(params: LoadSessionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#typed("session/load", LooseResultSchema, params, options);
  }

  prompt(params: PromptParams, options?: RequestOptions): Promise<PromptResult> {
    return this.#typed("session/prompt", PromptResultSchema, params, options);
  }

  cancel(params: CancelParams): Promise<void> {
    return this.notify("session/cancel", params);
  }

  setSessionMode(params: SetSessionModeParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#typed("session/set_mode", LooseResultSchema, params, options);
  }

  setSessionConfigOption(params: SetSessionConfigOptionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#typed("session/set_config_option", LooseResultSchema, params, options);
  }

  listSessions(params: ListSessionsParams = {}, options?: RequestOptions): Promise<ListSessionsResult> {
    return this.#typed("session/list", ListSessionsResultSchema, params, options);
  }

  unstableForkSession(params: ResumeSessionParams, options?: RequestOptions): Promise<ForkSessionResult> {
    return this.#typed("session/fork", ForkSessionResultSchema, params, options);
  }

  unstableResumeSession(params: ResumeSessionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#typed("session/resume", LooseResultSchema, params, options);
  }

  unstableSetSessionModel(params: SetSessionModelParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#typed("session/set_model", LooseResultSchema, params, options);
  }

  /** Closes one session (RFD `session/close`) and its event stream. */
  async unstableCloseSession(params: { sessionId: string; [key: string]: unknown }, options?: RequestOptions): Promise<LooseResult> {
    const result = await this.#typed("session/close", LooseResultSchema, params, options);
    this.#closeSessionStream(params.sessionId);
    return result;
  }

  /** A request with any method name, sent verbatim (extension methods start with `_`). */
  extMethod(method: string, params?: unknown, options?: RequestOptions): Promise<unknown> {
    return this.request(method, params, options);
  }

  extNotification(method: string, params?: unknown): Promise<void> {
    return this.notify(method, params);
  }

  /**
   * Closes the connection: stops the streams, rejects what is pending, completes the
   * observables, then sends a bounded DELETE. Safe to call more than once.
   */
  async disconnect(): Promise<void> {
    this.#close("disconnected");
    await this.#deleting;
  }

  // --- internals -----------------------------------------------------------------

  async #typed<T>(method: string, schema: v.GenericSchema<unknown, T>, params: unknown, options?: RequestOptions): Promise<T> {
    const result = await this.request(method, params, options);
    const parsed = v.safeParse(schema, result);
    if (!parsed.success) throw new AcpProtocolError(`unexpected result shape: ${parsed.issues[0]?.message ?? "invalid"}`, { method });
    return parsed.output;
  }

  #assertOpen(method: string): void {
    if (this.#closeInfo) throw new AcpConnectionClosedError(this.#closeInfo.reason, { method, cause: this.#closeInfo.error?.cause });
  }

  /** Sends one envelope; failures go to `onError`. Resolves true once the server accepted it. */
  async #post(envelope: Record<string, unknown>, method: string, signal: AbortSignal | undefined, onError: (error: unknown) => void): Promise<boolean> {
    if (this.#state.value === "idle") this.#state.set("connecting");
    try {
      const result = await this.#http.post(JSON.stringify(envelope), method, signal, this.#sessionHeaders(envelope));
      this.#ensureConnectionStream();
      if (result.json !== undefined && !this.#inbound.body(result.json) && "id" in envelope) {
        onError(new AcpProtocolError("the response body was not a JSON-RPC envelope", { method }));
      }
      return true;
    } catch (error) {
      if (signal?.aborted) return false;
      if (error instanceof AcpHttpError && error.status === 404 && this.#http.bootstrapped) {
        this.#close("connection-lost", error);
        onError(new AcpConnectionClosedError("connection-lost", { method, cause: error }));
        return false;
      }
      onError(error);
      return false;
    }
  }

  #sessionHeaders(envelope: Record<string, unknown>): Record<string, string> {
    const header = this.#options.sessionStreams?.header;
    const sessionId = (envelope.params as { sessionId?: unknown } | undefined)?.sessionId;
    return header && typeof sessionId === "string" ? { [header]: sessionId } : {};
  }

  #ensureConnectionStream(): void {
    if (this.#closeInfo || this.#streams.has(CONNECTION_STREAM) || !this.#http.bootstrapped) return;
    this.#startStream(CONNECTION_STREAM, {}, this.#options.lastEventId);
  }

  #openSessionStream(result: unknown): void {
    const header = this.#options.sessionStreams?.header;
    const sessionId = (result as { sessionId?: unknown } | null)?.sessionId;
    if (!header || this.#closeInfo || typeof sessionId !== "string" || this.#streams.has(sessionId)) return;
    // "0" asks for the session's whole history: updates sent before this GET are not lost.
    this.#startStream(sessionId, { [header]: sessionId }, "0");
  }

  #closeSessionStream(sessionId: string): void {
    this.#streams.get(sessionId)?.stop();
    this.#streams.delete(sessionId);
  }

  #startStream(name: string, headers: Record<string, string>, lastEventId: string | undefined): void {
    const isConnection = name === CONNECTION_STREAM;
    const stream = new EventStream({
      name,
      open: (cursor, signal) => this.#http.openStream(headers, cursor, signal),
      policy: this.#policy,
      lastEventId,
      logger: this.#logger,
      onFrame: (frame, streamName) => this.#inbound.frame(frame, streamName),
      onGap: (gap) => {
        this.#logger.warn("events lost: the server no longer had them", { ...gap });
        this.#gaps.next(gap);
      },
      onStatus: (status) => {
        if (isConnection) this.#state.set(status);
      },
      onFatal: (error) => this.#streamFailed(name, error),
    });
    this.#streams.set(name, stream);
    stream.start();
  }

  #streamFailed(name: string, error: Error): void {
    if (error instanceof AcpHttpError) {
      if (error.status === 401) return this.#close("unauthorized", error);
      if (error.status === 404) return this.#close("connection-lost", error);
      if (name !== CONNECTION_STREAM) {
        // A session stream refused (e.g. not owned here) ends that stream, not the connection.
        this.#logger.warn("session stream refused", { session: name, status: error.status });
        this.#streams.delete(name);
        return;
      }
      return this.#close("stream-rejected", error);
    }
    this.#close("retries-exhausted", error instanceof RetriesExhaustedError ? (error.cause as Error) : error);
  }

  async #answer(request: AcpRequest): Promise<void> {
    const key = idKey(request.id);
    if (this.#answered.has(key)) return;
    this.#answered.add(key);
    const answer = await answerAgentRequest(request, this.#options.handlers ?? {}, this.#lifetime.signal);
    if (this.#closeInfo) return;
    await this.#post({ jsonrpc: "2.0", id: request.id, ...answer }, `answer to ${request.method}`, this.#lifetime.signal, (error) =>
      this.#logger.warn("could not deliver an answer to the agent", { method: request.method, error: (error as Error).message }),
    );
  }

  #close(reason: CloseReason, cause?: unknown): void {
    if (this.#closeInfo) return;
    const error = reason === "disconnected" ? undefined : new AcpConnectionClosedError(reason, { cause });
    this.#closeInfo = error ? { reason, error } : { reason };
    this.#logger.debug("connection closed", { reason });
    for (const stream of this.#streams.values()) stream.stop();
    this.#streams.clear();
    this.#lifetime.abort();
    this.#inbound.close();
    this.#correlator.rejectAll((method) => new AcpConnectionClosedError(reason, { method, cause }));
    this.#gaps.complete();
    this.#state.set("closed");
    const gone = cause instanceof AcpHttpError && (cause.status === 404 || cause.status === 401);
    this.#deleting = gone ? Promise.resolve() : this.#http.delete(this.#options.closeTimeoutMs ?? 2000);
    this.#resolveClosed(this.#closeInfo);
  }
}
