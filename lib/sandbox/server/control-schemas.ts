import * as v from "valibot";

/**
 * The control plane's results as the contracts document them. Validated loosely:
 * required fields checked, anything extra passed through.
 */

export const HealthSchema = v.looseObject({ status: v.string() });
/** The server's health answer (`status` is `ok` when it is up). */
export type Health = v.InferOutput<typeof HealthSchema>;

/** A configuration option an agent offers (model, mode, thought level), as the server describes it. */
export const AgentConfigOptionSchema = v.looseObject({
  id: v.string(),
  name: v.optional(v.string()),
  category: v.optional(v.string()),
  type: v.optional(v.string()),
  currentValue: v.optional(v.unknown()),
  options: v.optional(v.array(v.looseObject({ value: v.unknown(), name: v.optional(v.string()) }))),
});
export type AgentConfigOption = v.InferOutput<typeof AgentConfigOptionSchema>;

export const AgentInfoSchema = v.looseObject({
  id: v.string(),
  installed: v.boolean(),
  credentialsAvailable: v.optional(v.boolean()),
  version: v.optional(v.nullable(v.string())),
  path: v.optional(v.nullable(v.string())),
  capabilities: v.optional(v.record(v.string(), v.unknown())),
  serverStatus: v.optional(
    v.nullable(v.looseObject({ status: v.string(), uptimeMs: v.optional(v.nullable(v.number())) })),
  ),
  configOptions: v.optional(v.nullable(v.array(AgentConfigOptionSchema))),
  configError: v.optional(v.nullable(v.string())),
});
/**
 * One agent as the server reports it.
 * - `configOptions`: present when asked for with `config: true`.
 * - `configError`: why the server could not read the agent's options, when it could not.
 */
export type AgentInfo = v.InferOutput<typeof AgentInfoSchema>;

/** What to ask of the agent routes (`listAgents`, `getAgent`). */
export interface AgentQueryOptions {
  /** Include each agent's `configOptions` (or `configError`). Released server only. */
  config?: boolean;
  /** Ask the server to look again instead of answering from its cache. */
  noCache?: boolean;
}

/** One live agent connection of the server (one agent process each). */
export const ServerConnectionSchema = v.looseObject({
  serverId: v.string(),
  agent: v.string(),
  createdAtMs: v.number(),
});
export type ServerConnection = v.InferOutput<typeof ServerConnectionSchema>;
export const ServerConnectionListSchema = v.looseObject({ servers: v.array(ServerConnectionSchema) });
export const AgentListSchema = v.looseObject({ agents: v.array(AgentInfoSchema) });

export const InstallResultWireSchema = v.looseObject({
  already_installed: v.boolean(),
  artifacts: v.array(
    v.looseObject({
      kind: v.string(),
      path: v.string(),
      source: v.optional(v.string()),
      version: v.optional(v.nullable(v.string())),
    }),
  ),
});
export interface InstallResult {
  alreadyInstalled: boolean;
  artifacts: v.InferOutput<typeof InstallResultWireSchema>["artifacts"];
}

export const FsEntrySchema = v.looseObject({
  name: v.string(),
  path: v.string(),
  entryType: v.string(),
  size: v.number(),
  modified: v.optional(v.unknown()),
});
/** One entry of a directory listing: name, path, type (file, directory, ...), size and modification time. */
export type FsEntry = v.InferOutput<typeof FsEntrySchema>;
export const FsStatSchema = v.looseObject({
  path: v.string(),
  entryType: v.string(),
  size: v.number(),
  modified: v.optional(v.unknown()),
});
export type FsStat = v.InferOutput<typeof FsStatSchema>;
export const WriteResultSchema = v.looseObject({ path: v.string(), bytesWritten: v.number() });
export type WriteResult = v.InferOutput<typeof WriteResultSchema>;
export const PathResultSchema = v.looseObject({ path: v.string() });
export const MoveResultSchema = v.looseObject({ from: v.string(), to: v.string() });
export type MoveResult = v.InferOutput<typeof MoveResultSchema>;
export const UploadResultSchema = v.looseObject({ paths: v.array(v.string()), truncated: v.boolean() });
export type UploadResult = v.InferOutput<typeof UploadResultSchema>;

export interface InstallOptions {
  reinstall?: boolean;
  agentVersion?: string;
  agentProcessVersion?: string;
}

export const FsEntryListSchema = v.looseObject({ entries: v.array(FsEntrySchema) });

export function toInstallResult(wire: v.InferOutput<typeof InstallResultWireSchema>): InstallResult {
  return { alreadyInstalled: wire.already_installed, artifacts: wire.artifacts };
}
