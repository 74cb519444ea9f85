// `npm pack` as it runs from a fresh clone: the tracked (and new, not ignored) files of the working
// tree copied to a temporary directory, so that no dist/ built earlier can hide a package that would
// come out empty. Lifecycle scripts run (prepack builds). node_modules is linked from the repository,
// as `npm ci` would have filled it.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./run-example.js";

const run = promisify(execFile);

export interface FreshPack {
  /** The copy the package was packed from. */
  tree: string;
  /** Absolute path of the tarball. */
  tarball: string;
  /** Paths inside the tarball, relative to the package root. */
  files: string[];
}

/** The files a clone of the working tree would have: tracked ones plus new ones git does not ignore. */
export async function treeFiles(): Promise<string[]> {
  const { stdout } = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
  // A file deleted in the working tree but still in the index is not part of the tree.
  return stdout.split("\0").filter((file) => file !== "" && existsSync(join(repoRoot, file)));
}

/** Copies the tree into `stage/tree` and packs it into `stage`. */
export async function packFreshCopy(stage: string): Promise<FreshPack> {
  const tree = join(stage, "tree");
  for (const file of await treeFiles()) {
    const target = join(tree, file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(repoRoot, file), target);
  }
  symlinkSync(realpathSync(join(repoRoot, "node_modules")), join(tree, "node_modules"), "dir");
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", stage], {
    cwd: tree,
    maxBuffer: 16 * 1024 * 1024,
  });
  // Lifecycle output goes to stderr with --json; the report is the JSON array.
  const [report] = JSON.parse(stdout.slice(stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (!report) throw new Error(`npm pack printed no report: ${stdout}`);
  return { tree, tarball: join(stage, report.filename), files: report.files.map((file) => file.path) };
}
