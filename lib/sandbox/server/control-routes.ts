import * as v from "valibot";
import type { CallOptions } from "../call-options.js";
import {
  AgentInfoSchema,
  AgentListSchema,
  FsEntryListSchema,
  FsEntrySchema,
  FsStatSchema,
  HealthSchema,
  InstallResultWireSchema,
  ServerConnectionListSchema,
  MoveResultSchema,
  PathResultSchema,
  UploadResultSchema,
  WriteResultSchema,
  toInstallResult,
  type AgentInfo,
  type AgentQueryOptions,
  type FsEntry,
  type FsStat,
  type Health,
  type InstallOptions,
  type InstallResult,
  type MoveResult,
  type ServerConnection,
  type UploadResult,
  type WriteResult,
} from "./control-schemas.js";
import { validate, type ControlPlaneHttp } from "./control-plane.js";
import { BodyTooLargeError, SandboxAgentHttpError, UnsupportedFeatureError } from "../errors.js";
import { refineHttpError } from "../error-mapping.js";

/**
 * The server's limits on what one request may carry, as facts of its contract: the client refuses
 * a body known to be over one before sending it, or splits what it can (process input).
 */
export interface ServerLimits {
  /** The largest request body the server buffers (0.4.x: 2 MiB; one byte more is a 413). */
  maxRequestBodyBytes: number;
  /**
   * The most stdin bytes one `processes.input` request may carry, counted decoded (0.4.x default:
   * 64 KiB, the `maxInputBytesPerRequest` of `GET /v1/processes/config`; `setConfig` can change it).
   */
  maxInputBytesPerRequest: number;
}

/** The control-plane operations, one implementation per server contract (see `profiles.ts`). */
export interface ControlRoutes {
  health(call?: CallOptions): Promise<Health>;
  listAgents(query: AgentQueryOptions, call?: CallOptions): Promise<AgentInfo[]>;
  getAgent(agentId: string, query: AgentQueryOptions, call?: CallOptions): Promise<AgentInfo>;
  listConnections(call?: CallOptions): Promise<ServerConnection[]>;
  installAgent(agentId: string, options: InstallOptions, call?: CallOptions): Promise<InstallResult>;
  readFile(path: string, call?: CallOptions): Promise<Uint8Array>;
  writeFile(path: string, body: Uint8Array, call?: CallOptions): Promise<WriteResult>;
  listEntries(path: string | undefined, call?: CallOptions): Promise<FsEntry[]>;
  stat(path: string, call?: CallOptions): Promise<FsStat>;
  mkdir(path: string, call?: CallOptions): Promise<{ path: string }>;
  move(move: { from: string; to: string; overwrite?: boolean }, call?: CallOptions): Promise<MoveResult>;
  deleteEntry(path: string, recursive: boolean | undefined, call?: CallOptions): Promise<{ path: string }>;
  uploadBatch(tar: Uint8Array, path: string | undefined, call?: CallOptions): Promise<UploadResult>;
}

/** What v2's control plane is sent over: the live session connection (`ConnectionLifecycle` implements it). */
export interface ExtensionChannel {
  /** A `_sandboxagent/*` extension request named `operation`, refused when the connection lacks `flag`. */
  extension(
    operation: string,
    flag: string,
    method: string,
    params: Record<string, unknown>,
    call?: CallOptions,
  ): Promise<unknown>;
}

/**
 * Every operation as a plain HTTP route under `prefix` (the released 0.4.x server: `/v1`). Each
 * failure gets the class of its kind (`refineHttpError`): a missing path is a `NotFoundError` here
 * as a missing process or config entry is.
 */
export function httpRoutes(http: ControlPlaneHttp, prefix: string, limits: ServerLimits): ControlRoutes {
  const agent = (id: string): string => `${prefix}/agents/${encodeURIComponent(id)}`;
  // The server accepts only `true`/`false` here; leaving a flag out means false.
  const agentQuery = (query: AgentQueryOptions) => ({ config: query.config, no_cache: query.noCache });
  const refined = <T>(pending: Promise<T>): Promise<T> => pending.catch((error: unknown) => {
    throw refineHttpError(error);
  });
  // Over the server's body limit the 0.4.x server closes the socket mid-upload (a `network` failure
  // after the whole body was pushed) or answers 413: refused here instead, before anything is sent.
  const withinBodyLimit = (operation: string, body: Uint8Array): Promise<void> =>
    body.byteLength > limits.maxRequestBodyBytes
      ? Promise.reject(new BodyTooLargeError(operation, body.byteLength, limits.maxRequestBodyBytes))
      : Promise.resolve();
  return {
    health: (call) => refined(http.json("health", HealthSchema, "get", `${prefix}/health`, { ...call })),
    listAgents: async (query, call) => {
      const init = { query: agentQuery(query), ...call };
      return (await refined(http.json("listAgents", AgentListSchema, "get", `${prefix}/agents`, init))).agents;
    },
    getAgent: (agentId, query, call) => {
      const init = { query: agentQuery(query), ...call };
      return refined(http.json("getAgent", AgentInfoSchema, "get", agent(agentId), init));
    },
    listConnections: async (call) => {
      const list = http.json("listConnections", ServerConnectionListSchema, "get", `${prefix}/acp`, { ...call });
      return (await refined(list)).servers;
    },
    installAgent: async (agentId, options, call) => {
      const init = { json: options, ...call };
      const path = `${agent(agentId)}/install`;
      return toInstallResult(await refined(http.json("installAgent", InstallResultWireSchema, "post", path, init)));
    },
    readFile: (path, call) =>
      refined(http.bytes("fs.readFile", "get", `${prefix}/fs/file`, { query: { path }, ...call })),
    writeFile: async (path, body, call) => {
      await withinBodyLimit("fs.writeFile", body);
      const init = { query: { path }, body: body as BodyInit, contentType: "application/octet-stream", ...call };
      return refined(http.json("fs.writeFile", WriteResultSchema, "put", `${prefix}/fs/file`, init));
    },
    listEntries: (path, call) => {
      const init = { query: { path }, ...call };
      return refined(http.json("fs.listEntries", v.array(FsEntrySchema), "get", `${prefix}/fs/entries`, init));
    },
    stat: (path, call) =>
      refined(http.json("fs.stat", FsStatSchema, "get", `${prefix}/fs/stat`, { query: { path }, ...call })),
    mkdir: (path, call) =>
      refined(http.json("fs.mkdir", PathResultSchema, "post", `${prefix}/fs/mkdir`, { query: { path }, ...call })),
    move: (move, call) =>
      refined(http.json("fs.move", MoveResultSchema, "post", `${prefix}/fs/move`, { json: move, ...call })),
    deleteEntry: (path, recursive, call) => {
      const init = { query: { path, recursive }, ...call };
      return refined(http.json("fs.deleteEntry", PathResultSchema, "delete", `${prefix}/fs/entry`, init));
    },
    uploadBatch: async (tar, path, call) => {
      await withinBodyLimit("fs.uploadBatch", tar);
      const init = { query: { path }, body: tar as BodyInit, contentType: "application/x-tar", ...call };
      return refined(http.json("fs.uploadBatch", UploadResultSchema, "post", `${prefix}/fs/upload-batch`, init));
    },
  };
}

const NO_V2_CONFIG = "the v2 contract's agent list has no config options (a session's result has them)";

/**
 * The `/v2` contract: health and file bytes over HTTP, everything else as extensions on
 * the session connection (so those need one).
 */
export function extensionRoutes(
  http: ControlPlaneHttp,
  channel: ExtensionChannel,
  limits: ServerLimits,
): ControlRoutes {
  const extension: ExtensionChannel["extension"] = (...request) => channel.extension(...request);
  // `noCache` has no v2 counterpart (the runtime does not cache the list); `config` has none either.
  const listAgents = async (query: AgentQueryOptions, call?: CallOptions): Promise<AgentInfo[]> => {
    if (query.config) throw new UnsupportedFeatureError("listAgents({ config })", NO_V2_CONFIG);
    const result = await extension("listAgents", "agentList", "_sandboxagent/agent/list", {}, call);
    return validate("listAgents", AgentListSchema, result).agents;
  };
  return {
    ...httpRoutes(http, "/v2", limits),
    listAgents,
    listConnections: () =>
      Promise.reject(new UnsupportedFeatureError("listConnections", "the v2 contract has no connection list")),
    getAgent: async (agentId, query, call) => {
      const agent = (await listAgents(query, call)).find((candidate) => candidate.id === agentId);
      if (agent) return agent;
      // No per-agent route here: an unknown id fails as the v1 route does, so callers handle one error.
      const problem = { type: "urn:sandbox-agent:error:unsupported_agent", detail: `unsupported agent: ${agentId}` };
      throw refineHttpError(new SandboxAgentHttpError("getAgent", 400, problem, undefined));
    },
    installAgent: async (agentId, options, call) => {
      const params = { agent: agentId, ...options };
      const result = await extension("installAgent", "agentInstall", "_sandboxagent/agent/install", params, call);
      return toInstallResult(validate("installAgent", InstallResultWireSchema, result));
    },
    listEntries: async (path, call) => {
      const params = path === undefined ? {} : { path };
      const result = await extension("fs.listEntries", "fsListEntries", "_sandboxagent/fs/list_entries", params, call);
      return validate("fs.listEntries", FsEntryListSchema, result).entries;
    },
    stat: async (path, call) =>
      validate("fs.stat", FsStatSchema, await extension("fs.stat", "fsStat", "_sandboxagent/fs/stat", { path }, call)),
    mkdir: async (path, call) => {
      const result = await extension("fs.mkdir", "fsMkdir", "_sandboxagent/fs/mkdir", { path }, call);
      return validate("fs.mkdir", PathResultSchema, result);
    },
    move: async (move, call) =>
      validate("fs.move", MoveResultSchema, await extension("fs.move", "fsMove", "_sandboxagent/fs/move", move, call)),
    deleteEntry: async (path, recursive, call) => {
      const params = { path, recursive: recursive ?? false };
      const result = await extension("fs.deleteEntry", "fsDeleteEntry", "_sandboxagent/fs/delete_entry", params, call);
      return validate("fs.deleteEntry", PathResultSchema, result);
    },
  };
}
