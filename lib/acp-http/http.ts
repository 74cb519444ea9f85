import { BootstrapPosts } from "./bootstrap-posts.js";
import type { AcpCookieStore } from "./cookie-store.js";
import { AcpNetworkError } from "./errors/network-error.js";
import { isAbort, withDeadline } from "../internal/abort.js";
import { assertHeaders, assertHeaderValue, mergeHeaders } from "../internal/http.js";
import { toHttpError } from "./http-problem.js";
import type { AcpLogger } from "./logger.js";
import { readPostAnswer, type PostResult } from "./post-answer.js";
import { resolveToken, type TokenSource } from "../internal/http.js";
import { joinUrl, withQuery } from "../internal/http.js";

export type { TokenSource } from "../internal/http.js";
export type { PostResult } from "./post-answer.js";
export { isAbort } from "../internal/abort.js";
export { assertHeaderValue } from "../internal/http.js";
export { toHttpError } from "./http-problem.js";
export { joinUrl } from "../internal/http.js";

export interface HttpTransportOptions {
  baseUrl: string;
  path: string;
  connectionIdHeader: string;
  bootstrapQuery: Record<string, string> | undefined;
  headers: Record<string, string> | undefined;
  token: TokenSource | undefined;
  fetch: typeof globalThis.fetch | undefined;
  /** Seed for a connection that already exists (a page reload resuming its connection). */
  connectionId: string | undefined;
  logger: AcpLogger;
  /** Affinity cookies: applied to every request, updated from every response. */
  cookies?: AcpCookieStore | undefined;
  /** `fetch` credentials mode (browsers: `include` lets the page's cookie jar do the work). */
  credentials?: RequestCredentials | undefined;
  /** Header that carries the negotiated protocol version once known (RFD: `Acp-Protocol-Version`). */
  protocolVersionHeader?: string | undefined;
  /** The version a stored connection negotiated: sent from the first request (no `initialize` will tell it). */
  protocolVersion?: number | string | undefined;
  /** A POST answer body larger than this is not parsed (see `PostResult.tooLarge`). */
  maxMessageBytes?: number | undefined;
}

/**
 * The HTTP side of the transport: builds headers (token, connection id), sends POST,
 * GET and DELETE with one plain `fetch(url, init)` each, learns the connection id from any response that carries
 * it, and maps non-2xx answers to `AcpHttpError`. It knows nothing of JSON-RPC.
 */
export class HttpTransport {
  readonly #options: HttpTransportOptions;
  readonly #fetch: typeof globalThis.fetch;
  readonly #url: string;
  readonly #bootstrapPosts = new BootstrapPosts();
  #connectionId: string | undefined;
  #bootstrapped = false;
  /** A POST went out: the server may hold this connection (and its agent) from now on. */
  #mayExist = false;
  #protocolVersion: string | undefined;
  /** Spread into every fetch init: `credentials`, when configured. */
  readonly #init: RequestInit;

  constructor(options: HttpTransportOptions) {
    this.#options = options;
    this.#connectionId = options.connectionId;
    if (options.protocolVersion !== undefined) this.#protocolVersion = String(options.protocolVersion);
    this.#url = joinUrl(options.baseUrl, options.path);
    assertHeaders(options.headers);
    // Plain fetch, no wrapper: a wrapper that builds a Request, clones it for retries and
    // combines abort signals cost several times the rest of a round trip on the client.
    // No retries and no deadline here either: prompts legitimately run for many minutes and
    // the event stream for hours, so any deadline is the caller's to set. The global is
    // looked up per call, so a fetch replaced after construction is still the one used.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#init = options.credentials ? { credentials: options.credentials } : {};
  }

  /** Sent on every request from now on (when a `protocolVersionHeader` is configured). */
  setProtocolVersion(version: number | string): void {
    this.#protocolVersion = String(version);
  }

  /** Forgets the connection (its id, that it was set up): the next POST starts a new one. */
  reset(): void {
    this.#connectionId = undefined;
    this.#bootstrapped = false;
    this.#protocolVersion = undefined;
  }

  get connectionId(): string | undefined {
    return this.#connectionId;
  }

  /** Takes a connection id the server gave in a body rather than a header. */
  adoptConnectionId(id: string): void {
    assertHeaderValue(this.#options.connectionIdHeader, id);
    this.#connectionId = id;
  }

  /** True once a POST has succeeded: the server knows this connection and the stream may open. */
  get bootstrapped(): boolean {
    return this.#bootstrapped;
  }

  async post(
    body: string,
    operation: string,
    signal: AbortSignal | undefined,
    extraHeaders: Record<string, string> = {},
  ): Promise<PostResult> {
    const headers = await this.#headers({
      "content-type": "application/json",
      accept: "application/json",
      ...extraHeaders,
    });
    const url =
      this.#bootstrapped || !this.#options.bootstrapQuery
        ? this.#url
        : withQuery(this.#url, this.#options.bootstrapQuery);
    const response = await this.#send(operation, signal, () => {
      if (!signal?.aborted) this.#mayExist = true;
      if (this.#bootstrapped) return this.#fetch(url, { ...this.#init, method: "POST", body, headers, signal });
      // Until the server knows the connection, an aborted POST is still followed to its answer (see BootstrapPosts).
      const send = (own: AbortSignal) =>
        this.#fetch(url, { ...this.#init, method: "POST", body, headers, signal: own });
      return this.#bootstrapPosts.send(signal, send, (late) => this.#learnConnectionId(late));
    });
    if (!response.ok) throw await toHttpError(operation, response);
    this.#bootstrapped = true;
    return readPostAnswer(response, this.#options.maxMessageBytes, operation);
  }

  /** Opens one GET event stream; resolves with the 2xx response whose body is the stream. */
  async openStream(
    extraHeaders: Record<string, string>,
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    const headers = await this.#headers({
      accept: "text/event-stream",
      ...extraHeaders,
      ...(lastEventId !== undefined ? { "last-event-id": lastEventId } : {}),
    });
    const response = await this.#send("event stream", signal, () =>
      this.#fetch(this.#url, { ...this.#init, method: "GET", headers, signal }),
    );
    if (!response.ok) throw await toHttpError("event stream", response);
    if (!response.body) throw new AcpNetworkError("event stream", new Error("response has no body"));
    return response;
  }

  /**
   * Best-effort close, sent whenever a POST may have reached the server (an aborted one
   * included). A DELETE only finds what the server has finished creating, so a POST still
   * creating the connection is given `timeoutMs` to be answered first; one still open then
   * is aborted (a close must not leave a request running, and an open POST keeps the agent
   * busy, on some servers alive) and the DELETE goes out. Each DELETE is bounded by
   * `timeoutMs`, because some servers hold it open until the agent process exits; abandoning
   * it is what lets them proceed. Errors are logged, not thrown.
   */
  async delete(timeoutMs: number, extraHeaders: Record<string, string> = {}): Promise<void> {
    if (!this.#mayExist) return;
    if (!(await this.#bootstrapPosts.answered(timeoutMs))) {
      this.#bootstrapPosts.abortAll();
      // The abort settles each POST (a fetch rejects at once), so its answer's headers, if any came, are learned.
      await this.#bootstrapPosts.answered(timeoutMs);
    }
    return this.#sendDelete(timeoutMs, extraHeaders);
  }

  async #sendDelete(timeoutMs: number, extraHeaders: Record<string, string>): Promise<void> {
    try {
      const headers = await this.#headers(extraHeaders);
      const response = await withDeadline(timeoutMs, (signal) =>
        this.#fetch(this.#url, { ...this.#init, method: "DELETE", headers, signal }),
      );
      this.#learnConnectionId(response);
      if (!response.ok && response.status !== 404)
        this.#options.logger.warn("close: unexpected status", { status: response.status });
      await response.body?.cancel().catch(() => undefined);
    } catch (error) {
      this.#options.logger.debug("close: request abandoned", { error: (error as Error).message });
    }
  }

  async #send(operation: string, signal: AbortSignal | undefined, send: () => Promise<Response>): Promise<Response> {
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      // Whatever a fetch throws once its signal is aborted is the abort, not a network failure.
      if (signal?.aborted || isAbort(error)) throw error;
      throw new AcpNetworkError(operation, error);
    }
    this.#learnConnectionId(response);
    return response;
  }

  /** Every response may carry the connection id and affinity cookies. */
  #learnConnectionId(response: Response): void {
    this.#options.cookies?.store(response.headers);
    const id = response.headers.get(this.#options.connectionIdHeader);
    if (id && id !== this.#connectionId) {
      this.#options.logger.debug("connection id learned", { connectionId: id });
      this.#connectionId = id;
    }
  }

  /** The user's headers, the token, then ours (content-type, accept, connection id), case-insensitively. */
  async #headers(own: Record<string, string>): Promise<Headers> {
    const token = await resolveToken(this.#options.token);
    const connection = this.#connectionId ? { [this.#options.connectionIdHeader]: this.#connectionId } : {};
    const { protocolVersionHeader } = this.#options;
    const version =
      protocolVersionHeader && this.#protocolVersion ? { [protocolVersionHeader]: this.#protocolVersion } : {};
    const headers = mergeHeaders({ user: this.#options.headers, token, own: { ...own, ...version, ...connection } });
    this.#options.cookies?.apply(headers);
    return headers;
  }
}
