// The contract between the client and whatever runs sandbox-agent servers: a local process, a
// Docker container, or a remote sandbox service. Small on purpose, so that anyone can write one.

/** Per-call options every provider method accepts: cancellation. */
export interface SandboxCallOptions {
  /** Aborting gives up the call; a provider cleans up what it had started for it. */
  signal?: AbortSignal;
}

/** What `create()` is asked for; providers take their own settings in their factory instead. */
export type SandboxCreateOptions = SandboxCallOptions;

/** Where a sandbox's server answers and how to talk to it. */
export interface SandboxInfo {
  /** The provider's id for the sandbox; `destroy(id)` and the other methods take it. */
  readonly id: string;
  /** The server's base URL, e.g. `http://127.0.0.1:41234`, no trailing slash. */
  readonly baseUrl: string;
  /** Bearer token of the server, when it has one. */
  readonly token?: string;
  /** A fetch that reaches the server (a tunnel, an authenticated proxy); default: the global fetch. */
  readonly fetch?: typeof globalThis.fetch;
  /** Working directory for new sessions, a path inside the sandbox. */
  readonly defaultCwd?: string;
}

/**
 * Starts and stops sandbox-agent servers. Implement `create` and `destroy`; the rest is optional.
 * Methods throw typed errors (`SandboxStartError` when a server cannot be brought up,
 * a `SandboxAgentError` of kind `sandbox-provider` when the engine behind the provider fails, or
 * `sandbox-not-found` for a sandbox it does not have).
 */
export interface SandboxProvider {
  /** A short name for messages, e.g. `local`, `docker`. */
  readonly name: string;
  /**
   * Brings up a new sandbox with a server in it. It may resolve before the server answers:
   * `startSandbox()` waits for health after it. Aborting `signal` must not leave a sandbox behind.
   */
  create(options?: SandboxCreateOptions): Promise<SandboxInfo>;
  /** Tears the sandbox down for good. Idempotent: an unknown or gone id resolves. */
  destroy(id: string, options?: SandboxCallOptions): Promise<void>;
  /** Suspends the sandbox without losing it; `resume` brings it back. */
  pause?(id: string, options?: SandboxCallOptions): Promise<void>;
  /** Brings a paused sandbox back; where it answers may have changed. */
  resume?(id: string, options?: SandboxCallOptions): Promise<SandboxInfo>;
  /** Finds an existing sandbox by id (e.g. after this process restarted) and says where it answers. */
  reconnect?(id: string, options?: SandboxCallOptions): Promise<SandboxInfo>;
}
