/** Filesystem operations on the real local filesystem, with the §4.3 path rules. */
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import type { Stats } from "node:fs";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import type { JsonObject } from "./json.js";
import { HttpProblem, problems } from "./problem.js";
import type { Runtime } from "./runtime.js";
import { readTar } from "./tar.js";

const MAX_LISTED_PATHS = 1024;

/**
 * §4.3: absolute paths as-is; relative ones join the session's cwd (unknown session → 404) or $HOME.
 * [inferred] The session is looked up whenever one is named, even for an absolute path.
 */
export function resolvePath(runtime: Runtime, raw: string, sessionId: string | undefined): string {
  const base = sessionId === undefined ? runtime.options.home : runtime.requireSession(sessionId).cwd;
  if (isAbsolute(raw)) return raw;
  if (raw.split(/[\\/]/).includes("..")) throw problems.invalidRequest(`invalid relative path: ${raw}`);
  return join(base, raw);
}

/** §4.3: a missing path is a 400; [inferred] every other IO error is a 502 stream_error. */
function ioProblem(error: unknown, path: string): HttpProblem {
  if (error instanceof HttpProblem) return error;
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  if (code === "ENOENT") return problems.invalidRequest(`path not found: ${path}`);
  return problems.streamError(error instanceof Error ? error.message : String(error));
}

async function io<T>(path: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw ioProblem(error, path);
  }
}

function entryType(stats: Stats): "file" | "directory" {
  return stats.isDirectory() ? "directory" : "file";
}

function describe(path: string, stats: Stats): JsonObject {
  // `modified` is RFC 3339; toISOString is a valid RFC 3339 form.
  return { path, entryType: entryType(stats), size: stats.size, modified: stats.mtime.toISOString() };
}

export function listEntries(path: string): Promise<JsonObject> {
  return io(path, async () => {
    if (!(await stat(path)).isDirectory()) throw problems.invalidRequest(`path is not a directory: ${path}`);
    const entries: JsonObject[] = [];
    for (const name of await readdir(path)) {
      const child = join(path, name);
      const stats = await stat(child).catch(() => undefined);
      if (stats) entries.push({ name, ...describe(child, stats) });
    }
    return { entries };
  });
}

export function readRegularFile(path: string): Promise<Buffer> {
  return io(path, async () => {
    if (!(await stat(path)).isFile()) throw problems.invalidRequest(`path is not a file: ${path}`);
    return readFile(path);
  });
}

export function writeWithParents(path: string, bytes: Buffer): Promise<JsonObject> {
  return io(path, async () => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, bytes);
    return { path, bytesWritten: bytes.length };
  });
}

/** A non-empty directory without `recursive` fails in the OS call, which §4.3 reports as 502. */
export function deleteEntry(path: string, recursive: boolean): Promise<JsonObject> {
  return io(path, async () => {
    const stats = await stat(path);
    if (stats.isDirectory()) await (recursive ? rm(path, { recursive: true }) : rmdir(path));
    else await unlink(path);
    return { path };
  });
}

export function makeDirectory(path: string): Promise<JsonObject> {
  return io(path, async () => {
    await mkdir(path, { recursive: true });
    return { path };
  });
}

export function moveEntry(from: string, to: string, overwrite: boolean): Promise<JsonObject> {
  return io(from, async () => {
    await stat(from);
    const exists = await stat(to).then(
      () => true,
      () => false,
    );
    if (exists && !overwrite) throw problems.invalidRequest(`destination already exists: ${to}`);
    if (exists) await rm(to, { recursive: true, force: true });
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
    return { from, to };
  });
}

export function statEntry(path: string): Promise<JsonObject> {
  return io(path, async () => describe(path, await stat(path)));
}

/**
 * §4.3/§8: unpack a tar under `base`. Entries that would escape it are rejected before anything is
 * written. [inferred] Every unpacked file and directory is listed, in archive order.
 */
export async function uploadTar(base: string, archive: Buffer): Promise<JsonObject> {
  const entries = readTar(archive).filter((entry) => entry.kind !== "other");
  const targets = entries.map((entry) => ({ entry, target: entryTarget(base, entry.name) }));
  const paths: string[] = [];
  await io(base, async () => {
    for (const { entry, target } of targets) {
      if (entry.kind === "directory") await mkdir(target, { recursive: true });
      else await writeWithParents(target, entry.data);
      paths.push(target);
    }
  });
  return { paths: paths.slice(0, MAX_LISTED_PATHS), truncated: paths.length > MAX_LISTED_PATHS };
}

function entryTarget(base: string, name: string): string {
  const relative = normalize(name).replace(/[\\/]+$/, "");
  if (isAbsolute(name) || relative === ".." || relative.startsWith(`..${sep}`)) {
    throw problems.invalidRequest(`tar entry escapes destination: ${name}`);
  }
  return join(base, relative);
}
