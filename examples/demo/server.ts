// Starts a real sandbox-agent server (the binary of the @sandbox-agent/cli package) on a free
// loopback port, in throwaway XDG_DATA_HOME and HOME dirs, with an ACP agent script of ours
// installed as its `mock` agent. The demo uses it; tests can use it too.
//
// Server facts this relies on (sandbox-agent 0.4.2): it runs
// `$XDG_DATA_HOME/sandbox-agent/bin/agent_processes/mock-acp` for `?agent=mock` but never creates
// that file itself; it logs to `$XDG_DATA_HOME/sandbox-agent/logs/` rather than stdout; and it does
// not signal its agents when it dies, so stopping it means stopping its process group.
import { spawn, type ChildProcess } from "node:child_process";
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
  credentials?: boolean;
}

export interface LaunchOptions {
  /** ACP agent executable (a `#!/usr/bin/env node` script) installed as the `mock` agent. */
  agentScript: string;
  /** Started with `--token` when given, else with `--no-token`. */
  token?: string;
  cors?: CorsOptions;
  /** Extra environment for the server and its agents. */
  env?: Record<string, string>;
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
const GRACE_MS = 2000;

/** Resolves the platform binary the way the package's own `bin/sandbox-agent` launcher does. */
export function sandboxAgentBinary(): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`@sandbox-agent/cli-${process.platform}-${process.arch}/package.json`);
  return join(dirname(pkgJson), "bin", process.platform === "win32" ? "sandbox-agent.exe" : "sandbox-agent");
}

/** Copies `script` to where the server looks for the `mock` agent. */
export function installMockAgent(dataHome: string, script: string): void {
  const dir = join(dataHome, "sandbox-agent", "bin", "agent_processes");
  mkdirSync(dir, { recursive: true });
  const target = join(dir, "mock-acp");
  copyFileSync(script, target);
  chmodSync(target, 0o755);
}

export function serverArgs(port: number, options: Pick<LaunchOptions, "token" | "cors">): string[] {
  const args = ["server", "--no-telemetry", "-H", "127.0.0.1", "-p", String(port)];
  args.push(...(options.token === undefined ? ["--no-token"] : ["--token", options.token]));
  const cors = options.cors;
  if (cors) {
    // The server's CORS layer panics at startup when credentials meet its `*` defaults.
    if (cors.credentials && !(cors.methods?.length && cors.headers?.length)) {
      throw new Error("cors.credentials needs explicit cors.methods and cors.headers");
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
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // Already gone.
  }
}

/** Live (non-zombie) members of a process group other than its leader; null without /proc. */
function groupMembers(pgid: number): number[] | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || entry === String(pgid)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name may contain spaces and parentheses; the fields after it do not.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") members.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return members;
}

async function healthy(baseUrl: string, token: string | undefined): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/v1/health`, {
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(1000),
    });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Starts the server and resolves once `GET /v1/health` answers. Always pair with `stop()`. */
export async function launchSandboxAgent(options: LaunchOptions): Promise<LocalServer> {
  const port = await freePort();
  const args = serverArgs(port, options);
  const binary = options.binary ?? sandboxAgentBinary();
  const root = mkdtempSync(join(tmpdir(), "sandbox-agent-demo-"));
  const dataHome = join(root, "data");
  const home = join(root, "home");
  mkdirSync(dataHome);
  mkdirSync(home);
  installMockAgent(dataHome, options.agentScript);

  const child: ChildProcess = spawn(binary, args, {
    cwd: home,
    env: {
      ...process.env,
      ...options.env,
      // The agent script starts with `#!/usr/bin/env node`: let it find the node running us.
      PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter),
      XDG_DATA_HOME: dataHome,
      HOME: home,
    },
    // Its own process group, so that stop() reaches the agents the server spawns.
    detached: true,
    stdio: "ignore",
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  const pid = child.pid ?? 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;

  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (pid > 0 && child.exitCode === null && child.signalCode === null) {
        // Agents first: the server reaps them, whereas agents that outlive it become orphans.
        const agents = groupMembers(pid) ?? [];
        for (const agent of agents) signal(agent, "SIGTERM");
        const until = Date.now() + GRACE_MS;
        while ((groupMembers(pid) ?? []).length > 0 && Date.now() < until) await sleep(POLL_MS);
        signal(pid, "SIGTERM");
        const timer = setTimeout(() => signal(-pid, "SIGKILL"), GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      // Whatever is left of the group.
      if (pid > 0) signal(-pid, "SIGKILL");
      rmSync(root, { recursive: true, force: true });
    })());

  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null || pid === 0) {
        throw new Error(`sandbox-agent exited during startup (${binary} ${args.join(" ")})`);
      }
      if (await healthy(baseUrl, options.token)) break;
      if (Date.now() > deadline) throw new Error(`sandbox-agent did not answer ${baseUrl}/v1/health in time`);
      await sleep(POLL_MS);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, pid, home, stop };
}
