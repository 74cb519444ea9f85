import type { AcpLogger } from "../internal/logger.js";
import { sessionOf, type JsonRpcId } from "./envelope.js";
import { AcpConnectionClosedError, AcpHttpError, AcpInterruptedError, AcpProtocolError } from "./errors.js";
import type { HttpTransport, PostResult } from "./http-transport.js";
import { requestIdOf, takeBody, type Inbound, type SentEnvelope } from "./json-rpc.js";
import type { SessionStreams } from "./session-streams.js";
import type { WebSocketTransport } from "./ws-transport.js";

const SENT = Promise.resolve(true);

/** How a send ended: false (failed, told to `onError`), true (accepted), `"answered"` (its POST's body held the answer). */
export type SendOutcome = boolean | "answered";

/** An envelope the connection sends: a request, a notification or an answer to the agent. */
export type Envelope = SentEnvelope & Record<string, unknown>;

/**
 * The connection as the outbox sees it: what it sends through, and what it is told about a send
 * that failed in a way that concerns the whole connection. `Connection` implements it.
 */
export interface OutboxOwner {
  readonly http: HttpTransport;
  /** Set for `transport: "websocket"`: every envelope goes out on it. */
  readonly socket: WebSocketTransport | undefined;
  readonly streams: SessionStreams;
  readonly inbound: Inbound;
  /** The connection's state: the first send moves it from `idle` to `connecting`. */
  readonly state: { readonly value: string; set(next: "connecting"): void };
  /** The server no longer knows the connection (404 after bootstrap); true when a recovery started. */
  lost(cause: unknown): boolean;
  /** Whether a POST's 404 says the connection is gone (rather than something the request named). */
  connectionGone(error: AcpHttpError): boolean;
  /** A POST for this session got 409: it is held elsewhere. */
  sessionConflict(sessionId: string, error: AcpHttpError): void;
  /** The server refused our credentials (401/403) on a live connection: it is over. */
  unauthorized(cause: AcpHttpError): void;
}

/** The outbox's settings (plain values, resolved once by the client). */
export interface OutboxSettings {
  readonly maxMessageBytes: number;
  /** Aborted when the connection closes: answers and `$/cancel_request` are bound to it. */
  readonly lifetime: AbortSignal;
  readonly logger: AcpLogger;
  /** With it, a pending request given up (aborted, timed out) tells the agent (`$/cancel_request`). */
  readonly cancelRequests: boolean;
  /** The token is a function: a refused one may be replaced by asking it again. */
  readonly refreshableToken: boolean;
}

/**
 * Everything the connection sends goes out here, on the WebSocket or as a POST; a POST's
 * body (an answer, or a batch of them) is handed to the inbound. Failures are sorted into
 * what the connection must do about them (recover, fail a session) and what the caller gets.
 */
export class Outbox {
  readonly #owner: OutboxOwner;
  readonly #settings: OutboxSettings;

  constructor(owner: OutboxOwner, settings: OutboxSettings) {
    this.#owner = owner;
    this.#settings = settings;
  }

  /**
   * Sends one envelope; failures go to `onError`. Resolves true once the server accepted it
   * (`"answered"` when the POST's body held an answer, which has then been handed to the inbound).
   * `sessionId` routes an envelope without params (an answer to the agent) to its session.
   */
  post(
    envelope: Envelope,
    method: string,
    signal: AbortSignal | undefined,
    onError: (error: unknown) => void,
    deferStream = false,
    sessionId?: string,
  ): Promise<SendOutcome> {
    const { socket, state } = this.#owner;
    if (state.value === "idle") state.set("connecting");
    if (!socket) return this.#postHttp(envelope, method, signal, onError, deferStream, sessionId);
    // A frame on an open socket goes out synchronously: no async function, one shared promise.
    try {
      const body = JSON.stringify(envelope);
      if (socket.sendNow(body, method)) return SENT;
      return socket.send(body, method).then(
        () => true,
        (error: unknown) => this.#failed(error, envelope, method, signal, onError, sessionId),
      );
    } catch (error) {
      return Promise.resolve(this.#failed(error, envelope, method, signal, onError, sessionId));
    }
  }

  async #postHttp(
    envelope: Envelope,
    method: string,
    signal: AbortSignal | undefined,
    onError: (error: unknown) => void,
    deferStream: boolean,
    sessionId: string | undefined,
  ): Promise<SendOutcome> {
    const { http, streams, inbound } = this.#owner;
    try {
      const headers = streams.headersFor(envelope.params ?? (sessionId === undefined ? undefined : { sessionId }));
      const result = await this.#postAuthorized(JSON.stringify(envelope), method, signal, headers);
      if (!deferStream || result.json === undefined) streams.openConnection();
      if (result.tooLarge) {
        const { bytes, head } = result.tooLarge;
        onError(inbound.tooLarge("response-body", head, bytes, this.#settings.maxMessageBytes));
        return true;
      }
      if (result.json !== undefined) {
        const verdict = takeBody(inbound, result.json, envelope);
        // A body is the answer the server chose to give: one that is not this request's answer means
        // none will come (and `initialize` opens no stream to bring one), so the request fails now.
        const request = requestIdOf(envelope);
        if (verdict === "unparseable" && "id" in envelope) onError(notAnAnswer(method, "was not a JSON-RPC envelope"));
        else if (verdict === "mismatched" && request !== undefined) onError(notAnAnswer(method, `holds a response to another id than the request's (${JSON.stringify(request)})`));
        else if (verdict === "other" && request !== undefined) onError(notAnAnswer(method, "held no JSON-RPC response"));
      }
      return result.json === undefined ? true : "answered";
    } catch (error) {
      return this.#failed(error, envelope, method, signal, onError, sessionId);
    }
  }

  /**
   * One POST. With a token function, a 401/403 on a live connection asks it once more (it is
   * asked before every request) and re-POSTs once: a refused request was not processed, so
   * sending it again is safe. A static token cannot change, so it gets no second try.
   */
  async #postAuthorized(
    body: string,
    method: string,
    signal: AbortSignal | undefined,
    headers: Record<string, string>,
  ): Promise<PostResult> {
    const { http } = this.#owner;
    try {
      return await http.post(body, method, signal, headers);
    } catch (error) {
      if (!this.#settings.refreshableToken || !isRefusal(error) || !http.bootstrapped || signal?.aborted) throw error;
      this.#settings.logger.debug("credentials refused: asking the token function again, one retry", {
        method,
        status: error.status,
      });
      return http.post(body, method, signal, headers);
    }
  }

  /** Sorts a failed send: recover on a lost connection, close on refused credentials, fail a session on 409; false always. */
  #failed(
    error: unknown,
    envelope: Envelope,
    method: string,
    signal: AbortSignal | undefined,
    onError: (error: unknown) => void,
    sessionId: string | undefined,
  ): boolean {
    if (signal?.aborted) return false;
    const gone = error instanceof AcpHttpError && error.status === 404 && this.#owner.connectionGone(error);
    if (gone && this.#owner.http.bootstrapped) {
      const recovering = this.#owner.lost(error);
      onError(
        recovering
          ? new AcpInterruptedError(method, error)
          : new AcpConnectionClosedError("connection-lost", { method, cause: error }),
      );
      return false;
    }
    if (isRefusal(error) && this.#owner.http.bootstrapped) {
      // The credentials are no good any more (a token function, if any, was asked again): every
      // later request would be refused too, so the connection ends and what is pending fails.
      onError(new AcpConnectionClosedError("unauthorized", { method, cause: error }));
      this.#owner.unauthorized(error);
      return false;
    }
    if (error instanceof AcpHttpError && error.status === 409) {
      const session = sessionOf(envelope.params) ?? sessionId;
      if (session !== undefined) this.#owner.sessionConflict(session, error);
    }
    onError(error);
    return false;
  }

  /** Delivers an answer to the agent's request; a failure is logged, not thrown. */
  answer(answer: Envelope, method: string, sessionId: string | undefined): Promise<SendOutcome> {
    const { logger, lifetime } = this.#settings;
    const onError = (error: unknown) =>
      logger.warn("could not deliver an answer to the agent", { method, error: (error as Error).message });
    return this.post(answer, `answer to ${method}`, lifetime, onError, false, sessionId);
  }

  /**
   * With `cancelRequests`, tells the agent that the caller gave up pending request `id` (aborted,
   * or past its deadline), so it can stop working on it. Best effort: a failure is only logged.
   */
  cancelRequest(id: JsonRpcId): void {
    if (!this.#settings.cancelRequests || this.#settings.lifetime.aborted) return;
    const envelope = { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: id } };
    void this.post(envelope, "$/cancel_request", this.#settings.lifetime, (error) =>
      this.#settings.logger.debug("could not send $/cancel_request", { error: (error as Error).message }),
    );
  }
}

/** A request's POST body that is not its answer. */
function notAnAnswer(method: string, what: string): AcpProtocolError {
  return new AcpProtocolError(`the response body ${what}`, { method });
}

/** A 401 or 403: the server refused the credentials the request carried. */
export function isRefusal(error: unknown): error is AcpHttpError {
  return error instanceof AcpHttpError && (error.status === 401 || error.status === 403);
}
