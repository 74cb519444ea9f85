import type * as v from "valibot";
import type { SandboxConnection } from "./connection.js";
import type { CallOptions, CallSignal } from "../call-options.js";
import { validate } from "../server/control-plane.js";

/** `request()`'s options: the call's bounds, and a schema the result must match. */
export interface RawRequestOptions<TSchema extends v.GenericSchema | undefined = undefined> extends CallOptions {
  /**
   * A valibot schema for the result: it is returned parsed, or the call fails with a
   * `SandboxAgentError` of kind `protocol`.
   */
  schema?: TSchema;
}

/** The result type of `request()`: the schema's output, or `unknown` without one. */
export type RequestResult<TSchema> = TSchema extends v.GenericSchema ? v.InferOutput<TSchema> : unknown;

/**
 * One JSON-RPC request on the live connection, by its wire name, for methods the client does
 * not wrap (extensions of an agent or server). Errors are the sandbox's (`AgentError` with the
 * agent's code, `CallTimeoutError`, ...).
 */
export async function rawRequest<TSchema extends v.GenericSchema | undefined>(
  connection: SandboxConnection,
  method: string,
  params: Record<string, unknown> | unknown[] | undefined,
  options: RawRequestOptions<TSchema>,
  bounds: CallSignal,
): Promise<RequestResult<TSchema>> {
  const result = await connection.call(method, params ?? {}, bounds);
  if (!options.schema) return result as RequestResult<TSchema>;
  return validate(method, options.schema as v.GenericSchema, result) as RequestResult<TSchema>;
}
