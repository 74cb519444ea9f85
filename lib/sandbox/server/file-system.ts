import type { CallOptions } from "../call-options.js";
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

/**
 * Runs one call on the routes of the server's contract: `operation` names the call in a failure,
 * and `run` gets the call's bounds (what is left of them once the contract is known).
 */
export type RouteRunner = <T>(
  operation: string,
  call: CallOptions | undefined,
  run: (routes: ControlRoutes, call: CallOptions | undefined) => Promise<T>,
) => Promise<T>;

/** The filesystem methods over the routes of the server's contract (resolved per call). */
export function fileSystem(route: RouteRunner): FileSystem {
  return {
    readFile: (path, call) => route("fs.readFile", call, (r, rest) => r.readFile(path, rest)),
    writeFile: (path, content, call) => {
      const body = typeof content === "string" ? new TextEncoder().encode(content) : content;
      return route("fs.writeFile", call, (r, rest) => r.writeFile(path, body, rest));
    },
    listEntries: (path, call) => route("fs.listEntries", call, (r, rest) => r.listEntries(path, rest)),
    stat: (path, call) => route("fs.stat", call, (r, rest) => r.stat(path, rest)),
    mkdir: (path, call) => route("fs.mkdir", call, (r, rest) => r.mkdir(path, rest)),
    move: (from, to, options = {}, call) => {
      const move = { from, to, ...(options.overwrite !== undefined ? { overwrite: options.overwrite } : {}) };
      return route("fs.move", call, (r, rest) => r.move(move, rest));
    },
    deleteEntry: (path, options = {}, call) =>
      route("fs.deleteEntry", call, (r, rest) => r.deleteEntry(path, options.recursive, rest)),
    uploadBatch: (tar, options = {}, call) =>
      route("fs.uploadBatch", call, (r, rest) => r.uploadBatch(tar, options.path, rest)),
  };
}
