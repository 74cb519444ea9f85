// Every envelope out: the one outbound interface (`Transport`, which the HTTP and WebSocket transports
// implement), the POST's answer body handed to the inbound, and what a failed send means.
import type { AcpLogger } from "../internal/logger.js";
import { sessionOf, type JsonRpcId } from "./envelope.js";
import {
  AcpConnectionClosedError,
  AcpHttpError,
  AcpInterruptedError,
  AcpProtocolError,
} from "./errors.js";
import { requestIdOf, takeBody, type Inbound, type SentEnvelope } from "./response-order.js";

/**
 * How an accepted send ended: `accepted` (nothing came back with it: a 202, an empty body, a socket
 * frame), `answered` (its POST's body held the answer, handed to the inbound). A send that failed
 * rejects instead, with the typed error: that is the one way a failure reaches the caller.
 */
export type SendOutcome = "accepted" | "answered";

/**
 * The outcome of every send that went out at once and came back empty (an open socket's frame): one
 * shared promise, which a caller may compare with to skip waiting on it (nothing can follow).
 */
export const SENT_AT_ONCE: Promise<SendOutcome> = Promise.resolve("accepted");

/** An envelope the connection sends: a request, a notification or an answer to the agent. */
export type Envelope = SentEnvelope & Record<string, unknown>;

/** One send: the envelope and how it goes out. */
export interface Send {
  readonly envelope: Envelope;
  /** What the send is called in errors and logs: the method, or `answer to <method>`. */
  readonly method: string;
  /**
   * Withdraws the send: a request's POST signal (from the correlator), or the connection's lifetime.
   * A send withdrawn so rejects with the signal's own `reason`: its caller already has its answer
   * (a call settled or given up, a closed connection), so no error is made for it.
   */
  readonly signal: AbortSignal | undefined;
  /** An answer in the POST body opens no event stream (the caller opens it once it has read the answer). */
  readonly deferStream?: boolean;
  /** Routes an envelope without params (an answer to the agent) to its session. */
  readonly sessionId?: string | undefined;
}

/** What a transport gives back for an accepted send: a POST's answer body, if any (a socket has none). */
export interface Sent {
  /** The answer body when it is a JSON payload; undefined for 202, empty bodies and socket frames. */
  readonly json: string | undefined;
  /** Set when the body exceeded `maxMessageBytes` (its size and head): `json` is then undefined. */
  readonly tooLarge?: { readonly bytes: number; readonly head: string } | undefined;
}

/**
 * The one interface between the connection and its transport on the way out, as `FrameSink` is on
 * the way in. The HTTP transport (`http-transport.ts`: one POST per envelope, its answer body read)
 * and the WebSocket transport (`ws-transport.ts`: one text frame per envelope) implement it;
 * `createTransports` (`connection.ts`) picks one, and nothing after that asks which it is.
 */
export interface Transport {
  /** The server's id for this connection, once known (over a WebSocket, from the 101 where it shows). */
  readonly connectionId: string | undefined;
  /** The server knows this connection (a send was accepted): a 404 or a refusal now concerns all of it. */
  readonly bootstrapped: boolean;
  /**
   * Each send is a request of its own that a signal withdraws (a POST): the correlator gives each
   * call a signal for it. A WebSocket frame is gone once sent, so no call needs one there.
   */
  readonly abortable: boolean;
  /**
   * Frames come back on this transport itself and it is open (a WebSocket): the connection is live
   * without an event stream. False over HTTP, whose frames come on the event streams.
   */
  readonly live: boolean;
  /**
   * Sends one serialized envelope; `headers` route it (a session's header), where the transport has
   * headers per message. Returns at once when it went out at once (an open socket: no promise on the
   * hot path); otherwise resolves once the server accepted it. Fails with a typed error
   * (`AcpHttpError`, `AcpNetworkError`; an abort stays the abort).
   */
  send(
    body: string,
    operation: string,
    signal: AbortSignal | undefined,
    headers: Record<string, string>,
  ): Sent | Promise<Sent>;
  /** Forgets the connection (its id, its socket): the next send starts a new one. */
  reset(): void;
  /** Closes for good: nothing is left open (the connection's DELETE is `HttpTransport.delete`). */
  close(): void;
}

/**
 * What the outbox tells the connection about a send that failed in a way that concerns the whole
 * connection. `Connection` implements it.
 */
export interface OutboxOwner {
  /** The server no longer knows the connection (404 after bootstrap); true when a recovery started. */
  lost(cause: unknown): boolean;
  /** Whether a POST's 404 says the connection is gone (rather than something the request named). */
  connectionGone(error: AcpHttpError): boolean;
  /** A POST for this session got 409: it is held elsewhere. */
  sessionConflict(sessionId: string, error: AcpHttpError): void;
  /** The server refused our credentials (401/403) on a live connection: it is over. */
  unauthorized(cause: AcpHttpError): void;
}

/**
 * What the outbox sends through and hands answers to (the connection's parts), and its settings (plain
 * values, resolved once by the client).
 */
export interface OutboxSettings {
  readonly transport: Transport;
  /** The session header a POST carries, and the connection stream its first accepted POST opens. */
  readonly streams: { headersFor(params: unknown): Record<string, string>; openConnection(): void };
  /** Where a POST's answer body goes (`takeBody`). */
  readonly inbound: Inbound;
  /** The connection's state: the first send moves it from `idle` to `connecting`. */
  readonly state: { readonly value: string; set(next: "connecting"): void };
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
 * Everything the connection sends goes out here, through its `Transport`; a POST's body (an
 * answer, or a batch of them) is handed to the inbound. Failures are sorted into what the
 * connection must do about them (recover, fail a session) and what the caller gets.
 */
export class Outbox {
  readonly #owner: OutboxOwner;
  readonly #settings: OutboxSettings;

  constructor(owner: OutboxOwner, settings: OutboxSettings) {
    this.#owner = owner;
    this.#settings = settings;
  }

  /**
   * Sends one envelope. Resolves once the server accepted it (`"answered"` when the POST's body held
   * an answer, which has then been handed to the inbound); rejects with the typed error otherwise,
   * a body that is not the request's answer included.
   */
  post(send: Send): Promise<SendOutcome> {
    const { state, streams, transport } = this.#settings;
    const { envelope, sessionId } = send;
    if (state.value === "idle") state.set("connecting");
    let body: string;
    let headers: Record<string, string>;
    let sending: Sent | Promise<Sent>;
    try {
      headers = streams.headersFor(envelope.params ?? (sessionId === undefined ? undefined : { sessionId }));
      body = JSON.stringify(envelope);
      sending = transport.send(body, send.method, send.signal, headers);
    } catch (error) {
      return Promise.reject(this.#failed(error, send));
    }
    // A frame on an open socket went out synchronously: no async function, one shared promise.
    if (!(sending instanceof Promise)) {
      try {
        const outcome = this.#accepted(sending, send);
        return outcome === "accepted" ? SENT_AT_ONCE : Promise.resolve(outcome);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#delivered(sending, body, headers, send);
  }

  async #delivered(
    sending: Promise<Sent>,
    body: string,
    headers: Record<string, string>,
    send: Send,
  ): Promise<SendOutcome> {
    let sent: Sent;
    try {
      // Only a token function can be asked again: otherwise no second async step per POST.
      sent = await (this.#settings.refreshableToken ? this.#authorized(sending, body, headers, send) : sending);
    } catch (error) {
      throw this.#failed(error, send);
    }
    return this.#accepted(sent, send);
  }

  /**
   * An accepted send: the connection stream may open, and a POST's body goes to the inbound. Throws
   * when the body cannot be the answer (too large, not an envelope, another request's answer).
   */
  #accepted(sent: Sent, send: Send): SendOutcome {
    const { streams, inbound } = this.#settings;
    const { envelope, method } = send;
    if (!send.deferStream || sent.json === undefined) streams.openConnection();
    if (sent.tooLarge) {
      const { bytes, head } = sent.tooLarge;
      throw inbound.tooLarge("response-body", head, bytes, this.#settings.maxMessageBytes);
    }
    if (sent.json === undefined) return "accepted";
    const verdict = takeBody(inbound, sent.json, envelope);
    // A body is the answer the server chose to give: one that is not this request's answer means
    // none will come (and `initialize` opens no stream to bring one), so the request fails now.
    const request = requestIdOf(envelope);
    if (verdict === "unparseable" && "id" in envelope) throw notAnAnswer(method, "was not a JSON-RPC envelope");
    if (verdict === "mismatched" && request !== undefined) {
      throw notAnAnswer(method, `holds a response to another id than the request's (${JSON.stringify(request)})`);
    }
    if (verdict === "other" && request !== undefined) throw notAnAnswer(method, "held no JSON-RPC response");
    return "answered";
  }

  /**
   * One send, and with a token function one more: a 401/403 asks it once more (it is asked before
   * every request) and sends again once, `initialize` included (a token that expired before the
   * connection was made): a refused request was not processed, so sending it again is safe. A
   * static token cannot change, so it gets no second try.
   */
  async #authorized(sending: Promise<Sent>, body: string, headers: Record<string, string>, send: Send): Promise<Sent> {
    const { transport } = this.#settings;
    const { method, signal } = send;
    try {
      return await sending;
    } catch (error) {
      const retry = this.#settings.refreshableToken && isRefusal(error) && !signal?.aborted;
      if (!retry) throw error;
      this.#settings.logger.debug("credentials refused: asking the token function again, one retry", {
        method,
        status: error.status,
      });
      return transport.send(body, method, signal, headers);
    }
  }

  /**
   * Sorts a failed send: recover on a lost connection, close on refused credentials, fail a session
   * on 409. Returns the error the send fails with.
   */
  #failed(error: unknown, send: Send): unknown {
    const { envelope, method, signal } = send;
    // Withdrawn: its caller has its answer already (an abort, a deadline, the close, an answer on the stream).
    if (signal?.aborted) return signal.reason;
    const { bootstrapped } = this.#settings.transport;
    const gone = error instanceof AcpHttpError && error.status === 404 && this.#owner.connectionGone(error);
    if (gone && bootstrapped) {
      const recovering = this.#owner.lost(error);
      return recovering
        ? new AcpInterruptedError(method, error)
        : new AcpConnectionClosedError("connection-lost", { method, cause: error });
    }
    if (isRefusal(error) && bootstrapped) {
      // The credentials are no good any more (a token function, if any, was asked again): every
      // later request would be refused too, so the connection ends and what is pending fails.
      const closed = new AcpConnectionClosedError("unauthorized", { method, cause: error });
      this.#owner.unauthorized(error);
      return closed;
    }
    if (error instanceof AcpHttpError && error.status === 409) {
      const session = sessionOf(envelope.params) ?? send.sessionId;
      if (session !== undefined) this.#owner.sessionConflict(session, error);
    }
    return error;
  }

  /** Delivers an answer to the agent's request; a failure is logged, not thrown. */
  async answer(answer: Envelope, method: string, sessionId: string | undefined): Promise<void> {
    const { logger, lifetime } = this.#settings;
    try {
      await this.post({ envelope: answer, method: `answer to ${method}`, signal: lifetime, sessionId });
    } catch (error) {
      // Withdrawn by the close: there is no one left to answer.
      if (lifetime.aborted && error === lifetime.reason) return;
      logger.warn("could not deliver an answer to the agent", { method, error: (error as Error).message });
    }
  }

  /**
   * With `cancelRequests`, tells the agent that the caller gave up pending request `id` (aborted,
   * or past its deadline), so it can stop working on it. Best effort: a failure is only logged.
   */
  cancelRequest(id: JsonRpcId): void {
    const { cancelRequests, lifetime, logger } = this.#settings;
    if (!cancelRequests || lifetime.aborted) return;
    const envelope = { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: id } };
    this.post({ envelope, method: "$/cancel_request", signal: lifetime }).catch((error: unknown) => {
      if (!lifetime.aborted || error !== lifetime.reason) {
        logger.debug("could not send $/cancel_request", { error: (error as Error).message });
      }
    });
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
