import { linkSignal } from "../internal/abort.js";
import { idKey, type AcpRequest, type JsonRpcId } from "./envelope.js";
import { answerAgentRequest, type AcpClientHandlers, type AgentRequestAnswer } from "./handlers.js";
import { sessionOf } from "./session-of.js";

/** What the client answers a permission request whose turn it cancelled (the protocol asks for this outcome). */
const TURN_CANCELLED: AgentRequestAnswer = { result: { outcome: { outcome: "cancelled" } } };
/** What it answers a request the agent withdrew: the protocol still wants one response per request. */
const WITHDRAWN: AgentRequestAnswer = { error: { code: -32800, message: "Request cancelled" } };

export interface AgentRequestsOptions {
  handlers: AcpClientHandlers;
  /** Aborted when the connection closes: every handler stops, no answer goes out after it. */
  lifetime: AbortSignal;
  /**
   * Posts one answer; resolves when it was delivered or given up. `sessionId` is the session the
   * request named: RFD servers route the answer by it (and refuse one without `Acp-Session-Id`).
   */
  send(
    answer: { jsonrpc: "2.0"; id: JsonRpcId } & AgentRequestAnswer,
    method: string,
    sessionId: string | undefined,
  ): Promise<unknown>;
}

interface Pending {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly sessionId: string | undefined;
  readonly controller: AbortController;
  answered: boolean;
}

/**
 * The agent's requests to this client: each occurrence answered exactly once. An id is
 * "in use" from the request's arrival until its answer is sent; a copy arriving in that
 * window is the same request delivered twice, while the same id after it is a new request
 * (JSON-RPC allows reuse once answered). Replays of one event are dropped earlier, by the
 * stream's cursor. A handler's signal aborts when its turn is cancelled, when the agent
 * withdraws the request, or when the connection closes.
 */
export class AgentRequests {
  readonly #options: AgentRequestsOptions;
  readonly #pending = new Map<string, Pending>();

  constructor(options: AgentRequestsOptions) {
    this.#options = options;
  }

  handle(request: AcpRequest): void {
    const key = idKey(request.id);
    if (this.#pending.has(key)) return;
    const controller = new AbortController();
    const unlink = linkSignal(this.#options.lifetime, controller);
    const { id, method, params } = request;
    const entry: Pending = { id, method, sessionId: sessionOf(params), controller, answered: false };
    this.#pending.set(key, entry);
    void answerAgentRequest(request, this.#options.handlers, controller.signal)
      .then((answer) => this.#answer(entry, answer))
      .finally(unlink);
  }

  /** The client cancelled this session's turn: its pending requests stop mattering. */
  cancelSession(sessionId: string): void {
    for (const entry of this.#pending.values()) {
      if (entry.answered || entry.sessionId !== sessionId) continue;
      entry.controller.abort(new Error("the turn was cancelled"));
      // Other requests (files, terminals) keep their handler's answer: it may still be useful.
      if (entry.method === "session/request_permission") void this.#answer(entry, TURN_CANCELLED);
    }
  }

  /** The agent sent `$/cancel_request` for this id. */
  withdraw(requestId: unknown): void {
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const entry = this.#pending.get(idKey(requestId));
    if (!entry || entry.answered) return;
    entry.controller.abort(new Error("the agent withdrew the request"));
    void this.#answer(entry, WITHDRAWN);
  }

  async #answer(entry: Pending, answer: AgentRequestAnswer): Promise<void> {
    if (entry.answered) return;
    entry.answered = true;
    // The id is free from here on: the agent may reuse it as soon as the server has our answer,
    // which can be before this POST's own response comes back.
    const key = idKey(entry.id);
    if (this.#pending.get(key) === entry) this.#pending.delete(key);
    if (this.#options.lifetime.aborted) return;
    await this.#options.send({ jsonrpc: "2.0", id: entry.id, ...answer }, entry.method, entry.sessionId);
  }
}
