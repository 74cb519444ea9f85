import { AcpConnectionClosedError } from "./errors/connection-closed-error.js";
import { AcpHttpError } from "./errors/http-error.js";
import { AcpInterruptedError } from "./errors/interrupted-error.js";
import { AcpProtocolError } from "./errors/protocol-error.js";
import type { HttpTransport } from "./http.js";
import type { JsonRpcId } from "./envelope.js";
import type { Inbound, SentEnvelope } from "./inbound.js";
import { takeBody } from "./intake.js";
import type { AcpLogger } from "./logger.js";
import type { SessionStreams } from "./session-streams.js";
import type { ConnectionStateMachine } from "./state.js";
import type { WebSocketTransport } from "./ws-transport.js";
import { sessionOf } from "./session-of.js";

const SENT = Promise.resolve(true);

/** An envelope the connection sends: a request, a notification or an answer to the agent. */
export type Envelope = SentEnvelope & Record<string, unknown>;

/** The connection's parts the outbox sends through (the connection itself has them all). */
export interface OutboxWires {
  readonly http: HttpTransport;
  /** Set for `transport: "websocket"`: every envelope goes out on it. */
  readonly socket: WebSocketTransport | undefined;
  readonly streams: SessionStreams;
  readonly inbound: Inbound;
  readonly state: ConnectionStateMachine;
}

/** The outbox's settings, and how it reports a lost connection or a held session. */
export interface OutboxOptions {
  readonly maxMessageBytes: number;
  /** Aborted when the connection closes: answers and `$/cancel_request` are bound to it. */
  readonly lifetime: AbortSignal;
  readonly logger: AcpLogger;
  /** With it, a pending request given up (aborted, timed out) tells the agent (`$/cancel_request`). */
  readonly cancelRequests: boolean;
  /** The server no longer knows the connection (404 after bootstrap); true when a recovery started. */
  lost(cause: unknown): boolean;
  /** Whether a POST's 404 says the connection is gone (rather than something the request named). */
  connectionGone(error: AcpHttpError): boolean;
  /** A POST for this session got 409: it is held elsewhere. */
  sessionConflict(sessionId: string, error: AcpHttpError): void;
}

/**
 * Everything the connection sends goes out here, on the WebSocket or as a POST; a POST's
 * body (an answer, or a batch of them) is handed to the inbound. Failures are sorted into
 * what the connection must do about them (recover, fail a session) and what the caller gets.
 */
export class Outbox {
  readonly #wires: OutboxWires;
  readonly #options: OutboxOptions;

  constructor(wires: OutboxWires, options: OutboxOptions) {
    this.#wires = wires;
    this.#options = options;
  }

  /**
   * Sends one envelope; failures go to `onError`. Resolves true once the server accepted it.
   * `sessionId` routes an envelope without params (an answer to the agent) to its session.
   */
  post(
    envelope: Envelope,
    method: string,
    signal: AbortSignal | undefined,
    onError: (error: unknown) => void,
    deferStream = false,
    sessionId?: string,
  ): Promise<boolean> {
    const { socket, state } = this.#wires;
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
  ): Promise<boolean> {
    const { http, streams, inbound } = this.#wires;
    try {
      const headers = streams.headersFor(envelope.params ?? (sessionId === undefined ? undefined : { sessionId }));
      const result = await http.post(JSON.stringify(envelope), method, signal, headers);
      if (!deferStream || result.json === undefined) streams.openConnection();
      if (result.tooLarge) {
        const { bytes, head } = result.tooLarge;
        onError(inbound.tooLarge("response-body", head, bytes, this.#options.maxMessageBytes));
        return true;
      }
      if (result.json !== undefined && !takeBody(inbound, result.json, envelope) && "id" in envelope) {
        onError(new AcpProtocolError("the response body was not a JSON-RPC envelope", { method }));
      }
      return true;
    } catch (error) {
      return this.#failed(error, envelope, method, signal, onError, sessionId);
    }
  }

  /** Sorts a failed send: recover on a lost connection, fail a session on 409; false either way. */
  #failed(
    error: unknown,
    envelope: Envelope,
    method: string,
    signal: AbortSignal | undefined,
    onError: (error: unknown) => void,
    sessionId: string | undefined,
  ): boolean {
    if (signal?.aborted) return false;
    const gone = error instanceof AcpHttpError && error.status === 404 && this.#options.connectionGone(error);
    if (gone && this.#wires.http.bootstrapped) {
      const recovering = this.#options.lost(error);
      onError(
        recovering
          ? new AcpInterruptedError(method, error)
          : new AcpConnectionClosedError("connection-lost", { method, cause: error }),
      );
      return false;
    }
    if (error instanceof AcpHttpError && error.status === 409) {
      const session = sessionOf(envelope.params) ?? sessionId;
      if (session !== undefined) this.#options.sessionConflict(session, error);
    }
    onError(error);
    return false;
  }

  /** Delivers an answer to the agent's request; a failure is logged, not thrown. */
  answer(answer: Envelope, method: string, sessionId: string | undefined): Promise<boolean> {
    const { logger, lifetime } = this.#options;
    const onError = (error: unknown) =>
      logger.warn("could not deliver an answer to the agent", { method, error: (error as Error).message });
    return this.post(answer, `answer to ${method}`, lifetime, onError, false, sessionId);
  }

  /**
   * With `cancelRequests`, tells the agent that the caller gave up pending request `id` (aborted,
   * or past its deadline), so it can stop working on it. Best effort: a failure is only logged.
   */
  cancelRequest(id: JsonRpcId): void {
    if (!this.#options.cancelRequests || this.#options.lifetime.aborted) return;
    const envelope = { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: id } };
    void this.post(envelope, "$/cancel_request", this.#options.lifetime, (error) =>
      this.#options.logger.debug("could not send $/cancel_request", { error: (error as Error).message }),
    );
  }
}
