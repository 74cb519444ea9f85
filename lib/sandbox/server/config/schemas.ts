import * as v from "valibot";

/**
 * Shapes of the server's MCP and skills configuration routes (0.4.2, probed; see
 * docs/desktop-and-config.md). Loose objects: required members checked, extras kept.
 * (Agent and connection shapes are in ../control-schemas.ts, with the other routes.)
 */

const stringMap = v.record(v.string(), v.string());
const optionalNullable = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema));

const common = {
  enabled: optionalNullable(v.boolean()),
  timeoutMs: optionalNullable(v.number()),
};

/** A process the agent starts and talks to over stdio. The server stores `stdio` as `local`. */
export const LocalMcpServerSchema = v.looseObject({
  type: v.picklist(["local", "stdio"]),
  command: v.string(),
  args: v.optional(v.array(v.string())),
  env: optionalNullable(stringMap),
  cwd: optionalNullable(v.string()),
  ...common,
});

/** A server the agent reaches by URL. The server stores `http` as `remote`. */
export const RemoteMcpServerSchema = v.looseObject({
  type: v.picklist(["remote", "http"]),
  url: v.string(),
  headers: optionalNullable(stringMap),
  envHeaders: optionalNullable(stringMap),
  bearerTokenEnvVar: optionalNullable(v.string()),
  transport: optionalNullable(v.string()),
  oauth: optionalNullable(v.record(v.string(), v.unknown())),
  ...common,
});

export const McpServerConfigSchema = v.variant("type", [LocalMcpServerSchema, RemoteMcpServerSchema]);
/** One MCP server entry of a directory's `.sandbox-agent/config/mcp.json`. */
export type McpServerConfig = v.InferOutput<typeof McpServerConfigSchema>;

export const SkillSourceSchema = v.looseObject({
  type: v.string(),
  source: v.string(),
  skills: optionalNullable(v.array(v.string())),
  ref: optionalNullable(v.string()),
  subpath: optionalNullable(v.string()),
});
export type SkillSource = v.InferOutput<typeof SkillSourceSchema>;
export const SkillsConfigSchema = v.looseObject({ sources: v.array(SkillSourceSchema) });
/** One skills entry of a directory's `.sandbox-agent/config/skills.json`. */
export type SkillsConfig = v.InferOutput<typeof SkillsConfigSchema>;

/** Where a config entry lives: `directory` (absolute, on the server) and the entry's name. */
export interface ConfigEntryRef {
  directory: string;
  name: string;
}
