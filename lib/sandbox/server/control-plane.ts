import ky, { type KyInstance } from "ky";
import * as v from "valibot";
import type { TokenSource } from "../../acp-http/index.js";
import { linkSignal, startDeadline, normalizeTimeout } from "../../internal/abort.js";
import { mergeHeaders, resolveToken, joinUrl, readHttpProblem, type QueryValues } from "../../internal/http.js";
import { CallTimeoutError, SandboxAgentHttpError, SandboxAgentError } from "../errors.js";
import { credentialsReading, toSandboxError, unreachable } from "../error-mapping.js";
import { stoppedBy } from "../deadline.js";
import { callToken } from "./call-token.js";
import type { Logger } from "../call-options.js";

export interface HttpSettings {
  baseUrl: string;
  token: TokenSource | undefined;
  headers: Record<string, string> | undefined;
  fetch: typeof globalThis.fetch | undefined;
  /** Told of each request and its answer's status (the client's `debug`); absent: nothing is logged. */
  logger?: Logger | undefined;
}

export type HttpMethod = "get" | "put" | "post" | "delete";

export interface ControlRequest {
  query?: QueryValues;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  /** More request headers (names case-insensitive); `content-type` and the token still win. */
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /**
   * A deadline for this request, body included for `json` and `bytes` (for `send`, until the
   * response headers). None by default; 2^31 − 1 or more means none; negative or NaN: TypeError.
   */
  timeoutMs?: number | undefined;
}

/** A whole 2xx answer, body read within the call's bound (`ControlPlaneHttp.read`). */
export interface HttpAnswer {
  status: number;
  /** The `content-type` header, when the server sent one. */
  contentType: string | undefined;
  bytes: Uint8Array;
}

/** One request to a control-plane route: auth, error mapping and result validation in one place. */
export class ControlPlaneHttp {
  readonly #settings: HttpSettings;
  readonly #ky: KyInstance;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
    this.#ky = ky.create({
      retry: 0,
      timeout: false,
      throwHttpErrors: false,
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    });
  }

  /**
   * Sends one request; returns the raw 2xx response (the caller reads the body: the
   * call's signal still aborts that read, its `timeoutMs` no longer does). Read or cancel
   * the body: the link to the call's signal is dropped when the body ends.
   */
  send(operation: string, method: HttpMethod, path: string, init: ControlRequest = {}): Promise<Response> {
    return this.#exchange(operation, method, path, init, async (response) => response, true);
  }

  /** Sends one request and validates its JSON body; `timeoutMs` covers the body too. */
  json<T>(
    operation: string,
    schema: v.GenericSchema<unknown, T>,
    method: HttpMethod,
    path: string,
    init: ControlRequest = {},
  ): Promise<T> {
    return this.#exchange(operation, method, path, init, async (response) => {
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (error) {
        throw new SandboxAgentError(`${operation}: the response was not JSON`, { cause: error, kind: "protocol" });
      }
      return validate(operation, schema, body);
    });
  }

  /** Sends one request and reads its whole body as bytes; `timeoutMs` covers the body too. */
  async bytes(operation: string, method: HttpMethod, path: string, init: ControlRequest = {}): Promise<Uint8Array> {
    return (await this.read(operation, method, path, init)).bytes;
  }

  /**
   * Sends one request and reads its whole 2xx answer: status, content type and body bytes. The
   * call's `timeoutMs` and signal cover the body too (a server that sends the headers and then
   * stalls the body must not hold the call past its bound, as `send`'s caller's own read would).
   */
  read(operation: string, method: HttpMethod, path: string, init: ControlRequest = {}): Promise<HttpAnswer> {
    return this.#exchange(operation, method, path, init, async (response) => ({
      status: response.status,
      contentType: response.headers.get("content-type") ?? undefined,
      bytes: new Uint8Array(await response.arrayBuffer()),
    }));
  }

  /** The absolute URL of a route (for clients that open their own sockets, e.g. a WebSocket). */
  url(path: string, query?: QueryValues): string {
    return joinUrl(this.#settings.baseUrl, path, query);
  }

  /** The headers a request to the server carries now: the user's, then the token's `authorization`. */
  async headers(own?: Record<string, string | undefined>): Promise<Headers> {
    return mergeHeaders({ user: this.#settings.headers, token: await resolveToken(this.#settings.token), own });
  }

  async #exchange<T>(
    operation: string,
    method: HttpMethod,
    path: string,
    init: ControlRequest,
    read: (response: Response) => Promise<T>,
    keepSignal = false,
  ): Promise<T> {
    const timeoutMs = normalizeTimeout(init.timeoutMs);
    const controller = new AbortController();
    const unlink = linkSignal(init.signal, controller);
    let timedOut = false;
    const stopDeadline = startDeadline(timeoutMs, () => {
      timedOut = true;
      controller.abort();
    });
    let handedOver = false;
    const { logger } = this.#settings;
    const started = logger ? performance.now() : 0;
    try {
      const headers = await this.#requestHeaders(operation, init, controller.signal);
      const response = await this.#ky(this.url(path, init.query), {
        method,
        headers,
        ...(init.json !== undefined ? { json: init.json } : {}),
        ...(init.body !== undefined ? { body: init.body } : {}),
        signal: controller.signal,
      }).catch((error: unknown) => {
        logger?.debug(`${method.toUpperCase()} ${path}`, { operation, error: (error as Error).message });
        throw error;
      });
      const ms = Math.round(performance.now() - started);
      logger?.debug(`${method.toUpperCase()} ${path}`, { operation, status: response.status, ms });
      if (!response.ok) {
        const { problem, bodyText } = await readHttpProblem(response);
        const error = new SandboxAgentHttpError(operation, response.status, problem, bodyText);
        throw credentialsReading(error, this.#settings);
      }
      // The caller reads the body of a raw response later: its signal must still reach that read,
      // and the link must go once the body is over (a signal shared by many calls collects them).
      if (keepSignal) {
        handedOver = true;
        return await read(afterBody(response, unlink));
      }
      return await read(response);
    } catch (error) {
      if (timedOut) throw new CallTimeoutError(`${operation} timed out after ${timeoutMs} ms`, { cause: error });
      // A deadline made at the call's boundary aborts the signal with its CallTimeoutError.
      if (init.signal?.aborted) throw stoppedBy(init.signal.reason, operation);
      if (error instanceof SandboxAgentError) throw error;
      throw unreachable(operation, error, this.#settings.baseUrl);
    } finally {
      stopDeadline();
      if (!handedOver) unlink();
    }
  }

  /** The request's headers; the token is awaited within the call's `signal` (deadline and abort). */
  async #requestHeaders(operation: string, init: ControlRequest, signal: AbortSignal): Promise<Headers> {
    const contentType = init.contentType ?? (init.json !== undefined ? "application/json" : undefined);
    // Later entries win, case-insensitively: the call's headers over the client's configured ones.
    const user = [...Object.entries(this.#settings.headers ?? {}), ...Object.entries(init.headers ?? {})];
    const token = await callToken(this.#settings.token, operation, signal);
    try {
      return mergeHeaders({ user, token, own: { "content-type": contentType } });
    } catch (error) {
      throw toSandboxError(error, operation);
    }
  }
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * `response` with a body that calls `done` once when it ends, fails or is cancelled (at once
 * when there is no body).
 */
function afterBody(response: Response, done: () => void): Response {
  const body = response.body;
  // A Response cannot be rebuilt with a body for these statuses (fetch gives them none anyway).
  if (!body || NULL_BODY_STATUSES.has(response.status)) {
    done();
    return response;
  }
  const reader = body.getReader();
  const relay = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          done();
          controller.close();
        } else controller.enqueue(chunk.value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    async cancel(reason) {
      done();
      await reader.cancel(reason);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(relay, { status, statusText, headers });
}

export function validate<T>(operation: string, schema: v.GenericSchema<unknown, T>, value: unknown): T {
  const parsed = v.safeParse(schema, value);
  if (!parsed.success) {
    const issue = parsed.issues[0]?.message ?? "invalid";
    throw new SandboxAgentError(`${operation}: unexpected response shape: ${issue}`, { kind: "protocol" });
  }
  return parsed.output;
}
