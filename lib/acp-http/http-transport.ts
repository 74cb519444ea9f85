// The HTTP side of the transport: POST of one envelope (and reading its answer body), the event
// stream's GET, the closing DELETE, the bootstrap (requests sent before the connection id is known),
// error bodies as AcpHttpError, and the cookie store shared with the WebSocket transport.
import { AcpNetworkError, AcpHttpError } from "./errors.js";
import { isAbort, withDeadline, startDeadline } from "../internal/abort.js";
import {
  assertHeaders,
  assertHeaderValue,
  mergeHeaders,
  resolveToken,
  type TokenSource,
  joinUrl,
  withQuery,
  readHttpProblem,
  readBounded,
} from "../internal/http.js";
import { silentLogger, type AcpLogger } from "../internal/logger.js";
import type { Transport } from "./outbox.js";

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
 * it, and maps non-2xx answers to `AcpHttpError`. It knows nothing of JSON-RPC. As a `Transport`,
 * each envelope is one POST (`send`), which a signal aborts; what comes back without a request
 * comes on the event streams (`openStream`), so it is never `live` itself.
 */
/** The HTTP verb of an operation, for the wire log (`openStream` is the one GET). */
function wireVerb(operation: string): string {
  return operation === "event stream" ? "GET" : "POST";
}

export class HttpTransport implements Transport {
  readonly abortable = true;
  readonly live = false;
  readonly #options: HttpTransportOptions;
  readonly #fetch: typeof globalThis.fetch;
  readonly #url: string;
  readonly #bootstrapPosts = new BootstrapPosts();
  #connectionId: string | undefined;
  #bootstrapped = false;
  /** A POST went out: the server may hold this connection (and its agent) from now on. */
  #mayExist = false;
  #protocolVersion: string | undefined;
  /** Whether a logger listens (`debug`): only then are requests timed and logged. */
  readonly #wireLog: boolean;
  /** Spread into every fetch init: `credentials`, when configured. */
  readonly #init: RequestInit;
  /** See #reusablePostHeaders. */
  #postHeaders:
    | { connectionId: string | undefined; protocolVersion: string | undefined; record: Record<string, string> }
    | undefined;

  constructor(options: HttpTransportOptions) {
    // The user's headers are read here, once (checked, then copied): every request carries the same
    // ones, whatever becomes of the caller's object, so a POST's merged headers can be reused.
    this.#options = options.headers ? { ...options, headers: { ...options.headers } } : options;
    this.#connectionId = options.connectionId;
    this.#wireLog = options.logger !== silentLogger;
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

  /** Nothing stays open between requests: the connection's close is the DELETE (`delete`). */
  close(): void {}

  /** POSTs one envelope; resolves with the answer body once the server accepted it (2xx). */
  async send(
    body: string,
    operation: string,
    signal: AbortSignal | undefined,
    extraHeaders: Record<string, string> = {},
  ): Promise<PostResult> {
    const headers =
      this.#reusablePostHeaders(extraHeaders) ??
      (await this.#headers({ "content-type": "application/json", accept: "application/json", ...extraHeaders }));
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
    // Awaited, not returned: an async function resolved with a promise takes two more jobs per POST.
    return await readPostAnswer(response, this.#options.maxMessageBytes, operation);
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
   * included). A POST still creating the connection is aborted at once (a close must not leave a
   * request running, nor make its caller wait for an answer it no longer wants); the abort
   * settles it at once, and an answer whose headers had come already (its connection id arrived
   * anyway) is learned, so the DELETE that follows names the connection. Each DELETE is bounded
   * by `timeoutMs`, because some servers hold it open until the agent process exits; abandoning
   * it is what lets them proceed. Errors are logged, not thrown.
   *
   * A server may go on creating the connection an aborted POST asked for, and a DELETE sent
   * meanwhile finds nothing. Nothing on this protocol tells when such a creation is over; a layer
   * that knows the server's contract can settle it after the close.
   */
  async delete(timeoutMs: number, extraHeaders: Record<string, string> = {}): Promise<void> {
    if (!this.#mayExist) return;
    this.#bootstrapPosts.abortAll();
    await this.#bootstrapPosts.answered(timeoutMs);
    await this.#sendDelete(timeoutMs, extraHeaders);
  }

  async #sendDelete(timeoutMs: number, extraHeaders: Record<string, string>): Promise<void> {
    try {
      const headers = await this.#headers(extraHeaders);
      const response = await withDeadline(timeoutMs, (signal) =>
        this.#fetch(this.#url, { ...this.#init, method: "DELETE", headers, signal }),
      );
      this.#learnConnectionId(response);
      this.#options.logger.debug("DELETE (close)", { status: response.status, connectionId: this.#connectionId });
      if (!response.ok && response.status !== 404)
        this.#options.logger.warn("close: unexpected status", { status: response.status });
      await response.body?.cancel().catch(() => undefined);
    } catch (error) {
      // Some servers hold the DELETE until the agent exits, and the agent exits once the DELETE is
      // let go: on those, not waiting is how a clean close ends, not a failure.
      if ((error as Error).name === "TimeoutError") {
        this.#options.logger.debug("DELETE (close) sent; its answer not awaited", { afterMs: timeoutMs });
      } else {
        this.#options.logger.debug("DELETE (close) failed", { error: (error as Error).message });
      }
    }
  }

  async #send(operation: string, signal: AbortSignal | undefined, send: () => Promise<Response>): Promise<Response> {
    let response: Response;
    // The wire log (`debug: true`): one line per request with its answer's status and time. Off,
    // the hot path pays one comparison.
    const started = this.#wireLog ? performance.now() : 0;
    if (this.#wireLog) {
      this.#options.logger.debug(`${wireVerb(operation)} ${operation}`, { connectionId: this.#connectionId });
    }
    try {
      response = await send();
    } catch (error) {
      if (this.#wireLog) this.#logRequest(operation, undefined, started, error);
      // Whatever a fetch throws once its signal is aborted is the abort, not a network failure.
      if (signal?.aborted || isAbort(error)) throw error;
      throw new AcpNetworkError(operation, error);
    }
    if (this.#wireLog) this.#logRequest(operation, response.status, started);
    this.#learnConnectionId(response);
    return response;
  }

  /** The answer's line of the wire log: its status (or why there is none) and the time it took. */
  #logRequest(operation: string, status: number | undefined, started: number, error?: unknown): void {
    const ms = Math.round(performance.now() - started);
    const outcome = status !== undefined ? { status } : { error: (error as Error | undefined)?.message };
    this.#options.logger.debug(`${wireVerb(operation)} ${operation} answered`, { ...outcome, ms });
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
    const headers = this.#merged(await resolveToken(this.#options.token), own);
    this.#options.cookies?.apply(headers);
    return headers;
  }

  #merged(token: string | undefined, own: Record<string, string>): Headers {
    const connection = this.#connectionId ? { [this.#options.connectionIdHeader]: this.#connectionId } : {};
    const { protocolVersionHeader } = this.#options;
    const version =
      protocolVersionHeader && this.#protocolVersion ? { [protocolVersionHeader]: this.#protocolVersion } : {};
    return mergeHeaders({ user: this.#options.headers, token, own: { ...own, ...version, ...connection } });
  }

  /**
   * The headers of a plain POST (a static token or none, no extra headers, no cookie to add) as a
   * fresh copy of a record merged once per connection id and protocol version; undefined when this
   * POST needs the general path (#headers). Merging a `Headers` per request (validated, then sorted
   * by fetch to copy it) and awaiting the token cost a few µs of every round trip.
   */
  #reusablePostHeaders(extraHeaders: Record<string, string>): Record<string, string> | undefined {
    const { token, cookies } = this.#options;
    if (typeof token === "function" || !isEmpty(extraHeaders)) return undefined;
    if (cookies && !(cookies instanceof MemoryCookieStore && cookies.size === 0)) return undefined;
    let cached = this.#postHeaders;
    if (!cached || cached.connectionId !== this.#connectionId || cached.protocolVersion !== this.#protocolVersion) {
      const merged = this.#merged(token === "" ? undefined : token, POST_HEADERS);
      const record: Record<string, string> = {};
      for (const [name, value] of merged) record[name] = value;
      cached = this.#postHeaders = { connectionId: this.#connectionId, protocolVersion: this.#protocolVersion, record };
    }
    // A copy: a fetch wrapper may add to the headers it is given.
    return { ...cached.record };
  }
}

/** A POST's own headers, before the protocol version and the connection id. */
const POST_HEADERS: Record<string, string> = { "content-type": "application/json", accept: "application/json" };

function isEmpty(record: Record<string, string>): boolean {
  for (const _ in record) return false;
  return true;
}

/** Turns a non-2xx response into the error the caller of `operation` sees. */
export async function toHttpError(operation: string, response: Response): Promise<AcpHttpError> {
  const { problem, bodyText } = await readHttpProblem(response);
  return new AcpHttpError(operation, response, problem, bodyText);
}

export interface PostResult {
  status: number;
  /** The response body when it is a JSON payload; undefined for 202 and empty bodies. */
  json: string | undefined;
  /**
   * Set when the body exceeded `maxMessageBytes` (the bytes read when it went past, the rest unread,
   * and its first KiB): `json` is then undefined.
   */
  tooLarge?: { bytes: number; head: string };
}

/** How much of an oversized answer `PostResult.tooLarge` keeps. */
const TOO_LARGE_HEAD_CHARS = 1024;

/**
 * Reads a 2xx POST answer: its body is the JSON-RPC payload when it is JSON (a 200 counts
 * as JSON whatever its content type says), nothing for 202 and empty bodies, and only a
 * size and a head when it is over `limit` (such a body is not parsed). A body cut short is an
 * `AcpNetworkError` (an abort stays the abort).
 */
export async function readPostAnswer(
  response: Response,
  limit: number | undefined,
  operation: string,
): Promise<PostResult> {
  // 202 carries no payload (the answer comes on a stream), so its body is not awaited: some servers end
  // it late (the official SDK's Node adapter over HTTP/2 ends a prompt's 202 with the turn).
  if (response.status === 202) {
    if (response.body) letGo(response.body);
    return { status: 202, json: undefined };
  }
  let text: string;
  try {
    // Read through a byte count: an answer that never ends stops at the limit instead of growing.
    const body = await readBounded(response, limit ?? Number.POSITIVE_INFINITY, TOO_LARGE_HEAD_CHARS * 4);
    if (body.over !== undefined) {
      const head = body.text.slice(0, TOO_LARGE_HEAD_CHARS);
      return { status: response.status, json: undefined, tooLarge: { bytes: body.over, head } };
    }
    text = body.text;
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new AcpNetworkError(operation, error);
  }
  // A 200's body counts whatever its content type: the header (a `Headers.get`, about 1,000 instructions
  // per POST) is read only for the other statuses.
  const json = text.length > 0 && (response.status === 200 || isJson(response)) ? text : undefined;
  return { status: response.status, json };
}

function isJson(response: Response): boolean {
  return /json/i.test(response.headers.get("content-type") ?? "");
}

const ignore = (): undefined => undefined;

/**
 * Lets a 202's body go without awaiting it. Cancelling a body undici has not seen the end of also
 * destroys its keep-alive socket, and an empty body's end is often a packet behind its headers (on
 * loopback, one POST in ten then cost a new connection): a body not over at once gets one timer tick
 * to end before it is cancelled. One with content, or still open after that tick, is cancelled.
 */
function letGo(body: ReadableStream<Uint8Array>): void {
  const reader = body.getReader();
  let over = false;
  const cancel = (): void => void reader.cancel().catch(ignore);
  const end = (done: boolean): void => {
    over = true;
    if (!done) cancel();
  };
  void reader.read().then(({ done }) => end(done), () => end(true));
  // A body already over has settled its read before this microtask runs: no timer for it.
  queueMicrotask(() => void (over || setTimeout(() => over || cancel(), 0)));
}

interface InFlight {
  /** Settles once the server answered (or the fetch failed); never rejects. */
  readonly done: Promise<void>;
  abort(): void;
}

/**
 * POSTs sent before the server knew the connection. A server creates the connection (and
 * on some servers spawns the agent process) when such a POST arrives, whether or not the
 * client is still waiting for the answer, so aborting one must not lose track of it: the
 * caller's abort rejects the call at once, but the request itself keeps going until the
 * server has answered (or the connection closes, which aborts it at once), and an answer that
 * comes after the caller left still tells the connection id, so the close's DELETE can name it.
 */
export class BootstrapPosts {
  /** Only while such a POST is out: made for it and let go with the last (an idle connection keeps none). */
  #inFlight: Set<InFlight> | undefined;

  /**
   * Sends through `send` with a signal of its own. `signal` (the caller's) rejects the
   * returned promise with its reason; the request goes on and `onLateAnswer` sees its
   * response, whose body is then released.
   */
  send(
    signal: AbortSignal | undefined,
    send: (signal: AbortSignal) => Promise<Response>,
    onLateAnswer: (response: Response) => void,
  ): Promise<Response> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const own = new AbortController();
    const sent = send(own.signal);
    let detached = false;
    const entry: InFlight = {
      done: sent.then(
        (response) => {
          if (!detached) return;
          onLateAnswer(response);
          void response.body?.cancel().catch(() => undefined);
        },
        () => undefined,
      ),
      abort: () => own.abort(),
    };
    const inFlight = (this.#inFlight ??= new Set());
    inFlight.add(entry);
    void entry.done.finally(() => {
      inFlight.delete(entry);
      if (inFlight.size === 0 && this.#inFlight === inFlight) this.#inFlight = undefined;
    });
    return new Promise<Response>((resolve, reject) => {
      const onAbort = (): void => {
        detached = true;
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      sent.then(
        (response) => {
          signal?.removeEventListener("abort", onAbort);
          if (!detached) resolve(response);
        },
        (error: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          if (!detached) reject(error);
        },
      );
    });
  }

  /** Whether a POST that may create the connection is still waiting for its answer. */
  get pending(): boolean {
    return this.#inFlight !== undefined && this.#inFlight.size > 0;
  }

  /** Waits up to `timeoutMs` for every such POST to be answered; true when all were. */
  async answered(timeoutMs: number): Promise<boolean> {
    if (!this.#inFlight || this.#inFlight.size === 0) return true;
    const all = Promise.all([...this.#inFlight].map((entry) => entry.done)).then(() => true);
    let cancel: () => void = () => undefined;
    const deadline = new Promise<boolean>((resolve) => {
      // Unref'd: waiting for a late answer must never keep a process alive on its own.
      cancel = startDeadline(timeoutMs, () => resolve(false), { unref: true });
    });
    const result = await Promise.race([all, deadline]);
    cancel();
    return result;
  }

  /** Gives up on every such POST. */
  abortAll(): void {
    for (const entry of this.#inFlight ?? []) entry.abort();
  }
}

/**
 * Affinity cookies for one connection. The ACP transport RFD wants a remote client to
 * accept, store and return cookies for the whole connection, so that a load balancer's
 * sticky-session cookie routes every POST, GET, DELETE and WebSocket upgrade to the same
 * backend. Only `name=value` is kept: this is routing state, not a browser cookie jar
 * (no domain or path matching, no `Secure`/`HttpOnly`/`SameSite`); a cookie the server
 * expires (`Max-Age` <= 0 or an `Expires` in the past) is forgotten.
 *
 * The method names match `AcpCookieStore` of `@agentclientprotocol/sdk`, so a store of
 * either library can be passed to the other.
 */
export interface AcpCookieStore {
  /** Takes the `Set-Cookie` headers of a response (or of a WebSocket 101). */
  store(headers: Headers): void;
  /** Adds the stored cookies to a request's `Cookie` header (cookies already there win). */
  apply(headers: Headers): void;
  /** Forgets every cookie. */
  clear(): void;
}

/** Shared by every store that has none yet: only read. */
const NO_COOKIES: ReadonlyMap<string, string> = new Map();

/** An in-memory {@link AcpCookieStore}: the default in Node, where fetch keeps no cookies. */
export class MemoryCookieStore implements AcpCookieStore {
  /** Made with the first cookie: most servers set none (an empty Map costs each connection ~150 bytes). */
  #cookies: Map<string, string> | undefined;

  store(headers: Headers): void {
    for (const line of setCookieLines(headers)) {
      const cookie = parseSetCookie(line);
      if (!cookie) continue;
      if (cookie.expired) this.#cookies?.delete(cookie.name);
      else (this.#cookies ??= new Map()).set(cookie.name, cookie.value);
    }
  }

  apply(headers: Headers): void {
    const header = mergeCookieHeader(headers.get("cookie"), this.#cookies ?? NO_COOKIES);
    if (header !== undefined) headers.set("cookie", header);
  }

  clear(): void {
    this.#cookies?.clear();
  }

  /** How many cookies are stored (for tests and diagnostics; values are never exposed). */
  get size(): number {
    return this.#cookies?.size ?? 0;
  }

  /** Names only: cookie values may be credentials and must not reach logs. */
  toString(): string {
    return `MemoryCookieStore(${[...(this.#cookies?.keys() ?? [])].join(", ")})`;
  }
}

/**
 * The store to use when the caller gave none: in-memory where the runtime keeps no
 * cookies (Node, Deno, Bun), none in a browser, whose fetch (`credentials: "include"`)
 * and WebSocket already use the page's cookie jar and hide `Set-Cookie` from scripts.
 */
export function defaultCookieStore(): AcpCookieStore | undefined {
  return "document" in globalThis ? undefined : new MemoryCookieStore();
}

/** Headers as a `Headers`, from a plain record such as Node's `IncomingMessage.headers`. */
export function headersFrom(record: Readonly<Record<string, string | string[] | undefined>>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return headers;
}

interface ParsedCookie {
  name: string;
  value: string;
  expired: boolean;
}

function setCookieLines(headers: Headers): string[] {
  if (typeof headers.getSetCookie === "function") return headers.getSetCookie();
  const joined = headers.get("set-cookie");
  // Without getSetCookie the lines come joined by ", ": split only where a new name= starts
  // (an Expires date holds a comma too).
  return joined ? joined.split(/,(?=\s*[^;,=\s]+=)/) : [];
}

function parseSetCookie(line: string): ParsedCookie | undefined {
  const [pair = "", ...attributes] = line.split(";");
  const equals = pair.indexOf("=");
  if (equals <= 0) return undefined;
  const name = pair.slice(0, equals).trim();
  const value = pair.slice(equals + 1).trim();
  if (!name) return undefined;
  return { name, value, expired: isExpired(attributes) };
}

function isExpired(attributes: string[]): boolean {
  for (const attribute of attributes) {
    const equals = attribute.indexOf("=");
    const key = (equals < 0 ? attribute : attribute.slice(0, equals)).trim().toLowerCase();
    const value = equals < 0 ? "" : attribute.slice(equals + 1).trim();
    // Max-Age wins over Expires when both are present (RFC 6265 §5.3).
    if (key === "max-age" && /^-?\d+$/.test(value)) return Number(value) <= 0;
  }
  for (const attribute of attributes) {
    const [key = "", ...rest] = attribute.split("=");
    if (key.trim().toLowerCase() !== "expires") continue;
    const when = Date.parse(rest.join("=").trim());
    if (!Number.isNaN(when)) return when <= Date.now();
  }
  return false;
}

function mergeCookieHeader(existing: string | null, cookies: ReadonlyMap<string, string>): string | undefined {
  if (cookies.size === 0) return undefined;
  const present = new Set(
    (existing ?? "")
      .split(";")
      .map((pair) => pair.split("=")[0]?.trim())
      .filter(Boolean),
  );
  const added = [...cookies].filter(([name]) => !present.has(name)).map(([name, value]) => `${name}=${value}`);
  if (added.length === 0) return undefined;
  return existing ? `${existing}; ${added.join("; ")}` : added.join("; ");
}
