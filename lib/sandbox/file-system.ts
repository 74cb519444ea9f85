import type { CallOptions } from "./connection.js";
import type { ControlRoutes } from "./control-routes.js";
import type { FsEntry, FsStat, MoveResult, UploadResult, WriteResult } from "./control-schemas.js";

/** The server's filesystem: paths are the server's; relative ones resolve against its `$HOME`. */
export interface FileSystem {
  /** The whole file; `timeoutMs` bounds the body too. */
  readFile(path: string, call?: CallOptions): Promise<Uint8Array>;
  /** Creates or replaces the file (a string is written as UTF-8). */
  writeFile(path: string, content: Uint8Array | string, call?: CallOptions): Promise<WriteResult>;
  listEntries(path?: string, call?: CallOptions): Promise<FsEntry[]>;
  stat(path: string, call?: CallOptions): Promise<FsStat>;
  mkdir(path: string, call?: CallOptions): Promise<{ path: string }>;
  move(from: string, to: string, options?: { overwrite?: boolean }, call?: CallOptions): Promise<MoveResult>;
  deleteEntry(path: string, options?: { recursive?: boolean }, call?: CallOptions): Promise<{ path: string }>;
  /** Extracts an uncompressed tar archive under `path`. */
  uploadBatch(tar: Uint8Array, options?: { path?: string }, call?: CallOptions): Promise<UploadResult>;
}

/** The filesystem methods over the routes of the server's contract (resolved per call). */
export function fileSystem(routes: () => Promise<ControlRoutes>): FileSystem {
  return {
    readFile: async (path, call) => (await routes()).readFile(path, call),
    writeFile: async (path, content, call) => {
      const body = typeof content === "string" ? new TextEncoder().encode(content) : content;
      return (await routes()).writeFile(path, body, call);
    },
    listEntries: async (path, call) => (await routes()).listEntries(path, call),
    stat: async (path, call) => (await routes()).stat(path, call),
    mkdir: async (path, call) => (await routes()).mkdir(path, call),
    move: async (from, to, options = {}, call) => {
      const move = { from, to, ...(options.overwrite !== undefined ? { overwrite: options.overwrite } : {}) };
      return (await routes()).move(move, call);
    },
    deleteEntry: async (path, options = {}, call) => (await routes()).deleteEntry(path, options.recursive, call),
    uploadBatch: async (tar, options = {}, call) => (await routes()).uploadBatch(tar, options.path, call),
  };
}
