/**
 * §4: the `_sandboxagent/*` methods the runtime answers itself. Failures are thrown as HTTP
 * problems, never returned as JSON-RPC errors. None of them subscribe the caller to a session.
 */
import { paramsAgent } from "./agent-selection.js";
import { AGENT_IDS, type AgentId } from "./agents.js";
import type { Connection } from "./connection.js";
import {
  deleteEntry,
  listEntries,
  makeDirectory,
  moveEntry,
  readRegularFile,
  resolvePath,
  statEntry,
  uploadTar,
  writeWithParents,
} from "./fs.js";
import { asObject, boolField, firstString, sandboxMeta, stringField, type JsonObject } from "./json.js";
import { listModelsResult, parseModelListPage, type ModelEntry } from "./models.js";
import { problems } from "./problem.js";
import type { Runtime } from "./runtime.js";
import { sessionInfo } from "./sessions.js";

type Handler = (runtime: Runtime, connection: Connection, params: unknown) => unknown;

const MODEL_LIST_MAX_PAGES = 20;

function missing(field: string): never {
  throw problems.invalidRequest(`missing field \`${field}\``);
}

/** §4: detach, terminate and set_metadata read only `params.sessionId`. */
function strictSessionId(params: unknown): string {
  return stringField(params, "sessionId") ?? missing("sessionId");
}

function eitherSessionId(params: unknown): string | undefined {
  return firstString(params, "sessionId", "session_id");
}

// ---- §4.1 session methods ----------------------------------------------------------------------

const detach: Handler = (runtime, connection, params) => {
  runtime.detach(connection, strictSessionId(params));
  return {};
};

const terminate: Handler = (runtime, _connection, params) => runtime.terminate(strictSessionId(params));

/** `metadata` when it is an object, else `_meta["sandboxagent.dev"]`; both missing is a 400. */
const setMetadata: Handler = (runtime, _connection, params) => {
  const sessionId = strictSessionId(params);
  const patch = asObject(asObject(params)?.metadata) ?? sandboxMeta(params);
  if (!patch) throw problems.invalidRequest('set_metadata requires metadata or _meta["sandboxagent.dev"]');
  runtime.sessions.setMetadata(runtime.requireSession(sessionId), patch);
  return {};
};

/** `params.agent` is validated even when the session is known; the session's agent still wins. */
const listModels: Handler = async (runtime, _connection, params) => {
  const explicit = paramsAgent(params);
  const sessionId = stringField(params, "sessionId");
  const record = sessionId === undefined ? undefined : runtime.sessions.get(sessionId);
  const agent = record?.agent ?? explicit;
  if (agent === undefined) throw problems.invalidRequest("_sandboxagent/session/list_models requires sessionId or agent");
  if (runtime.installed.has(agent)) await refreshModels(runtime, agent);
  return listModelsResult(runtime.models.catalog(agent), record?.modelHint);
};

/** §4.1: non-ACP `model/list`, following nextCursor for up to 20 pages; refresh errors are ignored. */
async function refreshModels(runtime: Runtime, agent: AgentId): Promise<void> {
  const models: ModelEntry[] = [];
  let defaultId: string | undefined;
  let cursor: string | null = null;
  try {
    for (let page = 0; page < MODEL_LIST_MAX_PAGES; page++) {
      const response = await runtime.runtimeRequest(agent, "model/list", { cursor, limit: null });
      if (response.error !== undefined) return;
      const parsed = parseModelListPage(response.result);
      models.push(...parsed.models);
      defaultId = parsed.defaultId ?? defaultId;
      cursor = stringField(response.result, "nextCursor") ?? null;
      if (cursor === null) break;
    }
  } catch {
    return;
  }
  runtime.models.storeRefresh(agent, models, defaultId);
}

const listSessions: Handler = (runtime) => ({ sessions: runtime.sessions.all().map(sessionInfo) });

const getSession: Handler = (runtime, _connection, params) =>
  sessionInfo(runtime.requireSession(eitherSessionId(params) ?? missing("sessionId")));

// ---- §4.2 agent methods ------------------------------------------------------------------------

const CAPABILITY_NAMES = [
  "planMode",
  "permissions",
  "questions",
  "toolCalls",
  "toolResults",
  "textMessages",
  "images",
  "fileAttachments",
  "sessionLifecycle",
  "errorEvents",
  "reasoning",
  "status",
  "commandExecution",
  "fileChanges",
  "mcpTools",
  "streamingDeltas",
  "itemStarted",
  "sharedProcess",
] as const;

/** [uncertain] The contract names the 18 flags but not the per-agent table; only sharedProcess is documented. */
function capabilities(agent: AgentId): JsonObject {
  const shared = agent === "codex" || agent === "opencode";
  return Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, name === "sharedProcess" ? shared : true]));
}

/**
 * §4.2 AgentInfo. The contract server reads no credentials, so only the mock reports them available.
 * The static modes table is not in the contract, so `modes` is left out.
 */
function agentInfo(runtime: Runtime, agent: AgentId): JsonObject {
  const installed = runtime.installed.has(agent);
  const info: JsonObject = { id: agent, installed, credentialsAvailable: agent === "mock", capabilities: capabilities(agent) };
  if (agent === "mock") info.version = "builtin";
  if (agent === "codex" || agent === "opencode") {
    info.serverStatus = { status: runtime.hasBackend(agent) ? "running" : "stopped", restartCount: 0 };
  }
  if (installed) {
    const catalog = runtime.models.catalog(agent);
    info.models = catalog.models.map((model) => (model.name === null ? { id: model.modelId } : { id: model.modelId, name: model.name }));
    if (catalog.currentModelId !== null) info.defaultModel = catalog.currentModelId;
  }
  return info;
}

const listAgents: Handler = (runtime) => ({ agents: AGENT_IDS.map((agent) => agentInfo(runtime, agent)) });

/**
 * §4.2 install (snake_case result). Nothing is downloaded here: the mock is builtin and the other
 * agents are served by the §7 stand-in, reported as one `builtin` agent_process artifact.
 */
const installAgent: Handler = (runtime, _connection, params) => {
  const agent = paramsAgent(params) ?? missing("agent");
  const reinstall = boolField(params, "reinstall") ?? false;
  const alreadyInstalled = runtime.installed.has(agent) && (agent === "mock" || !reinstall);
  runtime.installed.add(agent);
  if (alreadyInstalled) return { already_installed: true, artifacts: [] };
  const version = firstString(params, "agentProcessVersion", "agent_process_version") ?? null;
  const path = `${runtime.options.home}/.local/share/sandbox-agent/bin/${agent}-acp`;
  return { already_installed: false, artifacts: [{ kind: "agent_process", path, source: "builtin", version }] };
};

// ---- §4.3 filesystem methods -------------------------------------------------------------------

function fsPath(runtime: Runtime, params: unknown, key: string, fallback?: string): string {
  const raw = stringField(params, key) ?? fallback ?? missing(key);
  return resolvePath(runtime, raw, eitherSessionId(params));
}

function base64Content(params: unknown): Buffer {
  const content = firstString(params, "contentBase64", "content_base64") ?? missing("contentBase64");
  // Standard padded alphabet only: Buffer.from would silently accept garbage.
  if (content.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(content)) {
    throw problems.invalidRequest("invalid base64 content");
  }
  return Buffer.from(content, "base64");
}

const fsHandlers: Record<string, Handler> = {
  list_entries: (runtime, _c, params) => listEntries(fsPath(runtime, params, "path", ".")),
  read_file: async (runtime, _c, params) => {
    const path = fsPath(runtime, params, "path");
    const bytes = await readRegularFile(path);
    return { path, size: bytes.length, contentBase64: bytes.toString("base64") };
  },
  write_file: (runtime, _c, params) => writeWithParents(fsPath(runtime, params, "path"), base64Content(params)),
  delete_entry: (runtime, _c, params) =>
    deleteEntry(fsPath(runtime, params, "path"), boolField(params, "recursive") ?? false),
  mkdir: (runtime, _c, params) => makeDirectory(fsPath(runtime, params, "path")),
  move: (runtime, _c, params) =>
    moveEntry(fsPath(runtime, params, "from"), fsPath(runtime, params, "to"), boolField(params, "overwrite") ?? false),
  stat: (runtime, _c, params) => statEntry(fsPath(runtime, params, "path")),
  upload_batch: (runtime, _c, params) => uploadTar(fsPath(runtime, params, "path", "."), base64Content(params)),
};

export const EXTENSION_REQUESTS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["_sandboxagent/session/detach", detach],
  ["_sandboxagent/session/terminate", terminate],
  ["_sandboxagent/session/set_metadata", setMetadata],
  ["_sandboxagent/session/list_models", listModels],
  ["_sandboxagent/session/list", listSessions],
  ["_sandboxagent/session/get", getSession],
  ["_sandboxagent/agent/list", listAgents],
  ["_sandboxagent/agent/install", installAgent],
  ...Object.entries(fsHandlers).map(([name, handler]): [string, Handler] => [`_sandboxagent/fs/${name}`, handler]),
]);

/** §4: only these three are also handled as notifications; others are forwarded to the agent. */
export const EXTENSION_NOTIFICATIONS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["_sandboxagent/session/detach", detach],
  ["_sandboxagent/session/terminate", terminate],
  ["_sandboxagent/session/set_metadata", setMetadata],
]);
