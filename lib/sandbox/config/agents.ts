import * as v from "valibot";
import type { CallOptions } from "../connection.js";
import type { ControlPlaneHttp } from "../control-plane.js";
import { refineHttpError } from "../errors/refine.js";
import {
  AgentDetailsListSchema,
  AgentDetailsSchema,
  ServerConnectionListSchema,
  type AgentDetails,
  type ServerConnection,
} from "./schemas.js";

/** What to ask of the agent routes. */
export interface AgentQueryOptions {
  /** Include each agent's `configOptions` (or `configError`). */
  config?: boolean;
  /** Ask the server to look again instead of answering from its cache. */
  noCache?: boolean;
}

/**
 * The server's agents and its live agent connections (`/v1/agents`, `/v1/acp`). An unknown agent
 * id is an `InvalidRequestError` of kind `unsupported_agent` (the server answers 400).
 */
export class AgentCatalog {
  readonly #http: ControlPlaneHttp;
  readonly #prefix: string;

  constructor(http: ControlPlaneHttp, prefix = "/v1") {
    this.#http = http;
    this.#prefix = prefix;
  }

  async listAgents(options: AgentQueryOptions = {}, call?: CallOptions): Promise<AgentDetails[]> {
    return (await this.#get("listAgents", "/agents", AgentDetailsListSchema, options, call)).agents;
  }

  getAgent(agentId: string, options: AgentQueryOptions = {}, call?: CallOptions): Promise<AgentDetails> {
    return this.#get("getAgent", `/agents/${encodeURIComponent(agentId)}`, AgentDetailsSchema, options, call);
  }

  /**
   * The agent processes the server runs now, one per connection id (`serverId`), with the agent
   * and when it started. A connection stays listed until it is closed or its agent exits.
   */
  async listConnections(call?: CallOptions): Promise<ServerConnection[]> {
    return (await this.#get("listConnections", "/acp", ServerConnectionListSchema, {}, call)).servers;
  }

  async #get<T>(
    operation: string,
    path: string,
    schema: v.GenericSchema<unknown, T>,
    options: AgentQueryOptions,
    call: CallOptions | undefined,
  ): Promise<T> {
    // The server accepts only `true`/`false` here; leaving a flag out means false.
    const query = { config: options.config, no_cache: options.noCache };
    const init = { query, signal: call?.signal, timeoutMs: call?.timeoutMs };
    try {
      return await this.#http.json(operation, schema, "get", this.#prefix + path, init);
    } catch (error) {
      throw refineHttpError(error);
    }
  }
}
