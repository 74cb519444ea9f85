// Starts the real sandbox-agent server (the binary of the @sandbox-agent/cli npm package) for tests,
// with the scripted ACP agent installed as its `mock` agent, in throwaway XDG_DATA_HOME and HOME dirs.
// Server facts this relies on: it runs `$XDG_DATA_HOME/sandbox-agent/bin/agent_processes/mock-acp`
// for `?agent=mock` but never creates that file itself; it logs to
// `$XDG_DATA_HOME/sandbox-agent/logs/log-*` rather than stdout/stderr; it exits with status 1 when
// its port is taken; and it does not signal its agents when it dies.
// Spawning, the health wait and stopping the process group are those of the local launcher
// (local-server.ts); this adds restarts, port retries, the server log and the process registry.
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createServerDirs,
  installMockAgent,
  sandboxAgentBinary,
  serverArgs,
  serverEnv,
  signal,
  sleep,
  spawnServer,
  stopServerProcess,
  waitForHealth,
  type CorsOptions,
  type ServerProcess,
} from "./local-server.js";
import { freePort, portIsFree } from "./ports.js";

export { installMockAgent, sandboxAgentBinary, type CorsOptions };

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

const START_ATTEMPTS = 5;

const defaultAgentScript = fileURLToPath(new URL("./scripted-agent.mjs", import.meta.url));

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

interface LogCursor {
  /** file name -> size before the current launch */
  sizes: Map<string, number>;
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
  private server: ServerProcess | undefined;
  private stopping: Promise<void> | undefined;

  private constructor(options: StartSandboxAgentOptions) {
    // Everything that can be rejected without side effects comes before the temp dir exists.
    this.args = serverArgs(options);
    this.binary = options.binary ?? sandboxAgentBinary();
    this.token = options.token;
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
    const dirs = createServerDirs("sandbox-agent-rx-", options.agentScript ?? defaultAgentScript);
    this.root = dirs.root;
    this.dataHome = dirs.dataHome;
    this.home = dirs.home;
    this.logDir = join(this.dataHome, "sandbox-agent", "logs");
    this.stdioLog = join(this.root, "server-stdio.log");
    this.cwd = options.cwd ?? this.home;
    this.env = serverEnv(dirs, options.env);
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
    return this.server?.child.pid ?? 0;
  }

  logFile(): string {
    return this.newestLog() ?? this.stdioLog;
  }

  kill(sig: NodeJS.Signals = "SIGKILL"): void {
    const pid = this.server?.child.pid;
    if (pid !== undefined) signal(pid, sig);
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
    let server: ServerProcess;
    try {
      server = spawnServer({ binary: this.binary, args: this.args, port, cwd: this.cwd, env: this.env, stdio: ["ignore", out, out] });
    } finally {
      closeSync(out);
    }
    const { child } = server;
    // A test that forgets stop() must not keep the jest worker alive; global teardown kills the group.
    child.unref();
    if (child.pid !== undefined) {
      this.server = server;
      this.currentPort = port;
      (await loadRegistry()).registerProcess(child.pid);
    }

    const outcome = await waitForHealth(server, {
      baseUrl: `http://127.0.0.1:${port}`,
      token: this.token,
      deadline: Date.now() + this.startTimeoutMs,
      // The health answer alone could come from another server that won a race for the port;
      // "server listening" in our own log since this launch proves it is ours.
      confirm: () => this.logSince(cursor).includes('message="server listening"'),
    });
    if (outcome === "ready") return "ready";
    if (outcome === "timeout") {
      await this.terminate();
      throw new Error(
        `sandbox-agent did not answer GET /v1/health on port ${port} within ${this.startTimeoutMs} ms\n${this.logTail()}`,
      );
    }
    await this.forget(server);
    const spawnError = server.spawnError();
    if (spawnError) throw new Error(`could not start ${this.binary}: ${spawnError.message}`);
    if (!(await portIsFree(port))) return "port-in-use";
    throw new Error(`sandbox-agent exited during startup (code ${String(child.exitCode)})\n${this.logTail()}`);
  }

  /** Stops the current server process and everything in its process group. */
  private async terminate(): Promise<void> {
    const server = this.server;
    if (server === undefined || server.child.pid === undefined) return;
    await stopServerProcess(server);
    await this.forget(server);
  }

  private async forget(server: ServerProcess): Promise<void> {
    if (server.child.pid !== undefined) (await loadRegistry()).unregisterProcess(server.child.pid);
    if (this.server === server) this.server = undefined;
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
