/** §3: the capability advertisement injected into every initialize response. */
import { asObject, isObject, META_NAMESPACE } from "./json.js";

/** §3 order: the 17 methods (agent/unparsed deliberately absent). */
export const EXTENSION_METHODS = [
  "_sandboxagent/session/detach",
  "_sandboxagent/session/terminate",
  "_sandboxagent/session/ended",
  "_sandboxagent/session/list_models",
  "_sandboxagent/session/set_metadata",
  "_sandboxagent/agent/list",
  "_sandboxagent/agent/install",
  "_sandboxagent/session/list",
  "_sandboxagent/session/get",
  "_sandboxagent/fs/list_entries",
  "_sandboxagent/fs/read_file",
  "_sandboxagent/fs/write_file",
  "_sandboxagent/fs/delete_entry",
  "_sandboxagent/fs/mkdir",
  "_sandboxagent/fs/move",
  "_sandboxagent/fs/stat",
  "_sandboxagent/fs/upload_batch",
] as const;

const FLAGS = [
  "sessionDetach",
  "sessionTerminate",
  "sessionEndedNotification",
  "sessionListModels",
  "sessionSetMetadata",
  "sessionAgentMeta",
  "agentList",
  "agentInstall",
  "sessionList",
  "sessionGet",
  "fsListEntries",
  "fsReadFile",
  "fsWriteFile",
  "fsDeleteEntry",
  "fsMkdir",
  "fsMove",
  "fsStat",
  "fsUploadBatch",
] as const;

function extensionsObject(): Record<string, unknown> {
  return { ...Object.fromEntries(FLAGS.map((flag) => [flag, true])), methods: [...EXTENSION_METHODS] };
}

/** Only when `agentCapabilities` is an object; other `_meta` keys survive, `extensions` is overwritten. */
export function injectExtensions(result: unknown): void {
  const capabilities = asObject(result)?.agentCapabilities;
  if (!isObject(capabilities)) return;
  const meta = asObject(capabilities._meta) ?? {};
  const namespace = asObject(meta[META_NAMESPACE]) ?? {};
  namespace.extensions = extensionsObject();
  meta[META_NAMESPACE] = namespace;
  capabilities._meta = meta;
}
