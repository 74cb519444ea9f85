// Runs a real `qwen serve` daemon (the ACP Streamable HTTP profile at /acp) for tests:
// throwaway HOME and workspace, model calls pointed at a fake OpenAI server on
// loopback, and nothing that could reach the network switched on.
//
// Process shape (qwen-code 0.24.4): the daemon leads the process group we create,
// and about a second after it listens it spawns `node cli.js --acp` as its own
// session and group leader. A signal to the daemon's group therefore never reaches
// that child, so stop() tracks it by pid.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOpenAi } from "./fake-openai.js";
import { ensureInstalled } from "./interop-install.js";
import type { FakeOpenAi } from "./fake-openai.js";
import { settlesWithin } from "./local-server.js";
import { readEntry } from "../../lib/providers/local/process-tree.js";

export interface QwenServeOptions {
  /** Bearer token the daemon demands on /acp (`--token`). */
  token?: string;
  /** Model server to use; by default one is started and stopped with the daemon. */
  model?: FakeOpenAi;
  /** Extra environment for the daemon, applied last. */
  env?: Record<string, string>;
  /** How long to wait for the daemon to listen and pre-start its ACP child. Default 30 s. */
  startTimeoutMs?: number;
}

export interface QwenServe {
  /** `http://127.0.0.1:PORT`; the ACP endpoint is `${baseUrl}/acp`. */
  readonly baseUrl: string;
  readonly port: number;
  /** The daemon, leader of its own process group. */
  readonly pid: number;
  /** The pre-started `cli.js --acp` child, if the daemon had started it by the time start returned. */
  readonly acpChildPid: number | undefined;
  /** Absolute, symlink-free workspace directory the agent works in. */
  readonly workspace: string;
  /** The daemon's HOME (qwen keeps its state in `${home}/.qwen`). */
  readonly home: string;
  readonly token: string | undefined;
  readonly model: FakeOpenAi;
  /** Milliseconds from spawn until the daemon was ready for tests. */
  readonly startupMs: number;
  /** The daemon's stdout and stderr so far (the tail, when long), for failure messages. */
  output(): string;
  /** Stops the daemon and every process it started, then removes the temp dirs. Safe to call twice. */
  stop(): Promise<void>;
}

interface ProcessRegistry {
  registerProcess(pid: number): void;
  unregisterProcess(pid: number): void;
}

// The registry is plain JavaScript shared with jest's global setup and teardown and
// ships no type declarations; a non-literal specifier keeps the compiler from asking for them.
const registrySpecifier: string = "./process-registry.js";
let registry: Promise<ProcessRegistry> | undefined;
const loadRegistry = (): Promise<ProcessRegistry> => (registry ??= import(registrySpecifier) as Promise<ProcessRegistry>);

// qwen-code is not in the root lockfile (its platform packages have empty versions, which `npm ci`
// rejects): interop-install.js installs it from spec/interop/qwen-install once per machine.

/** Long enough for a first install from the registry (about 10 s with a warm npm cache, a minute cold). */
export const QWEN_INSTALL_TIMEOUT_MS = 8 * 60_000;

/**
 * The path of qwen-code's CLI entry, installing qwen-code first if this machine has not yet. Suites
 * call it in their first `beforeAll` with {@link QWEN_INSTALL_TIMEOUT_MS}, so a first install does not
 * eat into a start-up deadline; an unreachable registry fails them with an `InteropInstallError`.
 */
export async function qwenCliEntry(): Promise<string> {
  const dir = await ensureInstalled("qwen");
  return createRequire(join(dir, "package.json")).resolve("@qwen-code/qwen-code/cli-entry.js");
}

const OUTPUT_LIMIT = 64 * 1024;
const STOP_GRACE_MS = 5_000;
const SURVIVOR_GRACE_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A process identity that survives pid reuse: the kernel start time is part of it. */
interface ProcessId {
  pid: number;
  startTime: string;
}

/** Field 22 of /proc/<pid>/stat and whether it is a zombie; undefined when the process is gone. */
function readStat(pid: number): { zombie: boolean; startTime: string } | undefined {
  const entry = readEntry(pid);
  return entry && entry.start !== "" ? { zombie: entry.zombie, startTime: entry.start } : undefined;
}

function identify(pid: number): ProcessId | undefined {
  const stat = readStat(pid);
  return stat && { pid, startTime: stat.startTime };
}

/** Zombies count as gone: they hold no resources and only wait for their (new) parent to reap them. */
function isAlive(proc: ProcessId): boolean {
  const stat = readStat(proc.pid);
  return stat !== undefined && stat.startTime === proc.startTime && !stat.zombie;
}

function childPids(pid: number): number[] {
  const pids: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return pids;
  }
  for (const task of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ")) {
        if (child.trim()) pids.push(Number(child));
      }
    } catch {
      // The thread ended while we looked.
    }
  }
  return pids;
}

function descendants(pid: number): ProcessId[] {
  const found: ProcessId[] = [];
  const queue = childPids(pid);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const id = identify(next);
    if (!id) continue;
    found.push(id);
    queue.push(...childPids(next));
  }
  return found;
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

function findAcpChild(daemonPid: number): ProcessId | undefined {
  return descendants(daemonPid).find((p) => commandLine(p.pid).includes("--acp"));
}

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // Already gone.
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function waitUntil(check: () => boolean, ms: number, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(stepMs);
  }
}

/**
 * The daemon does not inherit the test runner's environment: a stray proxy, API key,
 * OTEL endpoint or NODE_OPTIONS there could send it off loopback or change its behaviour.
 */
function daemonEnv(home: string, tmp: string, model: FakeOpenAi, extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    NO_COLOR: "1",
    // These three alone select qwen's OpenAI-compatible provider.
    OPENAI_API_KEY: "fake-key",
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_MODEL: model.model,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    // Env switches read by the bundle; the settings file below says the same for code paths that only read settings.
    QWEN_TELEMETRY_ENABLED: "false",
    QWEN_USAGE_STATISTICS_ENABLED: "false",
    QWEN_CODE_SKIP_UPDATE_CHECK_ONCE: "true",
    // The preconnect would only warm a socket to the fake model; skipping it keeps request counts exact.
    QWEN_CODE_DISABLE_PRECONNECT: "1",
  };
  return { ...env, ...extra };
}

function writeSettings(home: string): void {
  const dir = join(home, ".qwen");
  mkdirSync(dir, { recursive: true });
  const settings = {
    $version: 4,
    general: { enableAutoUpdate: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  };
  writeFileSync(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

interface DaemonStatus {
  daemon?: { startup?: { preheat?: { status?: unknown } } };
}

interface AcpStatus {
  channelLive?: unknown;
}

interface AcpPreheat {
  ready?: unknown;
}

export async function startQwenServe(options: QwenServeOptions = {}): Promise<QwenServe> {
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const root = realpathSync(mkdtempSync(join(tmpdir(), "qwen-serve-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  const tmp = join(root, "tmp");
  for (const dir of [home, workspace, tmp]) mkdirSync(dir);
  writeSettings(home);

  const ownModel = options.model === undefined;
  let model: FakeOpenAi;
  try {
    model = options.model ?? (await startFakeOpenAi({ workspace }));
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  // A shared model with no workspace yet would answer TOOLCALL with plain text.
  if (model.workspace === undefined) model.setWorkspace(workspace);

  const cliEntry = await qwenCliEntry();
  const args = [cliEntry, "serve", "--hostname", "127.0.0.1", "--port", "0", "--no-web", "--workspace", workspace];
  if (options.token !== undefined) args.push("--token", options.token);

  const spawnedAt = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: workspace,
    env: daemonEnv(home, tmp, model, options.env),
    // Its own process group, so stop() can signal the daemon and whatever shares its group at once.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  let output = "";
  const collect = (data: Buffer) => {
    output += data.toString("utf8");
    if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  let spawnError: Error | undefined;
  child.once("error", (err) => {
    spawnError = err;
  });

  const { registerProcess, unregisterProcess } = await loadRegistry();
  if (pid !== undefined) registerProcess(pid);
  const daemon = pid !== undefined ? identify(pid) : undefined;
  // Every ACP child seen, registered as soon as seen: it leads its own session, so the
  // group-wide kill in jest's global teardown would miss it if a start or test is cut short.
  const acpChildren = new Map<number, ProcessId>();
  const trackAcpChild = (): ProcessId | undefined => {
    const found = pid !== undefined ? findAcpChild(pid) : undefined;
    if (found && !acpChildren.has(found.pid)) {
      acpChildren.set(found.pid, found);
      registerProcess(found.pid);
    }
    return found;
  };

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      // Snapshot the tree first: once the daemon dies its children are reparented and can no longer be found from it.
      const tree = pid !== undefined ? descendants(pid) : [];
      for (const known of acpChildren.values()) if (!tree.some((p) => p.pid === known.pid)) tree.push(known);
      if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
        // The daemon shuts its ACP child down itself on SIGTERM; signalling the child too would race that.
        signal(-pid, "SIGTERM");
        if (!(await settlesWithin(exited(child), STOP_GRACE_MS))) {
          signal(-pid, "SIGKILL");
          await exited(child);
        }
      }
      if (!(await waitUntil(() => tree.every((p) => !isAlive(p)), SURVIVOR_GRACE_MS))) {
        for (const p of tree) if (isAlive(p)) signal(p.pid, "SIGKILL");
        await waitUntil(() => tree.every((p) => !isAlive(p)), SURVIVOR_GRACE_MS);
      }
      const survivors = [...tree, ...(daemon ? [daemon] : [])].filter(isAlive).map((p) => p.pid);
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (pid !== undefined) unregisterProcess(pid);
      for (const known of acpChildren.keys()) unregisterProcess(known);
      if (ownModel) await model.stop();
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      if (survivors.length > 0) throw new Error(`qwen serve: processes survived stop(): ${survivors.join(", ")}`);
    })());

  const fail = async (reason: string): Promise<never> => {
    const tail = output.slice(-4000);
    await stop().catch(() => undefined);
    throw new Error(`qwen serve did not start: ${reason}\n--- daemon output ---\n${tail}`);
  };

  if (pid === undefined) return fail(spawnError?.message ?? "spawn failed");
  const deadline = spawnedAt + startTimeoutMs;
  const gone = () => child.exitCode !== null || child.signalCode !== null || spawnError !== undefined;

  // `--port 0` avoids a free-port race; the daemon prints the port it got.
  let port: number | undefined;
  await waitUntil(() => {
    const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
    if (match?.[1]) port = Number(match[1]);
    return port !== undefined || gone() || Date.now() >= deadline;
  }, startTimeoutMs);
  if (port === undefined) return fail(gone() ? "the daemon exited" : "no listen line in time");
  const baseUrl = `http://127.0.0.1:${port}`;
  const headers: Record<string, string> = options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {};

  const getJson = async (path: string, init: RequestInit = {}): Promise<unknown> => {
    try {
      const res = await fetch(`${baseUrl}${path}`, { ...init, headers, signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
      return res.ok ? ((await res.json()) as unknown) : undefined;
    } catch {
      return undefined;
    }
  };

  // Readiness is more than /health: the daemon starts its ACP child about a second
  // after listening, and a session/new sent meanwhile would race that start-up.
  // /daemon/status reports how that start ("preheat") went.
  let preheat: unknown;
  while (Date.now() < deadline && !gone()) {
    const status = (await getJson("/daemon/status")) as DaemonStatus | undefined;
    preheat = status?.daemon?.startup?.preheat?.status;
    trackAcpChild();
    if (preheat === "succeeded" || preheat === "failed" || preheat === "not_scheduled") break;
    await sleep(100);
  }
  // On a loaded machine the child can miss the daemon's fixed 10 s initialize
  // timeout; the daemon then kills it and would only retry on the first session,
  // inside some test's time budget. Ask for another start here instead.
  let live = false;
  while (Date.now() < deadline && !gone()) {
    const status = (await getJson("/workspace/acp/status")) as AcpStatus | undefined;
    trackAcpChild();
    if (status?.channelLive === true) {
      live = true;
      break;
    }
    const budget = Math.min(60_000, deadline - Date.now());
    if (budget <= 0) break;
    const result = (await getJson(`/workspace/acp/preheat?timeoutMs=${budget}`, { method: "POST" })) as AcpPreheat | undefined;
    if (result?.ready !== true) await sleep(200);
  }
  if (gone()) return fail("the daemon exited");
  if (!live) return fail(`the ACP child did not come up (startup preheat: ${String(preheat)})`);
  if ((await getJson("/health")) === undefined) return fail("GET /health did not answer 200");

  // The channel is live, so the child exists; the /proc view may lag a moment behind.
  let acpChild: ProcessId | undefined;
  await waitUntil(() => (acpChild = trackAcpChild()) !== undefined, Math.max(0, Math.min(2_000, deadline - Date.now())));
  const startupMs = Date.now() - spawnedAt;

  return {
    baseUrl,
    port,
    pid,
    acpChildPid: acpChild?.pid,
    workspace,
    home,
    token: options.token,
    model,
    startupMs,
    output: () => output,
    stop,
  };
}

/** Whether a pid from a stopped server still runs; for tests that check stop() left nothing behind. */
export function processExists(pid: number): boolean {
  if (existsSync("/proc")) {
    const stat = readStat(pid);
    return stat !== undefined && !stat.zombie;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
