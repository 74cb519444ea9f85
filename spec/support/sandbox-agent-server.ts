// Starts the real sandbox-agent server (the binary of the @sandbox-agent/cli npm package) for tests,
// with the scripted ACP agent installed as its `mock` agent, in throwaway XDG_DATA_HOME and HOME dirs.
// Server facts this relies on: it runs `$XDG_DATA_HOME/sandbox-agent/bin/agent_processes/mock-acp`
// for `?agent=mock` but never creates that file itself; it logs to
// `$XDG_DATA_HOME/sandbox-agent/logs/log-*` rather than stdout/stderr; it exits with status 1 when
// its port is taken; and it does not signal its agents when it dies.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface CorsOptions {
  /** Each becomes one `--cors-allow-origin`. */
  origins: string[];
  /** Each becomes one `--cors-allow-method`. */
  methods?: string[];
  /** Each becomes one `--cors-allow-header`. */
  headers?: string[];
  /** Adds `--cors-allow-credentials`. */
  credentials?: boolean;
}

export interface StartSandboxAgentOptions {
  /** Started with `--token` when given, else with `--no-token`. */
  token?: string;
  /** ACP agent executable installed as the `mock` agent; defaults to spec/support/scripted-agent.mjs. */
  agentScript?: string;
  /** Extra server environment (reaches the agent too); `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cors?: CorsOptions;
  /** Working directory of the server and therefore of its agents; defaults to the temporary HOME. */
  cwd?: string;
  /** How long to wait for `GET /v1/health`; default 15000. */
  startTimeoutMs?: number;
  /** Path of the sandbox-agent binary; defaults to the one of the installed npm package. */
  binary?: string;
}

export interface SandboxAgentServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  readonly port: number;
  readonly token: string | undefined;
  /** XDG_DATA_HOME of the server; the server keeps its logs and agent launchers under `sandbox-agent/`. */
  readonly dataHome: string;
  /** HOME of the server; relative `/v1/fs` paths resolve against it. */
  readonly home: string;
  /** Pid of the current server process (changes on restart, 0 once stopped); also its process group id. */
  readonly pid: number;
  /** The server's log file (it writes nothing useful to stdout/stderr). */
  logFile(): string;
  /** Stops the server and its agent processes and deletes the temporary dirs. Idempotent. */
  stop(): Promise<void>;
  /**
   * Signals the server process only (default SIGKILL), like a crash: its agents are not signalled and
   * exit on their own when their stdin closes. stop() or restart() still clean up afterwards.
   */
  kill(signal?: NodeJS.Signals): void;
  /** Stops the server and its agents, then starts it again on the same port with the same data dirs. */
  restart(): Promise<void>;
}

const POLL_MS = 50;
const STOP_GRACE_MS = 3000;
const AGENT_GRACE_MS = 1500;
const START_ATTEMPTS = 5;

const defaultAgentScript = fileURLToPath(new URL("./scripted-agent.mjs", import.meta.url));

/** Resolves the platform binary the same way the package's own `bin/sandbox-agent` launcher does. */
export function sandboxAgentBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@sandbox-agent/cli-${process.platform}-${process.arch}`;
  const pkgJson = require.resolve(`${pkg}/package.json`);
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

interface ProcessRegistry {
  registerProcess(pid: number): void;
  unregisterProcess(pid: number): void;
}

// The registry is plain JavaScript (shared with jest's global setup/teardown) without type
// declarations; importing it through a non-literal specifier keeps the compiler from asking for them.
const registrySpecifier: string = "./process-registry.js";
let registry: Promise<ProcessRegistry> | undefined;
const loadRegistry = (): Promise<ProcessRegistry> =>
  (registry ??= import(registrySpecifier) as Promise<ProcessRegistry>);

// Awaited sleeps stay referenced on purpose: a script whose only pending work is this wait must not
// exit in the middle of it. Nothing here is left scheduled once the awaiting call returns.
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` settles within `ms`; the timer is cleared either way. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.finally(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function freePort(): Promise<number> {
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

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host: "127.0.0.1", exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

function signal(target: number, sig: NodeJS.Signals): void {
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

interface LogCursor {
  /** file name -> size before the current launch */
  sizes: Map<string, number>;
}

function serverArgs(options: StartSandboxAgentOptions): string[] {
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

/**
 * Starts a server on a free loopback port and resolves once `GET /v1/health` answers 200.
 * Always pair with `stop()` (e.g. in afterAll); jest's global teardown kills what a failed test left.
 */
export function startSandboxAgent(options: StartSandboxAgentOptions = {}): Promise<SandboxAgentServer> {
  return SandboxAgentProcess.start(options);
}

class SandboxAgentProcess implements SandboxAgentServer {
  readonly token: string | undefined;
  readonly dataHome: string;
  readonly home: string;
  private readonly root: string;
  private readonly logDir: string;
  private readonly stdioLog: string;
  private readonly binary: string;
  private readonly args: string[];
  private readonly env: NodeJS.ProcessEnv;
  private readonly cwd: string;
  private readonly startTimeoutMs: number;
  private currentPort = 0;
  private child: ChildProcess | undefined;
  private childExit: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;

  private constructor(options: StartSandboxAgentOptions) {
    // Everything that can be rejected without side effects comes before the temp dir exists.
    this.args = serverArgs(options);
    this.binary = options.binary ?? sandboxAgentBinary();
    this.token = options.token;
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
    this.root = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-"));
    this.dataHome = join(this.root, "data");
    this.home = join(this.root, "home");
    this.logDir = join(this.dataHome, "sandbox-agent", "logs");
    this.stdioLog = join(this.root, "server-stdio.log");
    this.cwd = options.cwd ?? this.home;
    try {
      mkdirSync(this.dataHome);
      mkdirSync(this.home);
      installMockAgent(this.dataHome, options.agentScript ?? defaultAgentScript);
    } catch (error) {
      rmSync(this.root, { recursive: true, force: true });
      throw error;
    }

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // The agent launcher is `#!/usr/bin/env node`: make sure it finds the node running the tests.
      PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter),
      XDG_DATA_HOME: this.dataHome,
      HOME: this.home,
    };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    this.env = env;
  }

  static async start(options: StartSandboxAgentOptions): Promise<SandboxAgentProcess> {
    const server = new SandboxAgentProcess(options);
    try {
      await server.launch(undefined);
    } catch (error) {
      rmSync(server.root, { recursive: true, force: true });
      throw error;
    }
    return server;
  }

  get port(): number {
    return this.currentPort;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.currentPort}`;
  }

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  logFile(): string {
    return this.newestLog() ?? this.stdioLog;
  }

  kill(sig: NodeJS.Signals = "SIGKILL"): void {
    if (this.child?.pid !== undefined) signal(this.child.pid, sig);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.terminate();
      rmSync(this.root, { recursive: true, force: true });
    })();
    return this.stopping;
  }

  async restart(): Promise<void> {
    if (this.stopping) throw new Error("sandbox-agent server was stopped");
    await this.terminate();
    await this.launch(this.currentPort);
  }

  /**
   * Spawns the server and waits until it answers /v1/health. With `fixedPort` (restart) it retries
   * that port while something else still holds it; otherwise a conflict picks a new free port,
   * since the probe-then-bind port choice can race with other test workers.
   */
  private async launch(fixedPort: number | undefined): Promise<void> {
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
      const port = fixedPort ?? (await freePort());
      const outcome = await this.spawnOnce(port);
      if (outcome === "ready") return;
      lastError = new Error(`sandbox-agent could not bind 127.0.0.1:${port} (address in use)\n${this.logTail()}`);
      if (fixedPort !== undefined) await sleep(200);
    }
    throw lastError ?? new Error("sandbox-agent did not start");
  }

  private async spawnOnce(port: number): Promise<"ready" | "port-in-use"> {
    const cursor = this.logCursor();
    const out = openSync(this.stdioLog, "a");
    let child: ChildProcess;
    try {
      child = spawn(this.binary, [...this.args, "-p", String(port)], {
        cwd: this.cwd,
        env: this.env,
        // Own process group, so that stop() can reach the agents the server spawns.
        detached: true,
        stdio: ["ignore", out, out],
      });
    } finally {
      closeSync(out);
    }
    const state: { exited: boolean; spawnError?: Error } = { exited: false };
    this.childExit = new Promise<void>((resolve) => {
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
    // A test that forgets stop() must not keep the jest worker alive; global teardown kills the group.
    child.unref();
    if (child.pid !== undefined) {
      this.child = child;
      this.currentPort = port;
      (await loadRegistry()).registerProcess(child.pid);
    }

    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      if (state.exited) {
        await this.forget(child);
        if (state.spawnError) throw new Error(`could not start ${this.binary}: ${state.spawnError.message}`);
        if (!(await portIsFree(port))) return "port-in-use";
        throw new Error(`sandbox-agent exited during startup (code ${String(child.exitCode)})\n${this.logTail()}`);
      }
      // The health answer alone could come from another server that won a race for the port;
      // "server listening" in our own log since this launch proves it is ours.
      const healthy = await Promise.race([this.healthy(port), this.childExit.then(() => false)]);
      if (healthy && this.logSince(cursor).includes('message="server listening"')) return "ready";
      if (Date.now() > deadline) {
        await this.terminate();
        throw new Error(
          `sandbox-agent did not answer GET /v1/health on port ${port} within ${this.startTimeoutMs} ms\n${this.logTail()}`,
        );
      }
      await sleep(POLL_MS);
    }
  }

  private async healthy(port: number): Promise<boolean> {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/v1/health`, {
        headers: this.token === undefined ? {} : { Authorization: `Bearer ${this.token}` },
        signal: AbortSignal.timeout(1000),
      });
      await response.arrayBuffer();
      return response.status === 200;
    } catch {
      return false;
    }
  }

  /**
   * Stops the current server process and everything in its process group. Agents go first: the
   * server reaps them, whereas agents that outlive it are re-parented to pid 1, which in some
   * containers never reaps, leaving zombies that still answer kill(pid, 0).
   */
  private async terminate(): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined) return;
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
      if (!(await settlesWithin(this.childExit, STOP_GRACE_MS))) {
        signal(-pid, "SIGKILL");
        await this.childExit;
      }
    }
    // Whatever is left in the group (e.g. agents of a server killed with kill()).
    signal(-pid, "SIGKILL");
    await this.forget(child);
  }

  private async forget(child: ChildProcess): Promise<void> {
    if (child.pid !== undefined) (await loadRegistry()).unregisterProcess(child.pid);
    if (this.child === child) this.child = undefined;
  }

  private newestLog(): string | undefined {
    let newest: { path: string; mtime: number } | undefined;
    for (const name of this.logNames()) {
      const path = join(this.logDir, name);
      const mtime = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
      if (!newest || mtime >= newest.mtime) newest = { path, mtime };
    }
    return newest?.path;
  }

  private logNames(): string[] {
    try {
      return readdirSync(this.logDir).filter((name) => name.startsWith("log-"));
    } catch {
      return [];
    }
  }

  private logCursor(): LogCursor {
    const sizes = new Map<string, number>();
    for (const name of this.logNames()) sizes.set(name, statSync(join(this.logDir, name)).size);
    return { sizes };
  }

  /** Log text written since `cursor` was taken (the log files are shared across restarts). */
  private logSince(cursor: LogCursor): string {
    let text = "";
    for (const name of this.logNames()) {
      const fd = openSync(join(this.logDir, name), "r");
      try {
        const from = cursor.sizes.get(name) ?? 0;
        const length = Math.max(0, fstatSync(fd).size - from);
        const buffer = Buffer.alloc(length);
        const read = length > 0 ? readSync(fd, buffer, 0, length, from) : 0;
        text += buffer.subarray(0, read).toString("utf8");
      } finally {
        closeSync(fd);
      }
    }
    return text;
  }

  private logTail(lines = 40): string {
    const parts: string[] = [];
    for (const path of [this.newestLog(), this.stdioLog]) {
      if (path === undefined || !existsSync(path)) continue;
      const tail = readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
      if (tail) parts.push(`--- ${path} (last ${lines} lines) ---\n${tail}`);
    }
    return parts.length > 0 ? parts.join("\n") : "(no server output)";
  }
}
