import * as v from "valibot";
import type { CallOptions } from "../connection.js";
import type { ControlPlaneHttp } from "../control-plane.js";
import { refineHttpError } from "../errors/refine.js";
import { McpServerConfigSchema, SkillsConfigSchema, type ConfigEntryRef, type McpServerConfig, type SkillsConfig } from "./schemas.js";

/**
 * Per-directory MCP server and skills entries (`<directory>/.sandbox-agent/config/{mcp,skills}.json`
 * on the server, a map of name to entry). A missing entry is a `NotFoundError`; a body the server
 * cannot read is an `InvalidRequestError`. Deleting a missing entry succeeds.
 */
export class ServerConfig {
  readonly #http: ControlPlaneHttp;
  readonly #prefix: string;

  constructor(http: ControlPlaneHttp, prefix = "/v1") {
    this.#http = http;
    this.#prefix = prefix;
  }

  getMcpConfig(ref: ConfigEntryRef, call?: CallOptions): Promise<McpServerConfig> {
    return this.#get("getMcpConfig", "mcp", { directory: ref.directory, mcpName: ref.name }, McpServerConfigSchema, call);
  }

  /** Writes one entry (`local`/`stdio` by command, `http`/`remote` by URL); creates the directory. */
  setMcpConfig(ref: ConfigEntryRef, config: McpServerConfig, call?: CallOptions): Promise<void> {
    return this.#write("setMcpConfig", "put", "mcp", { directory: ref.directory, mcpName: ref.name }, config, call);
  }

  deleteMcpConfig(ref: ConfigEntryRef, call?: CallOptions): Promise<void> {
    return this.#write("deleteMcpConfig", "delete", "mcp", { directory: ref.directory, mcpName: ref.name }, undefined, call);
  }

  getSkillsConfig(ref: ConfigEntryRef, call?: CallOptions): Promise<SkillsConfig> {
    return this.#get("getSkillsConfig", "skills", { directory: ref.directory, skillName: ref.name }, SkillsConfigSchema, call);
  }

  /** Writes one entry: `{ sources: [{ type, source, skills?, ref?, subpath? }] }`. */
  setSkillsConfig(ref: ConfigEntryRef, config: SkillsConfig, call?: CallOptions): Promise<void> {
    return this.#write("setSkillsConfig", "put", "skills", { directory: ref.directory, skillName: ref.name }, config, call);
  }

  deleteSkillsConfig(ref: ConfigEntryRef, call?: CallOptions): Promise<void> {
    return this.#write("deleteSkillsConfig", "delete", "skills", { directory: ref.directory, skillName: ref.name }, undefined, call);
  }

  async #get<T>(operation: string, kind: string, query: Record<string, string>, schema: v.GenericSchema<unknown, T>, call?: CallOptions): Promise<T> {
    try {
      return await this.#http.json(operation, schema, "get", `${this.#prefix}/config/${kind}`, { query, signal: call?.signal, timeoutMs: call?.timeoutMs });
    } catch (error) {
      throw refineHttpError(error);
    }
  }

  async #write(operation: string, method: "put" | "delete", kind: string, query: Record<string, string>, body: unknown, call?: CallOptions): Promise<void> {
    try {
      const init = { query, signal: call?.signal, timeoutMs: call?.timeoutMs, ...(body !== undefined ? { json: body } : {}) };
      const response = await this.#http.send(operation, method, `${this.#prefix}/config/${kind}`, init);
      await response.body?.cancel();
    } catch (error) {
      throw refineHttpError(error);
    }
  }
}
