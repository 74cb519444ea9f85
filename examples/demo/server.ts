// Starts a real sandbox-agent server (the binary of the @sandbox-agent/cli package) on a free
// loopback port, in throwaway XDG_DATA_HOME and HOME dirs, with an ACP agent script of ours
// installed as its `mock` agent. The demo uses it; the test harness and the benchmarks build on the
// pieces exported here too.
//
// Server facts this relies on (sandbox-agent 0.4.2): it runs
// `$XDG_DATA_HOME/sandbox-agent/bin/agent_processes/mock-acp` for `?agent=mock` but never creates
// that file itself; it logs to `$XDG_DATA_HOME/sandbox-agent/logs/` rather than stdout; and it does
// not signal its agents when it dies, so stopping it means stopping its process group.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

export interface CorsOptions {
  /** Each becomes one `--cors-allow-origin`. */
  origins: string[];
  /** Each becomes one `--cors-allow-method`; the server defaults to `*`. */
  methods?: string[];
  /** Each becomes one `--cors-allow-header`; the server defaults to `*`. */
  headers?: string[];
  /** Adds `--cors-allow-credentials`. */
  credentials?: boolean;
}

export interface LaunchOptions {
  /**
   * ACP agent executable (a `#!/usr/bin/env node` script) installed as the `mock` agent. Without
   * it nothing is installed (`POST /v1/agents/mock/install` then installs the server's own mock).
   */
  agentScript?: string;
  /** Started with `--token` when given, else with `--no-token`. */
  token?: string;
  cors?: CorsOptions;
  /** Extra environment for the server and its agents; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** How long to wait for `GET /v1/health`; default 15000 ms. */
  startTimeoutMs?: number;
  /** The sandbox-agent binary; defaults to the one of the installed npm package. */
  binary?: string;
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** Process id of the server, which also leads the process group of its agents. */
  readonly pid: number;
  /** HOME of the server (and the working directory of its agents). */
  readonly home: string;
  /** Stops the agents, then the server, and deletes the temporary dirs. Idempotent. */
  stop(): Promise<void>;
}

const POLL_MS = 50;
const STOP_GRACE_MS = 3000;
const AGENT_GRACE_MS = 1500;

/** Resolves the platform binary the way the package's own `bin/sandbox-agent` launcher does. */
export function sandboxAgentBinary(): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`@sandbox-agent/cli-${process.platform}-${process.arch}/package.json`);
  return join(dirname(pkgJson), "bin", process.platform === "win32" ? "sandbox-agent.exe" : "sandbox-agent");
}

/**
 * Makes `script` the `mock` agent of a server using `dataHome`. The server never writes this file
 * itself unless asked to (re)install `mock`, and reads it at every agent spawn.
 */
export function installMockAgent(dataHome: string, script: string): string {
  const dir = join(dataHome, "sandbox-agent", "bin", "agent_processes");
  mkdirSync(dir, { recursive: true });
  const target = join(dir, "mock-acp");
  copyFileSync(script, target);
  chmodSync(target, 0o755);
  return target;
}

/** The server's arguments apart from `-p <port>`. */
export function serverArgs(options: Pick<LaunchOptions, "token" | "cors">): string[] {
  const args = ["server", "--no-telemetry", "-H", "127.0.0.1"];
  args.push(...(options.token === undefined ? ["--no-token"] : ["--token", options.token]));
  const cors = options.cors;
  if (cors) {
    // The server defaults methods and headers to `*`, which its CORS layer refuses to combine with
    // credentials: it panics at startup. Say so before spawning rather than after.
    if (cors.credentials && !(cors.methods?.length && cors.headers?.length)) {
      throw new Error("cors.credentials needs explicit cors.methods and cors.headers (the server rejects `*` with credentials)");
    }
    for (const origin of cors.origins) args.push("--cors-allow-origin", origin);
    for (const method of cors.methods ?? []) args.push("--cors-allow-method", method);
    for (const header of cors.headers ?? []) args.push("--cors-allow-header", header);
    if (cors.credentials) args.push("--cors-allow-credentials");
  }
  return args;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error("could not determine a free port"))));
    });
  });
}

export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host: "127.0.0.1", exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

// Awaited sleeps stay referenced on purpose: a script whose only pending work is this wait must not
// exit in the middle of it. Nothing here is left scheduled once the awaiting call returns.
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` settles within `ms`; the timer is cleared either way. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.finally(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Sends `sig` to a pid (a negative one: a process group), ignoring processes already gone. */
export function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // Already gone.
  }
}

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

/** Members of a process group other than its leader, from /proc; null where /proc is unavailable. */
function groupMembers(pgid: number): ProcStat[] | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  const members: ProcStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || entry === String(pgid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // The command name (field 2) may contain spaces and parentheses; the fields after it do not.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pgrp = Number(fields[2]);
    if (pgrp === pgid) members.push({ pid: Number(entry), state: fields[0] ?? "", ppid: Number(fields[1]), pgrp });
  }
  return members;
}

export interface ServerDirs {
  /** The temporary dir holding the others; delete it when done. */
  readonly root: string;
  /** XDG_DATA_HOME of the server. */
  readonly dataHome: string;
  /** HOME of the server. */
  readonly home: string;
}

/** Creates the throwaway dirs of one server, with `agentScript` (when given) as its `mock` agent. */
export function createServerDirs(prefix: string, agentScript: string | undefined): ServerDirs {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dirs = { root, dataHome: join(root, "data"), home: join(root, "home") };
  try {
    mkdirSync(dirs.dataHome);
    mkdirSync(dirs.home);
    if (agentScript !== undefined) installMockAgent(dirs.dataHome, agentScript);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return dirs;
}

/** The server's environment: ours, its dirs, then `extra` (where `undefined` removes a variable). */
export function serverEnv(dirs: ServerDirs, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Agent scripts start with `#!/usr/bin/env node`: let them find the node running us.
    PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter),
    XDG_DATA_HOME: dirs.dataHome,
    HOME: dirs.home,
  };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** One spawned server process, leader of its own process group. */
export interface ServerProcess {
  readonly child: ChildProcess;
  /** Resolves once the process has exited or could not be spawned. */
  readonly exited: Promise<void>;
  hasExited(): boolean;
  /** Set when the binary could not be spawned at all. */
  spawnError(): Error | undefined;
}

export interface SpawnServerOptions {
  binary: string;
  /** Arguments before `-p <port>`, see serverArgs(). */
  args: string[];
  port: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
}

export function spawnServer(options: SpawnServerOptions): ServerProcess {
  const child = spawn(options.binary, [...options.args, "-p", String(options.port)], {
    cwd: options.cwd,
    env: options.env,
    // Its own process group, so that stopping it reaches the agents the server spawns.
    detached: true,
    stdio: options.stdio,
  });
  const state: { exited: boolean; spawnError?: Error } = { exited: false };
  const exited = new Promise<void>((resolve) => {
    child.once("error", (error) => {
      state.spawnError = error;
      state.exited = true;
      resolve();
    });
    child.once("exit", () => {
      state.exited = true;
      resolve();
    });
  });
  return { child, exited, hasExited: () => state.exited, spawnError: () => state.spawnError };
}

export async function isHealthy(baseUrl: string, token: string | undefined): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/v1/health`, {
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(1000),
    });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

export interface HealthWait {
  baseUrl: string;
  token: string | undefined;
  /** Epoch ms after which the wait gives up. */
  deadline: number;
  /** An extra check a healthy answer must pass (e.g. that it came from this very process). */
  confirm?: () => boolean;
}

/** Polls `GET /v1/health` until it answers 200, the process exits, or the deadline passes. */
export async function waitForHealth(server: ServerProcess, wait: HealthWait): Promise<"ready" | "exited" | "timeout"> {
  for (;;) {
    if (server.hasExited()) return "exited";
    const healthy = await Promise.race([isHealthy(wait.baseUrl, wait.token), server.exited.then(() => false)]);
    if (healthy && (wait.confirm?.() ?? true)) return "ready";
    if (Date.now() > wait.deadline) return "timeout";
    await sleep(POLL_MS);
  }
}

/**
 * Stops a server process and everything in its process group. Agents go first: the server reaps
 * them, whereas agents that outlive it are re-parented to pid 1, which in some containers never
 * reaps, leaving zombies that still answer kill(pid, 0).
 */
export async function stopServerProcess(server: ServerProcess): Promise<void> {
  const { child } = server;
  const pid = child.pid;
  if (pid === undefined) return;
  const serverAlive = child.exitCode === null && child.signalCode === null;

  const members = groupMembers(pid);
  if (members !== null && members.length > 0) {
    for (const member of members) signal(member.pid, "SIGTERM");
    const gone = (m: ProcStat): boolean => m.state === "Z" && m.ppid !== pid;
    const until = Date.now() + (serverAlive ? AGENT_GRACE_MS : POLL_MS * 4);
    let left = members;
    while (left.length > 0 && Date.now() < until) {
      await sleep(POLL_MS / 2);
      left = (groupMembers(pid) ?? []).filter((m) => !gone(m));
    }
    for (const member of left) signal(member.pid, "SIGKILL");
  }

  if (serverAlive) {
    signal(members === null ? -pid : pid, "SIGTERM");
    if (!(await settlesWithin(server.exited, STOP_GRACE_MS))) {
      signal(-pid, "SIGKILL");
      await server.exited;
    }
  }
  // Whatever is left in the group (e.g. agents of a server that was killed).
  signal(-pid, "SIGKILL");
}

/** Starts the server and resolves once `GET /v1/health` answers. Always pair with `stop()`. */
export async function launchSandboxAgent(options: LaunchOptions): Promise<LocalServer> {
  const args = serverArgs(options);
  const binary = options.binary ?? sandboxAgentBinary();
  const port = await freePort();
  const dirs = createServerDirs("sandbox-agent-demo-", options.agentScript);
  let server: ServerProcess;
  try {
    server = spawnServer({ binary, args, port, cwd: dirs.home, env: serverEnv(dirs, options.env), stdio: "ignore" });
  } catch (error) {
    rmSync(dirs.root, { recursive: true, force: true });
    throw error;
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await stopServerProcess(server);
      rmSync(dirs.root, { recursive: true, force: true });
    })());

  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  const outcome = await waitForHealth(server, { baseUrl, token: options.token, deadline });
  if (outcome !== "ready") {
    await stop();
    throw new Error(
      outcome === "exited"
        ? `sandbox-agent exited during startup (${binary} ${args.join(" ")} -p ${port})`
        : `sandbox-agent did not answer ${baseUrl}/v1/health in time`,
    );
  }
  return { baseUrl, pid: server.child.pid ?? 0, home: dirs.home, stop };
}
