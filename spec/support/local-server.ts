// Starts a real sandbox-agent server (the binary of the @sandbox-agent/cli package) on a free
// loopback port, in throwaway XDG_DATA_HOME and HOME dirs, with an ACP agent script of ours
// installed as its `mock` agent. The launch pieces live in the library's local provider
// (lib/providers/local/); this re-exports them for the test harness (which keeps the server's log
// files under XDG_DATA_HOME) and keeps `launchSandboxAgent` for the benchmarks. Test tooling: it
// reaches into the provider's internals, which examples (on the public `local()`) never do.
import { local } from "../../lib/providers/local/index.js";
import { sleep, type ServerProcess } from "../../lib/providers/local/process-group.js";
import type { CorsOptions } from "../../lib/providers/local/server-setup.js";

export {
  settlesWithin,
  signal,
  sleep,
  spawnServer,
  stopServerProcess,
  type ServerProcess,
  type SpawnServerOptions,
} from "../../lib/providers/local/process-group.js";
export {
  createServerDirs,
  installMockAgent,
  sandboxAgentBinary,
  serverArgs,
  serverEnv,
  type CorsOptions,
  type ServerDirs,
} from "../../lib/providers/local/server-setup.js";

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
 * Starts the server and resolves once `GET /v1/health` answers. Always pair with `stop()`. A thin
 * wrapper over the `local()` provider (which also makes the server die with this process).
 */
export async function launchSandboxAgent(options: LaunchOptions): Promise<LocalServer> {
  const provider = local({
    token: options.token ?? false,
    ...(options.agentScript !== undefined ? { mockAgent: options.agentScript } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.cors ? { cors: options.cors } : {}),
    ...(options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs } : {}),
    ...(options.binary !== undefined ? { binaryPath: options.binary } : {}),
  });
  const info = await provider.create();
  const details = provider.details(info.id);
  if (!details) throw new Error("local() lost the sandbox it just created");
  return { baseUrl: info.baseUrl, pid: details.pid, home: details.home, stop: () => provider.destroy(info.id) };
}
