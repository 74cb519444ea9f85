import * as v from "valibot";
import {
  ReadTextFileParamsSchema,
  RequestPermissionParamsSchema,
  TerminalParamsSchema,
  WriteTextFileParamsSchema,
  type ReadTextFileParams,
  type ReadTextFileResult,
  type RequestPermissionParams,
  type RequestPermissionResult,
  type TerminalParams,
  type WriteTextFileParams,
} from "./acp-types.js";
import type { AcpRequest, JsonRpcErrorObject } from "./envelope.js";
import { AcpRpcError } from "./errors/rpc-error.js";

export interface HandlerContext {
  /** The JSON-RPC id of the agent's request. */
  id: string | number | null;
  method: string;
  /**
   * Aborted when the answer stopped mattering: the client cancelled the turn of this
   * request's session (`session/cancel`), the agent withdrew the request
   * (`$/cancel_request`), or the connection closed. A dialog can close itself on it; a
   * permission answer given after it is not sent (the client answers `cancelled`, or
   * -32800 for a withdrawn request, at once).
   */
  signal: AbortSignal;
}

type Handler<P, R> = (params: P, context: HandlerContext) => R | Promise<R>;
type AnyHandler = Handler<never, unknown> | undefined;

/**
 * Answers to requests the agent sends to the client. A missing handler means "not
 * supported" (-32601), except permission, which is answered `cancelled` so an agent
 * never waits forever on a client that did not opt in.
 */
export interface AcpClientHandlers {
  requestPermission?: Handler<RequestPermissionParams, RequestPermissionResult>;
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
  "fs/read_text_file": { schema: ReadTextFileParamsSchema, pick: (h) => h.readTextFile as AnyHandler },
  "fs/write_text_file": { schema: WriteTextFileParamsSchema, pick: (h) => h.writeTextFile as AnyHandler },
  "terminal/create": { schema: TerminalParamsSchema, pick: (h) => h.createTerminal as AnyHandler },
  "terminal/output": { schema: TerminalParamsSchema, pick: (h) => h.terminalOutput as AnyHandler },
  "terminal/release": { schema: TerminalParamsSchema, pick: (h) => h.releaseTerminal as AnyHandler },
  "terminal/wait_for_exit": { schema: TerminalParamsSchema, pick: (h) => h.waitForTerminalExit as AnyHandler },
  "terminal/kill": { schema: TerminalParamsSchema, pick: (h) => h.killTerminal as AnyHandler },
};

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
