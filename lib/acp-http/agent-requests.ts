// The agent's requests to the client (permissions, questions, files, terminals): the handlers a user gives,
// and how each request is answered exactly once, cancelled with its turn, or withdrawn.
import * as v from "valibot";
import {
  CreateElicitationParamsSchema,
  ReadTextFileParamsSchema,
  RequestPermissionParamsSchema,
  TerminalParamsSchema,
  WriteTextFileParamsSchema,
  type CreateElicitationParams,
  type CreateElicitationResult,
  type ReadTextFileParams,
  type ReadTextFileResult,
  type RequestPermissionParams,
  type RequestPermissionResult,
  type TerminalParams,
  type WriteTextFileParams,
} from "./acp-types.js";
import { type AcpRequest, type JsonRpcErrorObject, idKey, type JsonRpcId, sessionOf } from "./envelope.js";
import { AcpRpcError } from "./errors.js";
import { linkSignal } from "../internal/abort.js";

/** What a handler of an agent's request gets beside the params: the request's id and method, and a signal. */
export interface HandlerContext {
  /** The JSON-RPC id of the agent's request. */
  id: string | number | null;
  method: string;
  /**
   * Aborted when the answer stopped mattering: the client cancelled the turn of this
   * request's session (`session/cancel`), the agent withdrew the request
   * (`$/cancel_request`), or the connection closed or is being rebuilt. A dialog can close
   * itself on it; a permission answer given after it is not sent (the client answers `cancelled`, or
   * -32800 for a withdrawn request, at once).
   */
  signal: AbortSignal;
}

type Handler<P, R> = (params: P, context: HandlerContext) => R | Promise<R>;
type AnyHandler = Handler<never, unknown> | undefined;

/**
 * Answers to requests the agent sends to the client. A missing handler means "not
 * supported" (-32601), except permission, which is answered `cancelled`, and a question
 * (`elicitation/create`), which is answered `decline`, so an agent never waits forever on
 * a client that did not opt in, and nothing is ever accepted on the user's behalf.
 */
export interface AcpClientHandlers {
  requestPermission?: Handler<RequestPermissionParams, RequestPermissionResult>;
  /**
   * The agent's questions (`elicitation/create`, form or URL mode). Given, it makes `initialize`
   * advertise `elicitation` (form and URL). When the client cancels the question's turn, the agent
   * is answered `cancel` at once. The later `elicitation/complete` of a URL question is a
   * notification, on `envelopes$`.
   */
  createElicitation?: Handler<CreateElicitationParams, CreateElicitationResult>;
  readTextFile?: Handler<ReadTextFileParams, ReadTextFileResult>;
  writeTextFile?: Handler<WriteTextFileParams, Record<string, unknown> | null | void>;
  createTerminal?: Handler<TerminalParams, { terminalId: string }>;
  terminalOutput?: Handler<TerminalParams, Record<string, unknown>>;
  releaseTerminal?: Handler<TerminalParams, Record<string, unknown> | null | void>;
  waitForTerminalExit?: Handler<TerminalParams, Record<string, unknown>>;
  killTerminal?: Handler<TerminalParams, Record<string, unknown> | null | void>;
  /** Any other method; extension methods start with `_`. Return `undefined` to answer -32601. */
  extMethod?: (method: string, params: unknown, context: HandlerContext) => unknown;
}

export type AgentRequestAnswer = { result: unknown } | { error: JsonRpcErrorObject };

interface Route {
  schema: v.GenericSchema<unknown, unknown>;
  pick(handlers: AcpClientHandlers): AnyHandler;
  fallback?: () => unknown;
}

const ROUTES: Record<string, Route> = {
  "session/request_permission": {
    schema: RequestPermissionParamsSchema,
    pick: (h) => h.requestPermission as AnyHandler,
    fallback: (): RequestPermissionResult => ({ outcome: { outcome: "cancelled" } }),
  },
  "elicitation/create": {
    schema: CreateElicitationParamsSchema,
    pick: (h) => h.createElicitation as AnyHandler,
    fallback: (): CreateElicitationResult => ({ action: "decline" }),
  },
  "fs/read_text_file": { schema: ReadTextFileParamsSchema, pick: (h) => h.readTextFile as AnyHandler },
  "fs/write_text_file": { schema: WriteTextFileParamsSchema, pick: (h) => h.writeTextFile as AnyHandler },
  "terminal/create": { schema: TerminalParamsSchema, pick: (h) => h.createTerminal as AnyHandler },
  "terminal/output": { schema: TerminalParamsSchema, pick: (h) => h.terminalOutput as AnyHandler },
  "terminal/release": { schema: TerminalParamsSchema, pick: (h) => h.releaseTerminal as AnyHandler },
  "terminal/wait_for_exit": { schema: TerminalParamsSchema, pick: (h) => h.waitForTerminalExit as AnyHandler },
  "terminal/kill": { schema: TerminalParamsSchema, pick: (h) => h.killTerminal as AnyHandler },
};

/**
 * The agent-to-client request methods answered by a handler here (the coverage check reads it).
 * @internal
 */
export const AGENT_REQUEST_METHODS: readonly string[] = Object.keys(ROUTES);

const methodNotFound = (method: string): AgentRequestAnswer => ({
  error: { code: -32601, message: `Method not found: ${method}` },
});

/** Computes the answer to one agent request; never throws. */
export async function answerAgentRequest(
  request: AcpRequest,
  handlers: AcpClientHandlers,
  signal: AbortSignal,
): Promise<AgentRequestAnswer> {
  const context: HandlerContext = { id: request.id, method: request.method, signal };
  const route = ROUTES[request.method];
  try {
    if (!route) {
      if (!handlers.extMethod) return methodNotFound(request.method);
      const result = await handlers.extMethod(request.method, request.params, context);
      return result === undefined ? methodNotFound(request.method) : { result };
    }
    const parsed = v.safeParse(route.schema, request.params);
    if (!parsed.success) return { error: { code: -32602, message: `Invalid params for ${request.method}` } };
    const handler = route.pick(handlers) as Handler<unknown, unknown> | undefined;
    if (!handler) return route.fallback ? { result: route.fallback() } : methodNotFound(request.method);
    const result = await handler(parsed.output, context);
    return { result: result ?? {} };
  } catch (error) {
    return { error: toErrorObject(error, signal) };
  }
}

function toErrorObject(error: unknown, signal: AbortSignal): JsonRpcErrorObject {
  if (error instanceof AcpRpcError) {
    return { code: error.code, message: error.rpcMessage, ...(error.data === undefined ? {} : { data: error.data }) };
  }
  // A handler that gave up because its signal aborted (an AbortError, or `throwIfAborted()`'s
  // reason): the protocol's "request cancelled".
  const gaveUp = error === signal.reason || (error as { name?: unknown } | null)?.name === "AbortError";
  if (signal.aborted && gaveUp) {
    return { code: -32800, message: "Request cancelled" };
  }
  return { code: -32603, message: error instanceof Error ? error.message : "Internal error" };
}

/**
 * What the client answers, at once, a request whose turn it cancelled, by method: the outcome the
 * protocol asks for. Other requests (files, terminals) keep their handler's answer: it may still be useful.
 */
const TURN_CANCELLED: Readonly<Record<string, AgentRequestAnswer>> = {
  "session/request_permission": { result: { outcome: { outcome: "cancelled" } } },
  "elicitation/create": { result: { action: "cancel" } },
};
/** What it answers a request the agent withdrew: the protocol still wants one response per request. */
const WITHDRAWN: AgentRequestAnswer = { error: { code: -32800, message: "Request cancelled" } };

export interface AgentRequestsOptions {
  handlers: AcpClientHandlers;
  /** Aborted when the connection closes: every handler stops, no answer goes out after it. */
  lifetime: AbortSignal;
}

/** Where the answers go out: the connection's outbox (`Outbox.answer`). */
export interface AnswerOutbox {
  /**
   * Posts one answer; resolves when it was delivered or given up. `sessionId` is the session the
   * request named: RFD servers route the answer by it (and refuse one without `Acp-Session-Id`).
   */
  answer(
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
 * withdraws the request, or when the connection closes or is rebuilt (`forgetAll`).
 */
export class AgentRequests {
  readonly #options: AgentRequestsOptions;
  readonly #outbox: AnswerOutbox;
  /** Made with the agent's first request: most connections never get one (see ResponseHolds.#held). */
  #pending: Map<string, Pending> | undefined;

  constructor(options: AgentRequestsOptions, outbox: AnswerOutbox) {
    this.#options = options;
    this.#outbox = outbox;
  }

  handle(request: AcpRequest): void {
    const key = idKey(request.id);
    if (this.#pending?.has(key)) return;
    const controller = new AbortController();
    const unlink = linkSignal(this.#options.lifetime, controller);
    const { id, method, params } = request;
    const entry: Pending = { id, method, sessionId: sessionOf(params), controller, answered: false };
    (this.#pending ??= new Map()).set(key, entry);
    void answerAgentRequest(request, this.#options.handlers, controller.signal)
      .then((answer) => this.#answer(entry, answer))
      .finally(unlink);
  }

  /**
   * The client cancelled this session's turn: its pending requests stop mattering. Their handlers
   * stop at once; the answers wait for `cancelSent` (the `session/cancel` notification handed to
   * the server), so the agent knows the turn is cancelled when it reads them: two POSTs may reach
   * it in either order, and an agent that read `cancelled` first would go on with its turn.
   */
  cancelSession(sessionId: string, cancelSent: Promise<unknown> = Promise.resolve()): void {
    for (const entry of this.#pending?.values() ?? []) {
      if (entry.answered || entry.sessionId !== sessionId) continue;
      entry.controller.abort(new Error("the turn was cancelled"));
      const answer = TURN_CANCELLED[entry.method];
      if (answer) void this.#answer(entry, answer, cancelSent);
    }
  }

  /** The agent sent `$/cancel_request` for this id. */
  withdraw(requestId: unknown): void {
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const entry = this.#pending?.get(idKey(requestId));
    if (!entry || entry.answered) return;
    entry.controller.abort(new Error("the agent withdrew the request"));
    void this.#answer(entry, WITHDRAWN);
  }

  /**
   * The connection is being rebuilt: the agent that asked is gone, and the new one numbers its
   * requests afresh, so a pending id would shadow the new agent's request and a late answer would
   * answer it. Every pending handler stops (its signal aborts, as on a close) and nothing is sent.
   */
  forgetAll(reason: unknown): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    for (const entry of pending.values()) {
      entry.answered = true;
      entry.controller.abort(reason);
    }
  }

  async #answer(entry: Pending, answer: AgentRequestAnswer, after?: Promise<unknown>): Promise<void> {
    if (entry.answered) return;
    entry.answered = true;
    // The id is free from here on: the agent may reuse it as soon as the server has our answer,
    // which can be before this POST's own response comes back.
    const key = idKey(entry.id);
    if (this.#pending?.get(key) === entry) this.#pending.delete(key);
    // Whether or not the earlier send went through, the agent still wants this answer.
    if (after) await after.catch(() => undefined);
    if (this.#options.lifetime.aborted) return;
    await this.#outbox.answer({ jsonrpc: "2.0", id: entry.id, ...answer }, entry.method, entry.sessionId);
  }
}
