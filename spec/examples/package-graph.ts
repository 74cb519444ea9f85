// What each entry point of a built package pulls in: the package's "exports" map read as data, and
// the import graph of its emitted JavaScript walked from each entry. The consumer test uses it to
// keep optional peers (ws, better-sqlite3, dockerode) behind their own subpaths.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export interface PackageJson {
  name: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface Entry {
  /** The subpath as written in "exports", e.g. "." or "./acp-http". */
  subpath: string;
  /** The specifier a consumer imports, e.g. "sandbox-agent-rx/acp-http". */
  specifier: string;
  /** The JavaScript file the "default" (or "import") condition points at, relative to the package. */
  file: string;
  /** The declaration file of the "types" condition. */
  types: string | undefined;
  /** True when the export has a "node" condition, i.e. says it is for Node.js only. */
  nodeOnly: boolean;
}

/** Every code entry of the "exports" map (not "./package.json"). */
export function entriesOf(pkg: PackageJson): Entry[] {
  return Object.entries(pkg.exports)
    .filter(([subpath]) => !subpath.endsWith(".json"))
    .map(([subpath, target]) => {
      const conditions = typeof target === "string" ? { default: target } : target;
      const file = conditions.import ?? conditions.default ?? conditions.node;
      if (!file) throw new Error(`exports["${subpath}"] has no default, import or node target`);
      return {
        subpath,
        specifier: subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
        file,
        types: conditions.types,
        nodeOnly: "node" in conditions,
      };
    });
}

export function optionalPeers(pkg: PackageJson): string[] {
  return Object.entries(pkg.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta.optional === true)
    .map(([name]) => name);
}

/**
 * The specifiers one emitted file imports (static, re-exports, side-effect and literal `import()`),
 * read by the TypeScript scanner so that comments and strings that merely mention an import do not count.
 */
export function importsOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

/** The bare name of a package specifier: "ws", "@scope/name", "node:fs" kept whole. */
export function packageName(specifier: string): string {
  if (specifier.startsWith("node:")) return specifier;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

export interface Reach {
  /** Package files reached, relative to the package root. */
  files: string[];
  /** Packages (and node: builtins) imported by any reached file. */
  packages: string[];
}

/** Walks the relative imports from `entryFile` inside `packageRoot`; collects what leaves the package. */
export function reachOf(packageRoot: string, entryFile: string): Reach {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [resolve(packageRoot, entryFile)];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (files.has(file)) continue;
    if (!existsSync(file)) throw new Error(`${relative(packageRoot, file)} is imported but not in the package`);
    files.add(file);
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) queue.push(join(dirname(file), specifier));
      else packages.add(packageName(specifier));
    }
  }
  return { files: [...files].map((f) => relative(packageRoot, f)).sort(), packages: [...packages].sort() };
}

/** The TypeScript source an entry is built from ("./dist/x/index.js" → "lib/x/index.ts", per tsconfig.build.json). */
export function sourceOf(entry: Entry): string {
  const match = /^\.\/dist\/(.+)\.js$/.exec(entry.file);
  if (!match?.[1]) throw new Error(`exports["${entry.subpath}"] does not point into ./dist/: ${entry.file}`);
  return `lib/${match[1]}.ts`;
}
