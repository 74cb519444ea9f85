// Heavy test-only tools (qwen-code, goose, Claude Code's and Codex's ACP adapters, a second Node.js)
// stay out of the root lockfile: each has a folder of its own with a package.json and a pinned
// package-lock.json, installed on demand, once per machine, into a cache folder named for a hash of
// those two files. A lockfile change
// therefore installs afresh next to the old copy instead of patching it.
//
// `npm ci` refuses qwen-code's lockfile (it lists platform packages with empty versions, which npm
// never records), so the install is `npm install --no-save`, which honours the locked versions and
// integrity hashes without rewriting the lockfile.
//
// Usable from jest's global setup, from the harnesses, and as a script:
//   node spec/support/interop-install.js qwen goose node22
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The on-demand installs: the folder holding package.json and package-lock.json, and what it brings. */
export const INSTALLS = {
  qwen: { folder: "spec/interop/qwen-install", label: "qwen-code", scripts: false },
  goose: { folder: "spec/interop/goose-install", label: "goose", scripts: false },
  // Claude Code's ACP adapter; the Claude Code it drives is the JavaScript bundled in its agent SDK.
  claude: { folder: "spec/interop/claude-install", label: "claude-agent-acp", scripts: false },
  // Codex's ACP adapter: a launcher script and the native binary of an optional platform package.
  codex: { folder: "spec/interop/codex-install", label: "codex-acp", scripts: false },
  // The `node` package fetches its platform binary (another registry package) in a preinstall script.
  node22: { folder: "spec/examples/node22-install", label: "Node.js 22", scripts: true },
  // The Angular runtime the Angular example runs on in Chromium (compiled just in time in the page).
  angular: { folder: "spec/examples/angular-install", label: "Angular", scripts: false },
};

const MARKER = ".installed";
const LOCK_STALE_MS = 10 * 60_000;
const DEFAULT_TIMEOUT_MS = 8 * 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where installs live: $SANDBOX_AGENT_RX_CACHE, else $XDG_CACHE_HOME/sandbox-agent-rx, else ~/.cache/…. */
export function cacheRoot() {
  if (process.env.SANDBOX_AGENT_RX_CACHE) return process.env.SANDBOX_AGENT_RX_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "sandbox-agent-rx");
}

function spec(name) {
  const found = INSTALLS[name];
  if (!found) throw new Error(`unknown install "${name}" (known: ${Object.keys(INSTALLS).join(", ")})`);
  return found;
}

function sources(name) {
  const folder = join(repoRoot, spec(name).folder);
  return ["package.json", "package-lock.json"].map((file) => join(folder, file));
}

/** The folder an install lives in; its node_modules/ holds the tool once `isInstalled`. */
export function installDir(name) {
  const hash = createHash("sha256");
  for (const file of sources(name)) hash.update(readFileSync(file));
  return join(cacheRoot(), `${name}-${hash.digest("hex").slice(0, 12)}`);
}

export function isInstalled(name) {
  return existsSync(join(installDir(name), MARKER));
}

/** The pinned version of `pkg` in the install's lockfile, for messages. */
export function pinnedVersion(name, pkg) {
  const lock = JSON.parse(readFileSync(sources(name)[1], "utf8"));
  return lock.packages?.[`node_modules/${pkg}`]?.version;
}

/** npm as the running npm (under `npm test`) or from PATH; its lifecycle variables stay behind. */
function npmCommand() {
  const execPath = process.env.npm_execpath;
  return execPath && /npm-cli\.js$/.test(execPath) ? [process.execPath, [execPath]] : ["npm", []];
}

function npmEnv() {
  const keep = /^npm_config_(registry|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|strict_ssl|cafile|ca)$/;
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && (!/^npm_/i.test(key) || keep.test(key))) env[key] = value;
  }
  return env;
}

function runNpm(args, cwd, timeoutMs) {
  const [command, prefix] = npmCommand();
  return new Promise((resolve) => {
    const child = spawn(command, [...prefix, ...args], { cwd, env: npmEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (data) => {
      output = (output + data.toString("utf8")).slice(-16_000);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `${output}\n${error.message}` });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const stopped = signal ? `\nnpm was stopped (${signal}) after ${timeoutMs} ms` : "";
      resolve({ code: code ?? -1, output: `${output}${stopped}` });
    });
  });
}

/** Why an install failed, in one paragraph that says what to do. */
export class InteropInstallError extends Error {
  constructor(name, dir, output) {
    const { label } = spec(name);
    const unreachable = /E(NOTFOUND|CONNREFUSED|CONNRESET|TIMEDOUT|AI_AGAIN|NETUNREACH)|network|stopped \(SIGKILL\)/i;
    const offline = unreachable.test(output);
    const errors = output.split("\n").filter((line) => /^npm (error|ERR!)/.test(line)).slice(0, 8).join("\n");
    super(
      `${label} is not installed and could not be installed into ${dir}` +
        (offline ? " because the npm registry could not be reached" : "") +
        `. The tests that need it install it once per machine from ${spec(name).folder}/package-lock.json; ` +
        `with the registry reachable, run \`node spec/support/interop-install.js ${name}\`.\n` +
        (errors || output.slice(-2000)),
    );
    this.name = "InteropInstallError";
  }
}

/** Takes the install's lock (a directory); waits while another process holds it. */
async function lock(dir, deadline) {
  const lockDir = `${dir}.lock`;
  for (;;) {
    try {
      mkdirSync(lockDir);
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    if (existsSync(join(dir, MARKER))) return undefined;
    let age = 0;
    try {
      age = Date.now() - statSync(lockDir).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    if (age > LOCK_STALE_MS) rmSync(lockDir, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`timed out waiting for another process installing into ${dir}`);
    await sleep(500);
  }
}

const pending = new Map();

/**
 * Installs `name` unless it already is, and returns its folder. Safe to call from several processes
 * at once: one installs (into a staging folder renamed into place), the others wait for it.
 */
export function ensureInstalled(name, options = {}) {
  const dir = installDir(name);
  if (existsSync(join(dir, MARKER))) return Promise.resolve(dir);
  let install = pending.get(name);
  if (!install) {
    install = doInstall(name, dir, options.timeoutMs ?? DEFAULT_TIMEOUT_MS).finally(() => pending.delete(name));
    pending.set(name, install);
  }
  return install;
}

async function doInstall(name, dir, timeoutMs) {
  mkdirSync(cacheRoot(), { recursive: true });
  const release = await lock(dir, Date.now() + timeoutMs);
  if (!release) return dir;
  try {
    if (existsSync(join(dir, MARKER))) return dir;
    const staging = `${dir}.staging-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    for (const file of sources(name)) copyFileSync(file, join(staging, file.slice(file.lastIndexOf("/") + 1)));
    const args = ["install", "--no-save", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"];
    if (!spec(name).scripts) args.push("--ignore-scripts");
    const started = Date.now();
    const { code, output } = await runNpm(args, staging, timeoutMs);
    if (code !== 0) {
      rmSync(staging, { recursive: true, force: true });
      throw new InteropInstallError(name, dir, output);
    }
    const record = { installedAt: new Date().toISOString(), ms: Date.now() - started };
    writeFileSync(join(staging, MARKER), `${JSON.stringify(record)}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return dir;
  } finally {
    release();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const names = process.argv.slice(2);
  for (const name of names.length > 0 ? names : Object.keys(INSTALLS)) {
    const started = Date.now();
    const already = isInstalled(name);
    try {
      const dir = await ensureInstalled(name);
      const what = already ? "already installed" : `installed in ${Date.now() - started} ms`;
      console.log(`${spec(name).label}: ${what} at ${dir}`);
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    }
  }
}
