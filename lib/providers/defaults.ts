// Every default of the providers, in one module that imports nothing: their wait for a server they
// just started, and the options of `local()` and `docker()`. Each provider fills its options in
// once, when it is made (`local()`, `docker()`), from its group here; no other file of
// lib/providers sets a default of its own. `startSandbox`'s are lib/sandbox/defaults.ts's.

/** The defaults of a provider's wait for the server it just started (`pollHealth`, local and docker). */
export const PROVIDER_HEALTH_DEFAULTS = {
  timeoutMs: 30_000,
  path: "/v1/health",
  /** Capped exponential backoff between probes, each probe bounded. */
  firstDelayMs: 20,
  maxDelayMs: 500,
  probeTimeoutMs: 2000,
} as const;

/**
 * Where an image `buildSandboxImage()` builds puts things: the server binary, its HOME and its
 * XDG_DATA_HOME (the `docker()` defaults below follow it).
 */
export const IMAGE_LAYOUT = { binary: "/bin/sandbox-agent", home: "/home/sandbox", dataHome: "/data" } as const;

/** The defaults of `local()`'s options, and of how it starts a server. */
export const LOCAL_DEFAULTS = {
  /** `startTimeoutMs`: how long the server may take to answer `GET /v1/health`. */
  startTimeoutMs: 15_000,
  /** Free ports tried in turn when another process takes the one picked first (no `port` given). */
  portAttempts: 5,
  /** How long a failed start waits for the rest of the server's output before reporting it. */
  outputGraceMs: 1000,
} as const;

/** The defaults of `docker()`'s options, and of how it starts a container. */
export const DOCKER_DEFAULTS = {
  /** `networkMode`: the host's network, the server bound to 127.0.0.1 (works with `--bridge=none`). */
  networkMode: "host",
  /** `agentPort`: the server's port inside the container when the network mode is not `host`. */
  agentPort: 2468,
  /** `startTimeoutMs`: how long the server may take to answer after the container starts. */
  startTimeoutMs: 30_000,
  /** `stopTimeoutSeconds`: how long `destroy` lets the server stop before the engine kills it. */
  stopTimeoutSeconds: 2,
  /** `binary`: the server binary in the image. */
  binary: IMAGE_LAYOUT.binary,
  /** `defaultCwd`: the sessions' working directory inside the container. */
  defaultCwd: IMAGE_LAYOUT.home,
  /** Free host ports tried in turn when another process takes the one picked first. */
  portAttempts: 5,
} as const;
