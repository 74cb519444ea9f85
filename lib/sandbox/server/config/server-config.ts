import type * as v from "valibot";
import type { CallOptions } from "../../call-options.js";
import type { ControlPlaneHttp } from "../control-plane.js";
import { refineHttpError } from "../../error-mapping.js";
import {
  McpServerConfigSchema,
  SkillsConfigSchema,
  type ConfigEntryRef,
  type McpServerConfig,
  type SkillsConfig,
} from "./schemas.js";

type Kind = "mcp" | "skills";

/** The query naming one entry: the server calls the name `mcpName` or `skillName`. */
const entryQuery = (kind: Kind, ref: ConfigEntryRef): Record<string, string> =>
  kind === "mcp" ? { directory: ref.directory, mcpName: ref.name } : { directory: ref.directory, skillName: ref.name };

/**
 * Per-directory MCP server and skills entries (`<directory>/.sandbox-agent/config/{mcp,skills}.json`
 * on the server, a map of name to entry). A missing entry is a `NotFoundError`; a body the server
 * cannot read is a 400 `SandboxAgentHttpError` (kind `invalid-request`). Deleting a missing entry succeeds.
 */
export class ServerConfig {
  readonly #http: ControlPlaneHttp;
  readonly #prefix: string;

  constructor(http: ControlPlaneHttp, prefix = "/v1") {
    this.#http = http;
    this.#prefix = prefix;
  }

  getMcpConfig(ref: ConfigEntryRef, call?: CallOptions): Promise<McpServerConfig> {
    return this.#get("config.getMcpConfig", "mcp", ref, McpServerConfigSchema, call);
  }

  /** Writes one entry (`local`/`stdio` by command, `http`/`remote` by URL); creates the directory. */
  setMcpConfig(ref: ConfigEntryRef, config: McpServerConfig, call?: CallOptions): Promise<void> {
    return this.#write("config.setMcpConfig", "put", "mcp", ref, config, call);
  }

  deleteMcpConfig(ref: ConfigEntryRef, call?: CallOptions): Promise<void> {
    return this.#write("config.deleteMcpConfig", "delete", "mcp", ref, undefined, call);
  }

  getSkillsConfig(ref: ConfigEntryRef, call?: CallOptions): Promise<SkillsConfig> {
    return this.#get("config.getSkillsConfig", "skills", ref, SkillsConfigSchema, call);
  }

  /** Writes one entry: `{ sources: [{ type, source, skills?, ref?, subpath? }] }`. */
  setSkillsConfig(ref: ConfigEntryRef, config: SkillsConfig, call?: CallOptions): Promise<void> {
    return this.#write("config.setSkillsConfig", "put", "skills", ref, config, call);
  }

  deleteSkillsConfig(ref: ConfigEntryRef, call?: CallOptions): Promise<void> {
    return this.#write("config.deleteSkillsConfig", "delete", "skills", ref, undefined, call);
  }

  async #get<T>(
    operation: string,
    kind: Kind,
    ref: ConfigEntryRef,
    schema: v.GenericSchema<unknown, T>,
    call: CallOptions | undefined,
  ): Promise<T> {
    const init = { query: entryQuery(kind, ref), signal: call?.signal, timeoutMs: call?.timeoutMs };
    try {
      return await this.#http.json(operation, schema, "get", `${this.#prefix}/config/${kind}`, init);
    } catch (error) {
      throw refineHttpError(error);
    }
  }

  async #write(
    operation: string,
    method: "put" | "delete",
    kind: Kind,
    ref: ConfigEntryRef,
    body: unknown,
    call: CallOptions | undefined,
  ): Promise<void> {
    const init = {
      query: entryQuery(kind, ref),
      signal: call?.signal,
      timeoutMs: call?.timeoutMs,
      ...(body !== undefined ? { json: body } : {}),
    };
    try {
      const response = await this.#http.send(operation, method, `${this.#prefix}/config/${kind}`, init);
      await response.body?.cancel();
    } catch (error) {
      throw refineHttpError(error);
    }
  }
}
