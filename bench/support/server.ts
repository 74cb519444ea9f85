// Starts the real sandbox-agent 0.4.2 server for one benchmark scenario with the local launcher
// (spec/support/local-server.ts): a free loopback port, a throwaway XDG_DATA_HOME and HOME, its own
// process group (so the agents it spawns die with it).
// Server facts relied on (see the 0.4.2 HTTP contract): it runs
// `$XDG_DATA_HOME/sandbox-agent/bin/agent_processes/mock-acp` for `?agent=mock`, writes that file
// only when asked (`POST /v1/agents/mock/install` writes the built-in echo launcher), logs to a
// file rather than stdout, and does not signal its agents when it dies.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launchSandboxAgent, signal, type LocalServer } from "../../spec/support/local-server.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SERVER_BINARY = join(repoRoot, "node_modules", "@sandbox-agent", "cli-linux-x64", "bin", "sandbox-agent");

/** `builtin`: the server's own echo mock (answers any request). A path: that script as the mock agent. */
export type MockAgent = "builtin" | { script: string };

export interface BenchServer {
  readonly baseUrl: string;
  /** The server's pid, also its process group's (its agent processes are in that group). */
  readonly pid: number;
  /** A fresh `/v1/acp/<id>` path: every path is its own agent process and event log. */
  acpPath(label: string): string;
  stop(): Promise<void>;
}

/** The scripted test agent: the project's copy when it exists, else the contract's example. */
export function scriptedAgentPath(): string {
  const own = join(repoRoot, "spec", "support", "scripted-agent.mjs");
  return existsSync(own) ? own : "/work/shared/contract/scripted-agent.example.mjs";
}

// Servers still running when the process ends (an error, Ctrl-C) are killed with their agents.
const running = new Set<LocalServer>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    // Negative pid: the whole group, i.e. the server and every agent process it spawned.
    for (const server of running) signal(-server.pid, "SIGKILL");
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => process.exit(130));
  }
}

export async function startServer(agent: MockAgent): Promise<BenchServer> {
  installExitHook();
  const server = await launchSandboxAgent({
    binary: SERVER_BINARY,
    ...(agent === "builtin" ? {} : { agentScript: agent.script }),
  });
  running.add(server);
  const stop = async (): Promise<void> => {
    await server.stop();
    running.delete(server);
  };
  const { baseUrl } = server;
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
    pid: server.pid,
    acpPath: (label) => `/v1/acp/${label}-${process.pid}-${++counter}`,
    stop,
  };
}
