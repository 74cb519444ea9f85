// What a docker() provider is configured with: the image, the engine, and what each container gets.
import type Dockerode from "dockerode";
import { DOCKER_DEFAULTS } from "../defaults.js";

/** A value, or a function giving it per sandbox. */
export type Lazy<T> = T | (() => T | Promise<T>);

/** The options of `docker()`: the image, the engine, the network and the container's settings. */
export interface DockerProviderOptions {
  /** The image: one with sandbox-agent at `binary` (see `buildSandboxImage()`), no registry needed. */
  image: string;
  /** The engine client; default one for `DOCKER_HOST` or the default socket. */
  docker?: Dockerode;
  /** Extra container environment (`KEY=value`), or a function giving it per sandbox. */
  env?: Lazy<string[]>;
  /** Bind mounts (`host:container[:ro]`), or a function giving them per sandbox. */
  binds?: Lazy<string[]>;
  /** Docker network mode; default `host` (`DOCKER_DEFAULTS`, as for every default below). */
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
  /**
   * Added to the create request (escape hatch for anything not covered above). `HostConfig`, `Labels`,
   * `ExposedPorts` and `Env` merge with the provider's, which keeps its network mode, port binding,
   * binds and ownership labels; any other key replaces the provider's value.
   */
  createContainerOptions?: Partial<Dockerode.ContainerCreateOptions>;
  /** How long the server may take to answer after the container starts; default 30000 ms. */
  startTimeoutMs?: number;
  /** Seconds `destroy` lets the server stop before the engine kills it; default 2. */
  stopTimeoutSeconds?: number;
}

/** The options with their defaults filled in (`DOCKER_DEFAULTS`), once, when the provider is made. */
export type DockerSettings = DockerProviderOptions & Required<Pick<DockerProviderOptions, DefaultedOption>>;

type DefaultedOption = "networkMode" | "agentPort" | "binary" | "defaultCwd" | "startTimeoutMs" | "stopTimeoutSeconds";

export function dockerSettings(options: DockerProviderOptions): DockerSettings {
  const defaults = DOCKER_DEFAULTS;
  return {
    ...options,
    networkMode: options.networkMode ?? defaults.networkMode,
    agentPort: options.agentPort ?? defaults.agentPort,
    binary: options.binary ?? defaults.binary,
    defaultCwd: options.defaultCwd ?? defaults.defaultCwd,
    startTimeoutMs: options.startTimeoutMs ?? defaults.startTimeoutMs,
    stopTimeoutSeconds: options.stopTimeoutSeconds ?? defaults.stopTimeoutSeconds,
  };
}
