// Starts the real sandbox-agent 0.4.2 server for one benchmark scenario: a free loopback port, a
// throwaway XDG_DATA_HOME and HOME, its own process group (so the agents it spawns die with it).
// Server facts relied on (see the 0.4.2 HTTP contract): it runs
// `$XDG_DATA_HOME/sandbox-agent/bin/agent_processes/mock-acp` for `?agent=mock`, writes that file
// only when asked (`POST /v1/agents/mock/install` writes the built-in echo launcher), logs to a
// file rather than stdout, and does not signal its agents when it dies.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SERVER_BINARY = join(repoRoot, "node_modules", "@sandbox-agent", "cli-linux-x64", "bin", "sandbox-agent");

/** `builtin`: the server's own echo mock (answers any request). A path: that script as the mock agent. */
export type MockAgent = "builtin" | { script: string };

export interface BenchServer {
  readonly baseUrl: string;
  /** A fresh `/v1/acp/<id>` path: every path is its own agent process and event log. */
  acpPath(label: string): string;
  stop(): Promise<void>;
}

/** The scripted test agent: the project's copy when it exists, else the contract's example. */
export function scriptedAgentPath(): string {
  const own = join(repoRoot, "spec", "support", "scripted-agent.mjs");
  return existsSync(own) ? own : "/work/shared/contract/scripted-agent.example.mjs";
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolvePort(port) : reject(new Error("no free port"))));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

// Servers still running when the process ends (an error, Ctrl-C) are killed with their agents.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of running) killGroup(child, "SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => process.exit(130));
  }
}

async function healthy(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // Negative pid: the whole group, i.e. the server and every agent process it spawned.
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

export async function startServer(agent: MockAgent): Promise<BenchServer> {
  const root = mkdtempSync(join(tmpdir(), "acp-bench-"));
  const dataHome = join(root, "data");
  const home = join(root, "home");
  mkdirSync(dataHome);
  mkdirSync(home);
  if (agent !== "builtin") {
    const dir = join(dataHome, "sandbox-agent", "bin", "agent_processes");
    mkdirSync(dir, { recursive: true });
    const target = join(dir, "mock-acp");
    copyFileSync(agent.script, target);
    chmodSync(target, 0o755);
  }
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(SERVER_BINARY, ["server", "--no-telemetry", "--no-token", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: home,
    detached: true, // its own process group, killed as a whole in stop()
    stdio: "ignore",
    env: {
      ...process.env,
      // The scripted agent's shebang is `#!/usr/bin/env node`: let it find this node.
      PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter),
      XDG_DATA_HOME: dataHome,
      HOME: home,
    },
  });
  running.add(child);
  installExitHook();
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    killGroup(child, "SIGTERM");
    const gone = await Promise.race([exited.then(() => true), sleep(2000).then(() => false)]);
    // The agents are in the group too; SIGKILL whatever ignored SIGTERM.
    killGroup(child, "SIGKILL");
    if (!gone) await exited;
    running.delete(child);
    rmSync(root, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  while (!(await healthy(baseUrl))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`sandbox-agent did not become healthy on ${baseUrl}`);
    }
    await sleep(50);
  }
  if (agent === "builtin") {
    const response = await fetch(`${baseUrl}/v1/agents/mock/install`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await response.arrayBuffer();
    if (!response.ok) {
      await stop();
      throw new Error(`installing the built-in mock agent failed: ${response.status}`);
    }
  }
  let counter = 0;
  return {
    baseUrl,
    acpPath: (label) => `/v1/acp/${label}-${process.pid}-${++counter}`,
    stop,
  };
}
