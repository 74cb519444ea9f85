import { Subject } from "rxjs";
import { AgentRequests } from "./agent-requests.js";
import { splitBatch } from "./batch.js";
import type { AcpHttpClientOptions, CloseInfo, RequestOptions } from "./client-options.js";
import { isErrorResponse, isNotification } from "./envelope.js";
import { AcpConnectionClosedError, type CloseReason } from "./errors/connection-closed-error.js";
import { AcpHttpError } from "./errors/http-error.js";
import { AcpProtocolError } from "./errors/protocol-error.js";
import { AcpRpcError } from "./errors/rpc-error.js";
import type { EventGap } from "./event-stream.js";
import { HttpTransport } from "./http.js";
import { Inbound, type SentEnvelope } from "./inbound.js";
import { debugLogger, type AcpLogger } from "./logger.js";
import { normalizeReconnectPolicy } from "./reconnect.js";
import { RpcCorrelator } from "./rpc-correlator.js";
import { SessionStreams } from "./session-streams.js";
import type { SseFrame } from "./sse-stream.js";
import { ConnectionStateMachine } from "./state.js";

type Envelope = SentEnvelope & Record<string, unknown>;

/**
 * One connection's moving parts, wired together: the HTTP transport, the event streams,
 * the inbound merge, request correlation, the agent's requests, state and the close
 * policy. `AcpHttpClient` is its public face; nothing here is exported from the package.
 */
export class Connection {
  readonly http: HttpTransport;
  readonly inbound: Inbound;
  readonly streams: SessionStreams;
  readonly state = new ConnectionStateMachine();
  readonly gaps = new Subject<EventGap>();
  /** Resolves once, when the connection has closed, with why. Never rejects. */
  readonly closed: Promise<CloseInfo>;
  readonly #logger: AcpLogger;
  readonly #closeTimeoutMs: number;
  readonly #correlator = new RpcCorrelator(1000);
  readonly #agentRequests: AgentRequests;
  readonly #lifetime = new AbortController();
  #resolveClosed!: (info: CloseInfo) => void;
  #closeInfo: CloseInfo | undefined;
  #deleting: Promise<void> | undefined;

  constructor(options: AcpHttpClientOptions) {
    const logger = (this.#logger = options.logger ?? debugLogger("acp-http"));
    this.#closeTimeoutMs = options.closeTimeoutMs ?? 2000;
    this.http = new HttpTransport({
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
    this.streams = new SessionStreams({
      http: this.http,
      policy: normalizeReconnectPolicy(options.reconnect),
      logger,
      sessionHeader: options.sessionStreams?.header,
      lastEventId: options.lastEventId,
      contiguousIds: options.contiguousEventIds ?? true,
      onCursor: options.onCursor,
      onFrame: (frame, stream) => this.#frame(frame, stream),
      onGap: (gap) => this.gaps.next(gap),
      onStatus: (status) => this.state.set(status),
      onFatal: (reason, cause) => this.close(reason, cause),
    });
    this.#agentRequests = new AgentRequests({
      handlers: options.handlers ?? {},
      lifetime: this.#lifetime.signal,
      send: (answer, method) =>
        this.#post(answer, `answer to ${method}`, this.#lifetime.signal, (error) =>
          logger.warn("could not deliver an answer to the agent", { method, error: (error as Error).message }),
        ),
    });
    this.inbound = new Inbound({
      correlator: this.#correlator,
      responseEcho: options.responseEcho ?? "auto",
      echoGraceMs: 1500,
      streamStarted: () => this.streams.started,
      streamOpen: () => this.state.value === "open",
      onAgentRequest: (request) => this.#agentRequests.handle(request),
    });
    this.inbound.envelopes.subscribe((envelope) => {
      if (isNotification(envelope) && envelope.method === "$/cancel_request") {
        this.#agentRequests.withdraw((envelope.params as { requestId?: unknown } | undefined)?.requestId);
      }
    });
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  get closeInfo(): CloseInfo | undefined {
    return this.#closeInfo;
  }

  /**
   * Sends a request and resolves with its `result`. `deferStream`: an answer in the POST
   * body opens no event stream (the caller opens it once it has read the answer).
   */
  async request(method: string, params: unknown, options: RequestOptions, deferStream = false): Promise<unknown> {
    this.#assertOpen(method);
    const id = this.#correlator.nextId();
    const { response, postSignal, postFinished } = this.#correlator.register(id, method, options);
    const envelope = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
    const reject = (error: unknown) => this.#correlator.reject(id, error);
    void this.#post(envelope, method, postSignal, reject, deferStream).then(postFinished, postFinished);
    const answer = await response;
    if (isErrorResponse(answer)) throw new AcpRpcError(method, answer.error);
    this.streams.afterResult(method, params, answer.result);
    return answer.result;
  }

  /** Sends a notification; resolves once the server accepted it. */
  async notify(method: string, params: unknown): Promise<void> {
    this.#assertOpen(method);
    const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
    // Cancelling a turn ends what the agent asked within it (the protocol wants permission answered `cancelled`).
    if (method === "session/cancel" && typeof sessionId === "string") this.#agentRequests.cancelSession(sessionId);
    let failure: unknown;
    const envelope = { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) };
    // The connection's lifetime signal: a close aborts a notification the server is holding.
    const delivered = await this.#post(envelope, method, this.#lifetime.signal, (error) => (failure = error));
    if (failure !== undefined) throw failure;
    if (!delivered) throw new AcpConnectionClosedError(this.#closeInfo?.reason ?? "disconnected", { method });
  }

  /** Ends the connection (first call wins) and resolves once the bounded DELETE is done. */
  close(reason: CloseReason, cause?: unknown): Promise<void> {
    if (this.#closeInfo) return this.#deleting ?? Promise.resolve();
    const error = reason === "disconnected" ? undefined : new AcpConnectionClosedError(reason, { cause });
    const info: CloseInfo = (this.#closeInfo = error ? { reason, error } : { reason });
    this.#logger.debug("connection closed", { reason });
    this.streams.stopAll();
    this.#lifetime.abort();
    this.inbound.close();
    this.#correlator.rejectAll((method) => new AcpConnectionClosedError(reason, { method, cause }));
    this.gaps.complete();
    this.state.set("closed");
    const gone = cause instanceof AcpHttpError && (cause.status === 404 || cause.status === 401);
    this.#deleting = gone ? Promise.resolve() : this.http.delete(this.#closeTimeoutMs);
    this.#resolveClosed(info);
    return this.#deleting;
  }

  #assertOpen(method: string): void {
    const info = this.#closeInfo;
    if (info) throw new AcpConnectionClosedError(info.reason, { method, cause: info.error?.cause });
  }

  /** Sends one envelope; failures go to `onError`. Resolves true once the server accepted it. */
  async #post(
    envelope: Envelope,
    method: string,
    signal: AbortSignal | undefined,
    onError: (error: unknown) => void,
    deferStream = false,
  ): Promise<boolean> {
    if (this.state.value === "idle") this.state.set("connecting");
    try {
      const headers = this.streams.headersFor(envelope.params);
      const result = await this.http.post(JSON.stringify(envelope), method, signal, headers);
      if (!deferStream || result.json === undefined) this.streams.openConnection();
      if (result.json !== undefined && !this.#body(result.json, envelope) && "id" in envelope) {
        onError(new AcpProtocolError("the response body was not a JSON-RPC envelope", { method }));
      }
      return true;
    } catch (error) {
      if (signal?.aborted) return false;
      if (error instanceof AcpHttpError && error.status === 404 && this.http.bootstrapped) {
        this.close("connection-lost", error);
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
    if (!members) return this.inbound.body(text, sent);
    return members.map((member) => this.inbound.body(member)).some(Boolean);
  }

  /** A stream frame; a batch is taken member by member, each under the frame's event id. */
  #frame(frame: SseFrame, stream: string): void {
    const members = splitBatch(frame.data);
    if (!members) return this.inbound.frame(frame, stream);
    for (const data of members) this.inbound.frame({ ...frame, data }, stream);
  }
}
