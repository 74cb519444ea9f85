// What the getting-started spec needs to follow docs/getting-started.md offline: the page read as
// sections of shell blocks and titled files, and a stand-in for `npm install` / `npx @angular/cli new`
// that installs sandbox-agent-rx from the packed tarball (npm, from its cache) and links every other
// package named from the repository's node_modules (what `npm ci` installed), bins included.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface FileBlock {
  title: string;
  code: string;
}

export interface Section {
  heading: string;
  /** The ```sh blocks, in order. */
  shell: string[];
  /** The blocks with a `title="path"`, in order. */
  files: FileBlock[];
}

export function sections(markdown: string): Section[] {
  return markdown.split(/^## /m).slice(1).map((part) => {
    const heading = part.slice(0, part.indexOf("\n")).trim();
    const shell: string[] = [];
    const files: FileBlock[] = [];
    for (const match of part.matchAll(/^```(\w+)(?: title="([^"]+)")?\n([\s\S]*?)^```$/gm)) {
      const [, lang, title, code = ""] = match;
      if (title) files.push({ title, code });
      else if (lang === "sh") shell.push(code);
    }
    return { heading, shell, files };
  });
}

/** Node script run by the stand-ins below (npm install / npx @angular/cli new). */
const INSTALLER = `
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const { GS_TARBALL: tarball, GS_REPO_MODULES: repoModules } = process.env;
const RECORD = ".getting-started-links";

function link(name) {
  const source = join(repoModules, name);
  if (!existsSync(source)) throw new Error(name + " is not installed in the repository, so this run cannot provide it offline");
  const target = join("node_modules", name);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(source, target, "dir");
  const bin = JSON.parse(readFileSync(join(source, "package.json"), "utf8")).bin ?? {};
  const bins = typeof bin === "string" ? { [name.split("/").pop()]: bin } : bin;
  mkdirSync(join("node_modules", ".bin"), { recursive: true });
  for (const [command, file] of Object.entries(bins)) {
    rmSync(join("node_modules", ".bin", command), { force: true });
    symlinkSync(join("..", name, file), join("node_modules", ".bin", command));
  }
}

function linkAll(names) {
  for (const name of names) link(name);
  appendFileSync(RECORD, names.map((name) => name + "\\n").join(""));
}

const args = process.argv.slice(2);
if (args[0] === "--ng-new") {
  // What \`ng new\` leaves that the page relies on: a project folder whose app already has Angular and rxjs.
  mkdirSync(args[1]);
  process.chdir(args[1]);
  writeFileSync("package.json", JSON.stringify({ name: args[1], private: true }, null, 2));
  linkAll(["@angular/core", "rxjs", "tslib"]);
} else {
  const names = args.filter((arg) => !arg.startsWith("-"));
  if (names.includes("sandbox-agent-rx")) {
    // From the npm cache only; a machine whose cache lacks a dependency gets it once from the
    // registry, as the rest of the suite does (README: "once per machine, the npm registry").
    const install = (mode) => execFileSync("npm", ["install", mode, "--no-audit", "--no-fund", tarball], { stdio: "pipe" });
    try {
      install("--offline");
    } catch {
      install("--prefer-offline");
    }
    // npm prunes what its lockfile does not know: the links made before come back.
    const known = existsSync(RECORD) ? readFileSync(RECORD, "utf8").split("\\n").filter(Boolean) : [];
    for (const name of known) link(name);
  }
  linkAll(names.filter((name) => name !== "sandbox-agent-rx"));
}
`;

export interface Stage {
  dir: string;
  tarball: string;
  repoModules: string;
}

/**
 * Runs a shell block of the page in `cwd` with \`npm install\` and \`npx @angular/cli\` replaced by
 * the stand-ins; returns the directory the block ended in (its \`cd\`s).
 */
export async function runShell(stage: Stage, cwd: string, block: string): Promise<string> {
  const installer = join(stage.dir, "installer.mjs");
  writeFileSync(installer, INSTALLER);
  const ended = join(stage.dir, `pwd-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const script = [
    "set -euo pipefail",
    'npm() { if [ "$1" = install ]; then shift; node "$GS_INSTALLER" "$@"; else command npm "$@"; fi; }',
    'npx() { case "$1" in @angular/cli@*) node "$GS_INSTALLER" --ng-new "$3";; *) command npx "$@";; esac; }',
    block,
    `pwd > "${ended}"`,
  ].join("\n");
  mkdirSync(cwd, { recursive: true });
  const env = { ...process.env, GS_INSTALLER: installer, GS_TARBALL: stage.tarball, GS_REPO_MODULES: stage.repoModules };
  try {
    await run("bash", ["-c", script], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`the page's commands failed:\n${block}\n${stdout}\n${stderr}`);
  }
  return readFileSync(ended, "utf8").trim();
}

export function writeFiles(project: string, files: FileBlock[]): void {
  for (const file of files) {
    const path = join(project, file.title);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.code);
  }
}
