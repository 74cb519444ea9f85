// The embedded provider: sandbox-agent as a child process of this one, on a free loopback port, with
// a random token, its own data dir and no telemetry. It never outlives this process (see watchdog.ts)
// and writes nothing to the terminal unless given a `log` stream.
import { randomBytes, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import {
  CallAbortedError,
  sandboxNotFound,
  SandboxStartError,
  type SandboxCallOptions,
  type SandboxInfo,
  type SandboxProvider,
} from "../../sandbox/kit.js";
import { LOCAL_DEFAULTS } from "../defaults.js";
import { pollHealth } from "../health-poll.js";
import { OutputTail, type LogSink } from "./output-tail.js";
import { freePort } from "./ports.js";
import { settlesWithin, spawnServer, type ServerProcess } from "./process-group.js";
import { newSandboxMarker, SANDBOX_MARKER_VAR, stopSandbox } from "./process-tree.js";
import { createServerDirs, resolveBinary, serverArgs, serverEnv } from "./server-setup.js";
import type { CorsOptions, ServerDirs } from "./server-setup.js";
import { unwatch, watch } from "./watchdog.js";

/** The options of `local()`: the binary, the token, the ports and directories, and the start's bound. */
export interface LocalProviderOptions {
  /** The sandbox-agent binary; default `$SANDBOX_AGENT_BIN`, else the pinned `@sandbox-agent/cli` package's. */
  binaryPath?: string;
  /** Bearer token: default a random one per sandbox; `false` starts the server with `--no-token`. */
  token?: string | false;
  /** Port on 127.0.0.1; default a free one (retried on a lost race). */
  port?: number;
  /** An ACP agent executable (e.g. a `#!/usr/bin/env node` script) installed as the server's `mock` agent. */
  mockAgent?: string;
  /** Extra environment for the server and its agents; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Working directory of the server (and its agents); default the sandbox's own temporary HOME. */
  cwd?: string;
  cors?: CorsOptions;
  /** Receives the server's log lines (tokens redacted), e.g. `process.stderr`; by default nothing is written. */
  log?: LogSink;
  /** How long the server may take to answer `GET /v1/health`; default 15000 ms (`LOCAL_DEFAULTS`). */
  startTimeoutMs?: number;
}

/** A running local sandbox, as `local().details(id)` describes it. */
export interface LocalSandbox extends SandboxInfo {
  /** Server pid, also the process group id of its agents. */
  readonly pid: number;
  readonly port: number;
  /** HOME of the server: relative paths and the default session cwd resolve against it. */
  readonly home: string;
  /** XDG_DATA_HOME of the server. */
  readonly dataHome: string;
  /** The last lines the server wrote (tokens redacted). */
  output(): string;
}

/** The `local()` provider, with what only a local one can tell. */
export interface LocalProvider extends SandboxProvider {
  /** The running sandbox `id`, or undefined once destroyed. */
  details(id: string): LocalSandbox | undefined;
}

interface Running {
  readonly info: LocalSandbox;
  readonly server: ServerProcess;
  readonly dirs: ServerDirs;
  /** The value of SANDBOX_MARKER_VAR in the environment of the server and everything it starts. */
  readonly marker: string;
  destroying?: Promise<void>;
}

/** Starts sandbox-agent servers as child processes of this Node process. */
export function local(options: LocalProviderOptions = {}): LocalProvider {
  const running = new Map<string, Running>();
  const name = "local";
  // The options' defaults (LOCAL_DEFAULTS), filled in once; the rest are made per sandbox (port, token, dirs).
  const startTimeoutMs = options.startTimeoutMs ?? LOCAL_DEFAULTS.startTimeoutMs;

  async function create(call: SandboxCallOptions = {}): Promise<SandboxInfo> {
    const binary = resolveBinary(options.binaryPath);
    if (!("path" in binary)) {
      const detail = `no executable sandbox-agent binary (tried ${binary.tried.join(", ")})`;
      const hint = "install @sandbox-agent/cli or set SANDBOX_AGENT_BIN";
      throw new SandboxStartError(name, "spawn-failed", `${detail}; ${hint}`);
    }
    const token = options.token === false ? undefined : (options.token ?? randomBytes(24).toString("hex"));
    const args = serverArgs({ token, cors: options.cors });
    const dirs = createServerDirs("sandbox-agent-local-", options.mockAgent);
    // Logs to stderr instead of files under XDG_DATA_HOME: we read them, the user may too.
    // The marker comes last: destroying the sandbox relies on it, so `env` cannot remove it.
    const marker = newSandboxMarker();
    const env = serverEnv(dirs, { SANDBOX_AGENT_LOG_STDOUT: "1", ...options.env, [SANDBOX_MARKER_VAR]: marker });
    try {
      for (let attempt = 1; ; attempt++) {
        const port = options.port ?? (await freePort());
        const started = await launch(binary.path, args, port, dirs, env, marker, token, call.signal);
        if (started !== "port-in-use") {
          running.set(started.info.id, started);
          return started.info;
        }
        if (options.port !== undefined || attempt >= LOCAL_DEFAULTS.portAttempts) {
          throw new SandboxStartError(name, "port-in-use", `127.0.0.1:${port} is in use`);
        }
      }
    } catch (error) {
      rmSync(dirs.root, { recursive: true, force: true });
      throw error;
    }
  }

  async function launch(
    binary: string, args: string[], port: number, dirs: ServerDirs, env: NodeJS.ProcessEnv, marker: string,
    token: string | undefined, signal: AbortSignal | undefined,
  ): Promise<Running | "port-in-use"> {
    if (signal?.aborted) throw new CallAbortedError("local.create was aborted", { cause: signal.reason });
    const output = new OutputTail({ redact: [token], sink: options.log });
    const cwd = options.cwd ?? dirs.home;
    const server = spawnServer({ binary, args, port, cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const pid = server.child.pid;
    if (pid !== undefined) watch(pid, marker, dirs.root);
    output.follow(server.child.stdout);
    output.follow(server.child.stderr);
    // A 200 could come from another server that won a race for the port: ours says it listens.
    let listening = false;
    const stopListening = output.onLine((line) => (listening ||= line.includes('message="server listening"')));
    const baseUrl = `http://127.0.0.1:${port}`;
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        await stopSandbox(server, marker);
        if (pid !== undefined) unwatch(pid);
      })());
    try {
      const outcome = await pollHealth(baseUrl, {
        ...(token !== undefined ? { token } : {}),
        ...(signal ? { signal } : {}),
        timeoutMs: startTimeoutMs,
        gone: server.exited,
        confirm: () => listening,
      });
      if (outcome === "ready") {
        const info: LocalSandbox = {
          id: `local-${randomUUID()}`,
          baseUrl,
          ...(token !== undefined ? { token } : {}),
          defaultCwd: options.cwd ?? dirs.home,
          pid: pid ?? 0,
          port,
          home: dirs.home,
          dataHome: dirs.dataHome,
          output: () => output.text(),
        };
        return { info, server, dirs, marker };
      }
      await stop();
      await settlesWithin(output.ended(), LOCAL_DEFAULTS.outputGraceMs);
      if (outcome === "timeout") {
        const detail = `sandbox-agent did not answer ${baseUrl}/v1/health in time`;
        throw new SandboxStartError(name, "timeout", detail, output.text());
      }
      const spawnError = server.spawnError();
      if (spawnError) {
        const detail = `could not start ${binary}: ${spawnError.message}`;
        throw new SandboxStartError(name, "spawn-failed", detail, "", { cause: spawnError });
      }
      if (/Address in use|address already in use/i.test(output.text())) return "port-in-use";
      const code = server.child.exitCode ?? server.child.signalCode;
      const detail = `sandbox-agent exited during startup (${String(code)})`;
      throw new SandboxStartError(name, "exited", detail, output.text());
    } catch (error) {
      await stop();
      throw error;
    } finally {
      stopListening();
    }
  }

  async function destroy(id: string): Promise<void> {
    const entry = running.get(id);
    if (!entry) return;
    entry.destroying ??= (async () => {
      await stopSandbox(entry.server, entry.marker);
      unwatch(entry.info.pid);
      rmSync(entry.dirs.root, { recursive: true, force: true });
      running.delete(id);
    })();
    return entry.destroying;
  }

  const known = (id: string): Running => {
    const entry = running.get(id);
    if (!entry || entry.destroying) throw sandboxNotFound(name, id);
    return entry;
  };

  return {
    name,
    create,
    destroy,
    // Stopping the whole group freezes the server and its agents; connections stall until resumed.
    async pause(id) {
      process.kill(-known(id).info.pid, "SIGSTOP");
    },
    async resume(id) {
      const entry = known(id);
      process.kill(-entry.info.pid, "SIGCONT");
      return entry.info;
    },
    async reconnect(id) {
      return known(id).info;
    },
    details: (id) => running.get(id)?.info,
  };
}
