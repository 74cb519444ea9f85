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
import { linkSignal } from "./abort.js";
import { AgentRequests } from "./agent-requests.js";
import { splitBatch } from "./batch.js";
import type { AcpHttpClientOptions, CloseInfo, RequestOptions } from "./client-options.js";
import { isErrorResponse, isNotification, type AcpEnvelope } from "./envelope.js";
import { AcpConnectionClosedError, type CloseReason } from "./errors/connection-closed-error.js";
import { AcpHttpError } from "./errors/http-error.js";
import { AcpProtocolError } from "./errors/protocol-error.js";
import { AcpRpcError } from "./errors/rpc-error.js";
import type { EventGap } from "./event-stream.js";
import { HttpTransport } from "./http.js";
import { Inbound, type AcpParseError, type SentEnvelope } from "./inbound.js";
import { debugLogger, type AcpLogger } from "./logger.js";
import { normalizeReconnectPolicy } from "./reconnect.js";
import { RpcCorrelator } from "./rpc-correlator.js";
import { SessionStreams } from "./session-streams.js";
import type { SseFrame } from "./sse-stream.js";
import { ConnectionStateMachine, type AcpConnectionState } from "./state.js";
import { CLIENT_INFO } from "./version.js";

export { RFD_PROFILE, type AcpHttpClientOptions, type CloseInfo, type RequestOptions } from "./client-options.js";

type Params = Record<string, unknown>;

/**
 * An ACP client over streamable HTTP: POST sends envelopes, a GET event stream brings
 * them back, DELETE closes. Every inbound envelope is on the hot `envelopes$`, once,
 * in order; requests are settled from it by id. One instance is one connection: after
 * `disconnect()`, a failed first `initialize` or a fatal failure it stays closed and
 * every call fails fast with `AcpConnectionClosedError`.
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
  readonly #http: HttpTransport;
  readonly #correlator = new RpcCorrelator(1000);
  readonly #inbound: Inbound;
  readonly #streams: SessionStreams;
  readonly #agentRequests: AgentRequests;
  readonly #state = new ConnectionStateMachine();
  readonly #gaps = new Subject<EventGap>();
  readonly #lifetime = new AbortController();
  #resolveClosed!: (info: CloseInfo) => void;
  #closeInfo: CloseInfo | undefined;
  #deleting: Promise<void> | undefined;
  #initialized = false;

  constructor(options: AcpHttpClientOptions) {
    this.#options = options;
    const logger = (this.#logger = options.logger ?? debugLogger("acp-http"));
    this.#http = new HttpTransport({
      baseUrl: options.baseUrl,
      path: options.path ?? "/v2/rpc",
      connectionIdHeader: options.connectionIdHeader ?? "x-acp-connection-id",
      bootstrapQuery: options.bootstrapQuery,
      headers: options.headers,
      token: options.token,
      fetch: options.fetch,
      connectionId: options.connectionId,
      logger,
    });
    this.#streams = new SessionStreams({
      http: this.#http,
      policy: normalizeReconnectPolicy(options.reconnect),
      logger,
      sessionHeader: options.sessionStreams?.header,
      lastEventId: options.lastEventId,
      onFrame: (frame, stream) => this.#frame(frame, stream),
      onGap: (gap) => this.#gaps.next(gap),
      onStatus: (status) => this.#state.set(status),
      onFatal: (reason, cause) => this.#close(reason, cause),
    });
    this.#agentRequests = new AgentRequests({
      handlers: options.handlers ?? {},
      lifetime: this.#lifetime.signal,
      send: (answer, method) => this.#post(answer, `answer to ${method}`, this.#lifetime.signal, (error) =>
        logger.warn("could not deliver an answer to the agent", { method, error: (error as Error).message })),
    });
    this.#inbound = new Inbound({
      correlator: this.#correlator,
      responseEcho: options.responseEcho ?? "auto",
      echoGraceMs: 1500,
      streamStarted: () => this.#streams.started,
      streamOpen: () => this.#state.value === "open",
      onAgentRequest: (request) => this.#agentRequests.handle(request),
    });
    this.#inbound.envelopes.subscribe((envelope) => {
      if (isNotification(envelope) && envelope.method === "$/cancel_request") {
        this.#agentRequests.withdraw((envelope.params as { requestId?: unknown } | undefined)?.requestId);
      }
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

  /** The connection stream's cursor: persist it to resume after a reload (still readable after close). */
  get lastEventId(): string | undefined {
    return this.#streams.lastEventId;
  }

  /** Sends a request and resolves with its `result`; a JSON-RPC error rejects with `AcpRpcError`. */
  request(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    return this.#request(method, params, options, false);
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

  /** Sends a notification; resolves once the server accepted it. `session/cancel` also stops that session's handlers. */
  async notify(method: string, params?: unknown): Promise<void> {
    this.#assertOpen(method);
    const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
    if (method === "session/cancel" && typeof sessionId === "string") this.#agentRequests.cancelSession(sessionId);
    let failure: unknown;
    // The connection's lifetime signal: a close aborts a notification the server is holding.
    const envelope = { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) };
    const delivered = await this.#post(envelope, method, this.#lifetime.signal, (error) => (failure = error));
    if (failure !== undefined) throw failure;
    if (!delivered) throw new AcpConnectionClosedError(this.#closeInfo?.reason ?? "disconnected", { method });
  }

  // --- ACP methods ---------------------------------------------------------------

  /**
   * Opens the connection. The event stream opens once the answer is in (and, in the RFD
   * profile, its connection id known). If this first `initialize` fails the connection
   * closes (`initialize-failed`, or `unauthorized` on a 401) and the error is rethrown.
   */
  async initialize(params: Partial<InitializeParams> = {}, options?: RequestOptions): Promise<InitializeResult> {
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
    try {
      const result = await this.#typed("initialize", InitializeResultSchema, full, options, true);
      this.#adoptConnectionId(result);
      this.#streams.openConnection();
      this.#initialized = true;
      return result;
    } catch (error) {
      const unauthorized = error instanceof AcpHttpError && error.status === 401;
      if (!this.#initialized) this.#close(unauthorized ? "unauthorized" : "initialize-failed", error);
      throw error;
    }
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
  unstableCloseSession(params: { sessionId: string } & Params, options?: RequestOptions): Promise<LooseResult> {
    return this.#typed("session/close", LooseResultSchema, params, options);
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

  async #request(method: string, params: unknown, options: RequestOptions, deferStream: boolean): Promise<unknown> {
    this.#assertOpen(method);
    const id = this.#correlator.nextId();
    const { response, postSignal, postFinished } = this.#correlator.register(id, method, options);
    const envelope = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
    const reject = (error: unknown) => this.#correlator.reject(id, error);
    void this.#post(envelope, method, postSignal, reject, deferStream).then(postFinished, postFinished);
    const answer = await response;
    if (isErrorResponse(answer)) throw new AcpRpcError(method, answer.error);
    this.#streams.afterResult(method, params, answer.result);
    return answer.result;
  }

  async #typed<T>(
    method: string,
    schema: v.GenericSchema<unknown, T>,
    params: unknown,
    options?: RequestOptions,
    deferStream = false,
  ): Promise<T> {
    const result = await this.#request(method, params, options ?? {}, deferStream);
    const parsed = v.safeParse(schema, result);
    if (parsed.success) return parsed.output;
    throw new AcpProtocolError(`unexpected result shape: ${parsed.issues[0]?.message ?? "invalid"}`, { method });
  }

  /** The RFD profile also puts the id in the initialize result: a browser may not see the header. */
  #adoptConnectionId(result: InitializeResult): void {
    if (!this.#options.sessionStreams || this.connectionId) return;
    const fromResult = (result as { connectionId?: unknown }).connectionId;
    if (typeof fromResult !== "string") {
      throw new AcpProtocolError(
        "the server's connection id header could not be read " +
          "(in a browser the server must list it in Access-Control-Expose-Headers)",
        { method: "initialize" },
      );
    }
    this.#http.adoptConnectionId(fromResult);
  }

  #assertOpen(method: string): void {
    const info = this.#closeInfo;
    if (info) throw new AcpConnectionClosedError(info.reason, { method, cause: info.error?.cause });
  }

  /**
   * Sends one envelope; failures go to `onError`. Resolves true once the server accepted it.
   * `deferStream`: an answer in the body opens no stream here (initialize opens it once the answer is read).
   */
  async #post(
    envelope: SentEnvelope & Params,
    method: string,
    signal: AbortSignal | undefined,
    onError: (error: unknown) => void,
    deferStream = false,
  ): Promise<boolean> {
    if (this.#state.value === "idle") this.#state.set("connecting");
    try {
      const result = await this.#http.post(JSON.stringify(envelope), method, signal, this.#streams.headersFor(envelope.params));
      if (!deferStream || result.json === undefined) this.#streams.openConnection();
      if (result.json !== undefined && !this.#body(result.json, envelope) && "id" in envelope) {
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

  /** A POST body; a batch is taken member by member. False when it held no usable envelope. */
  #body(text: string, sent: SentEnvelope): boolean {
    const members = splitBatch(text);
    if (!members) return this.#inbound.body(text, sent);
    return members.map((member) => this.#inbound.body(member)).some(Boolean);
  }

  /** A stream frame; a batch is taken member by member, each under the frame's event id. */
  #frame(frame: SseFrame, stream: string): void {
    const members = splitBatch(frame.data);
    if (!members) return this.#inbound.frame(frame, stream);
    for (const data of members) this.#inbound.frame({ ...frame, data }, stream);
  }

  #close(reason: CloseReason, cause?: unknown): void {
    if (this.#closeInfo) return;
    const error = reason === "disconnected" ? undefined : new AcpConnectionClosedError(reason, { cause });
    this.#closeInfo = error ? { reason, error } : { reason };
    this.#logger.debug("connection closed", { reason });
    this.#streams.stopAll();
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
