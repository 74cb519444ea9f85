/**
 * An in-memory ACP streamable HTTP server, injected into a client as its `fetch`.
 *
 * Tests script the answer to every POST, GET and DELETE, and drive each open event
 * stream by hand: bytes in any chunking, a clean end, or a read error. Like a real
 * `fetch`, a call whose signal is already aborted never reaches the server, and
 * aborting a call rejects it (or errors its body once the headers are in). Nothing
 * here touches the network.
 */

/** One request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string;
  readonly signal: AbortSignal;
}

export type FakeHandler = (request: RecordedRequest) => Response | Promise<Response>;

export interface FakeAcpServerOptions {
  /** Put on every POST answer under `connectionIdHeader` (as servers that issue ids do). */
  connectionId?: string;
  connectionIdHeader?: string;
}

const encoder = new TextEncoder();

/** The server side of one open GET event stream. */
export class FakeSseStream {
  readonly request: RecordedRequest;
  readonly response: Response;
  /** Settles when the stream is over for any reason: ended, errored, aborted or cancelled by the client. */
  readonly finished: Promise<void>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = true;
  #finish!: () => void;

  constructor(request: RecordedRequest, headers: HeadersInit) {
    this.request = request;
    this.finished = new Promise((resolve) => (this.#finish = resolve));
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#close(),
    });
    this.response = new Response(body, { status: 200, headers });
    const onAbort = () => this.error(request.signal.reason);
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener("abort", onAbort, { once: true });
  }

  /** False once the stream is over; pushes are then ignored, as a closed socket would drop them. */
  get isOpen(): boolean {
    return this.#open;
  }

  /** Writes raw bytes (a string is UTF-8 encoded). Returns whether the stream was still open. */
  push(chunk: string | Uint8Array): boolean {
    if (!this.#open) return false;
    this.#controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    return true;
  }

  /** Writes one `message` event carrying `payload` as JSON. */
  send(id: number | string | undefined, payload: unknown): boolean {
    return this.push(sseEvent({ id: id === undefined ? undefined : String(id), data: JSON.stringify(payload) }));
  }

  /** Ends the body cleanly (EOF). */
  end(): void {
    if (!this.#open) return;
    this.#controller.close();
    this.#close();
  }

  /** Fails the body's next read, as a reset connection does. */
  error(reason: unknown = new TypeError("terminated")): void {
    if (!this.#open) return;
    this.#controller.error(reason);
    this.#close();
  }

  #close(): void {
    this.#open = false;
    this.#finish();
  }
}

export class FakeAcpServer {
  readonly requests: RecordedRequest[] = [];
  readonly streams: FakeSseStream[] = [];
  readonly connectionIdHeader: string;
  connectionId: string | undefined;

  onPost: FakeHandler = () => accepted();
  onGet: FakeHandler = (request) => this.openStream(request).response;
  onDelete: FakeHandler = () => new Response(null, { status: 204 });

  /** The `fetch` to hand to the client. */
  readonly fetch: typeof globalThis.fetch = (input, init) => this.#handle(input, init);

  readonly #waiters = new Set<() => void>();

  constructor(options: FakeAcpServerOptions = {}) {
    this.connectionId = options.connectionId;
    this.connectionIdHeader = options.connectionIdHeader ?? "x-acp-connection-id";
  }

  /** Opens an event stream for a GET (the default GET answer); use it in a custom `onGet`. */
  openStream(request: RecordedRequest, headers: HeadersInit = { "content-type": "text/event-stream" }): FakeSseStream {
    const stream = new FakeSseStream(request, headers);
    this.streams.push(stream);
    this.#notify();
    return stream;
  }

  requestsOf(method: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method);
  }

  /** Resolves with the n-th (1-based) request of that method, once it has arrived. */
  request(method: string, n = 1): Promise<RecordedRequest> {
    return this.until(() => this.requestsOf(method)[n - 1]);
  }

  /** Resolves with the n-th (1-based) event stream, once it is open. */
  stream(n = 1): Promise<FakeSseStream> {
    return this.until(() => this.streams[n - 1]);
  }

  /** Resolves with `probe()`'s value as soon as it is defined, checked after every request. */
  until<T>(probe: () => T | undefined): Promise<T> {
    const now = probe();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const check = () => {
        const value = probe();
        if (value === undefined) return;
        this.#waiters.delete(check);
        resolve(value);
      };
      this.#waiters.add(check);
    });
  }

  async #handle(input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response> {
    const request = input instanceof Request ? input : new Request(input, init);
    const signal = request.signal;
    // Like fetch: an aborted signal fails the call before anything is sent.
    if (signal.aborted) throw signal.reason;
    const body = await request.text();
    const recorded: RecordedRequest = { method: request.method, url: new URL(request.url), headers: request.headers, body, signal };
    this.requests.push(recorded);
    this.#notify();
    const handler = recorded.method === "POST" ? this.onPost : recorded.method === "GET" ? this.onGet : recorded.method === "DELETE" ? this.onDelete : undefined;
    const answer = handler ? Promise.resolve().then(() => handler(recorded)) : Promise.resolve(new Response(null, { status: 405 }));
    const response = await raceAbort(answer, signal);
    if (recorded.method === "POST" && this.connectionId !== undefined && !response.headers.has(this.connectionIdHeader)) {
      response.headers.set(this.connectionIdHeader, this.connectionId);
    }
    return response;
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

// --- answers ---------------------------------------------------------------------

export function jsonResponse(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), { status: init.status ?? 200, headers: { "content-type": "application/json", ...init.headers } });
}

/** A 200 whose body is the JSON-RPC result for `id`. */
export function rpcResult(id: unknown, result: unknown, headers?: Record<string, string>): Response {
  return jsonResponse({ jsonrpc: "2.0", id, result }, headers ? { headers } : {});
}

/** 202 with an empty body: the envelope was accepted, any answer comes on the stream. */
export function accepted(headers?: Record<string, string>): Response {
  return new Response(null, { status: 202, ...(headers ? { headers } : {}) });
}

export function problemResponse(status: number, problem: Record<string, unknown>): Response {
  return new Response(JSON.stringify(problem), { status, headers: { "content-type": "application/problem+json" } });
}

export function textResponse(status: number, text: string, contentType = "text/plain"): Response {
  return new Response(text, { status, headers: { "content-type": contentType } });
}

/** A connection that fails before any answer (refused, reset), as fetch reports it. */
export function networkFailure(message = "fetch failed"): Promise<Response> {
  return Promise.reject(new TypeError(message));
}

/** An answer that never comes (the caller can still abort it). */
export function never(): Promise<Response> {
  return new Promise<Response>(() => undefined);
}

/** One SSE event in LF framing. */
export function sseEvent(event: { id?: string | undefined; event?: string; data: string }): string {
  let text = "";
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  for (const line of event.data.split("\n")) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** The body of a recorded POST as a JSON object. */
export function bodyOf(request: RecordedRequest): Record<string, unknown> {
  const parsed: unknown = JSON.parse(request.body);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`not a JSON object: ${request.body}`);
  return parsed as Record<string, unknown>;
}

/** A promise with its settle functions, for answers a test releases by hand. */
export class Deferred<T> {
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (reason: unknown) => void;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}
