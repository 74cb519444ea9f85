// The docker() provider: one container per sandbox, driven through the Engine API (dockerode).
// Default network mode is `host` with the server bound to 127.0.0.1 on a free port (works with
// `dockerd --bridge=none`); other modes publish the in-container port on 127.0.0.1 instead.
import { randomBytes, randomUUID } from "node:crypto";
import type Dockerode from "dockerode";
import { CallAbortedError } from "../../sandbox/errors/call-errors.js";
import { SandboxNotFoundError } from "../../sandbox/errors/sandbox-not-found-error.js";
import { SandboxProviderError } from "../../sandbox/errors/sandbox-provider-error.js";
import { SandboxStartError } from "../../sandbox/errors/sandbox-start-error.js";
import { pollHealth } from "../../sandbox/providers/health-poll.js";
import type { SandboxCallOptions, SandboxInfo, SandboxProvider } from "../../sandbox/providers/types.js";
import { freePort } from "../local/ports.js";
import { dockerClient } from "./client.js";
import { IMAGE_LAYOUT } from "./image.js";
import { demuxLogs, redact } from "./logs.js";
import { LABELS, ownerLabels, ownerState } from "./ownership.js";

type Lazy<T> = T | (() => T | Promise<T>);

export interface DockerProviderOptions {
  /** The image: one with sandbox-agent at `binary` (see `buildSandboxImage()`), no registry needed. */
  image: string;
  /** The engine client; default one for `DOCKER_HOST` or the default socket. */
  docker?: Dockerode;
  /** Extra container environment (`KEY=value`), or a function giving it per sandbox. */
  env?: Lazy<string[]>;
  /** Bind mounts (`host:container[:ro]`), or a function giving them per sandbox. */
  binds?: Lazy<string[]>;
  /** Docker network mode; default `host`. */
  networkMode?: string;
  /** Server port inside the container when the network mode is not `host`; default 2468. */
  agentPort?: number;
  /** Bearer token: default a random one per sandbox; `false` starts the server with `--no-token`. */
  token?: string | false;
  /** More labels; ownership labels (`sandbox-agent-rx.*`) are always added. */
  labels?: Record<string, string>;
  /** Path of the server binary in the image; default `/bin/sandbox-agent`. */
  binary?: string;
  /** Working directory for sessions inside the container; default `/home/sandbox`. */
  defaultCwd?: string;
  /** Merged into the create request last (escape hatch for anything not covered above). */
  createContainerOptions?: Partial<Dockerode.ContainerCreateOptions>;
  /** How long the server may take to answer after the container starts; default 30000 ms. */
  startTimeoutMs?: number;
  /** Seconds `destroy` lets the server stop before the engine kills it; default 2. */
  stopTimeoutSeconds?: number;
}

/** The docker() provider, plus crash recovery. */
export interface DockerProvider extends SandboxProvider {
  /**
   * Removes containers this library labelled that nobody owns any more: those whose owning
   * process (on this host) is gone, and those that are no longer running (killed, exited). Running
   * sandboxes of live owners stay. `all: true` also removes running ones of other live owners.
   * Resolves with the ids removed.
   */
  sweep(options?: SandboxCallOptions & { all?: boolean }): Promise<string[]>;
}

const PORT_ATTEMPTS = 5;
const STATE_POLL_MS = 200;

/** Sandboxes as Docker containers. */
export function docker(options: DockerProviderOptions): DockerProvider {
  const name = "docker";
  const providerId = randomUUID();
  const owned = new Map<string, SandboxInfo>();
  let client: Promise<Dockerode> | undefined;
  const engine = (): Promise<Dockerode> =>
    (client ??= options.docker ? Promise.resolve(options.docker) : dockerClient());
  const hostNetwork = (options.networkMode ?? "host") === "host";

  async function create(call: SandboxCallOptions = {}): Promise<SandboxInfo> {
    const api = await engine();
    const token = options.token === false ? undefined : (options.token ?? randomBytes(24).toString("hex"));
    for (let attempt = 1; ; attempt++) {
      if (call.signal?.aborted) throw new CallAbortedError("docker.create was aborted", { cause: call.signal.reason });
      const port = await freePort();
      const spec = await containerSpec(port, token);
      const container = await engineCall("create", () => api.createContainer(spec));
      const started = await startAndWait(container, port, token, call.signal).catch(async (error: unknown) => {
        await remove(container);
        throw error;
      });
      if (started !== "port-in-use") {
        owned.set(started.id, started);
        return started;
      }
      await remove(container);
      if (attempt >= PORT_ATTEMPTS) {
        throw new SandboxStartError(name, "port-in-use", `no free port after ${attempt} attempts`);
      }
    }
  }

  async function containerSpec(port: number, token: string | undefined): Promise<Dockerode.ContainerCreateOptions> {
    const serverPort = hostNetwork ? port : (options.agentPort ?? 2468);
    const bind = hostNetwork ? "127.0.0.1" : "0.0.0.0";
    const binary = options.binary ?? IMAGE_LAYOUT.binary;
    const cmd = [binary, "server", "--no-telemetry", "-H", bind, "-p", String(serverPort)];
    cmd.push(token === undefined ? "--no-token" : `--token=${token}`);
    const binds = await resolve(options.binds);
    const host: Dockerode.HostConfig = hostNetwork
      ? { NetworkMode: "host", Binds: binds }
      : {
          NetworkMode: options.networkMode,
          Binds: binds,
          PortBindings: { [`${serverPort}/tcp`]: [{ HostIp: "127.0.0.1", HostPort: String(port) }] },
        };
    // SANDBOX_AGENT_LOG_STDOUT: the server logs to stderr, so `docker logs` has its output.
    const env = [
      `HOME=${IMAGE_LAYOUT.home}`,
      `XDG_DATA_HOME=${IMAGE_LAYOUT.dataHome}`,
      "SANDBOX_AGENT_LOG_STDOUT=1",
      "PATH=/usr/local/bin:/usr/bin:/bin",
    ];
    return {
      Image: options.image,
      Cmd: cmd,
      Env: [...env, ...(await resolve(options.env))],
      WorkingDir: options.defaultCwd ?? IMAGE_LAYOUT.home,
      Labels: { ...options.labels, ...ownerLabels(providerId) },
      ...(hostNetwork ? {} : { ExposedPorts: { [`${serverPort}/tcp`]: {} } }),
      HostConfig: host,
      ...options.createContainerOptions,
    };
  }

  async function startAndWait(
    container: Dockerode.Container,
    port: number,
    token: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<SandboxInfo | "port-in-use"> {
    await engineCall("start", () => container.start());
    const baseUrl = `http://127.0.0.1:${port}`;
    const polling = new AbortController();
    const gone = untilStopped(container, polling.signal);
    try {
      const outcome = await pollHealth(baseUrl, {
        ...(token !== undefined ? { token } : {}),
        ...(signal ? { signal } : {}),
        timeoutMs: options.startTimeoutMs ?? 30_000,
        gone,
      });
      if (outcome === "ready") {
        const defaultCwd = options.defaultCwd ?? IMAGE_LAYOUT.home;
        return { id: container.id, baseUrl, ...(token !== undefined ? { token } : {}), defaultCwd };
      }
      const output = await tail(container, token);
      if (outcome === "timeout") {
        const detail = `container ${short(container.id)} did not answer ${baseUrl}/v1/health in time`;
        throw new SandboxStartError(name, "timeout", detail, output);
      }
      if (/Address in use|address already in use/i.test(output)) return "port-in-use";
      throw new SandboxStartError(name, "exited", `container ${short(container.id)} stopped during startup`, output);
    } finally {
      polling.abort();
    }
  }

  async function remove(container: Dockerode.Container): Promise<void> {
    await container.remove({ force: true }).catch((error: { statusCode?: number }) => {
      // 404: gone already; 409: a removal is already under way.
      if (error?.statusCode === 404 || error?.statusCode === 409) return;
      throw new SandboxProviderError(name, "destroy", `could not remove ${short(container.id)}`, { cause: error });
    });
  }

  async function destroy(id: string): Promise<void> {
    const container = (await engine()).getContainer(id);
    await container.stop({ t: options.stopTimeoutSeconds ?? 2 }).catch(() => undefined);
    await remove(container);
    owned.delete(id);
  }

  async function inspect(id: string): Promise<Dockerode.ContainerInspectInfo> {
    try {
      return await (await engine()).getContainer(id).inspect();
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 404) throw new SandboxNotFoundError(name, id, { cause: error });
      throw new SandboxProviderError(name, "inspect", `could not inspect ${short(id)}`, { cause: error });
    }
  }

  /** Where a container's server answers, from what create() wrote into it. */
  function infoOf(details: Dockerode.ContainerInspectInfo): SandboxInfo {
    if (details.Config.Labels?.[LABELS.managed] !== "true") throw new SandboxNotFoundError(name, details.Id);
    const cmd = details.Config.Cmd ?? [];
    const token = cmd.find((arg) => arg.startsWith("--token="))?.slice("--token=".length);
    const inner = cmd[cmd.indexOf("-p") + 1] ?? "";
    const published = details.HostConfig.PortBindings?.[`${inner}/tcp`]?.[0]?.HostPort;
    const port = details.HostConfig.NetworkMode === "host" ? inner : published;
    const defaultCwd = details.Config.WorkingDir || IMAGE_LAYOUT.home;
    return { id: details.Id, baseUrl: `http://127.0.0.1:${port}`, ...(token ? { token } : {}), defaultCwd };
  }

  async function sweep(call: SandboxCallOptions & { all?: boolean } = {}): Promise<string[]> {
    const api = await engine();
    const filters = { label: [`${LABELS.managed}=true`] };
    const listed = await engineCall("sweep", () => api.listContainers({ all: true, filters }));
    const removed: string[] = [];
    for (const info of listed) {
      if (call.signal?.aborted) throw new CallAbortedError("docker.sweep was aborted", { cause: call.signal.reason });
      const running = info.State === "running" || info.State === "paused";
      const mine = info.Labels?.[LABELS.provider] === providerId && owned.has(info.Id);
      const orphan = ownerState(info.Labels) === "gone";
      if (running && mine) continue;
      if (running && !orphan && !call.all) continue;
      await remove(api.getContainer(info.Id));
      owned.delete(info.Id);
      removed.push(info.Id);
    }
    return removed;
  }

  return {
    name,
    create,
    destroy,
    async pause(id) {
      await engineCall("pause", () => engine().then((api) => api.getContainer(id).pause()));
    },
    async resume(id) {
      await engineCall("resume", () => engine().then((api) => api.getContainer(id).unpause()));
      return infoOf(await inspect(id));
    },
    async reconnect(id) {
      const details = await inspect(id);
      if (!details.State.Running) throw new SandboxNotFoundError(name, id);
      return infoOf(details);
    },
    sweep,
  };

  async function engineCall<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      const detail = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
      const message = `Docker Engine: ${status ?? ""} ${detail}`.trim();
      throw new SandboxProviderError(name, operation, message, { cause: error });
    }
  }
}

async function resolve<T>(value: Lazy<T[]> | undefined): Promise<T[]> {
  if (value === undefined) return [];
  return typeof value === "function" ? await value() : value;
}

/**
 * Settles when the container is no longer running, or once `stop` aborts (the health wait is over
 * then). Polled: the Engine's wait endpoint is a long poll that cannot be cancelled cleanly.
 */
async function untilStopped(container: Dockerode.Container, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    const state = await container.inspect().then((d) => d.State, () => undefined);
    if (!state?.Running) return;
    await new Promise((r) => setTimeout(r, STATE_POLL_MS));
  }
}

async function tail(container: Dockerode.Container, token: string | undefined): Promise<string> {
  try {
    const buffer = (await container.logs({ stdout: true, stderr: true, tail: 60, follow: false })) as unknown as Buffer;
    return redact(demuxLogs(buffer).trimEnd(), [token]);
  } catch {
    return "";
  }
}

const short = (id: string): string => id.slice(0, 12);
