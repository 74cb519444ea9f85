// Every default of the sandbox layer's options, in one module that imports nothing (so any part can
// read it without an import cycle). client-options.ts applies the client's; each area's code reads
// its own group here and sets none of its own. The providers' defaults (`local()`, `docker()`) are
// lib/providers/defaults.ts's.

/**
 * The defaults of the client's own options (the reconnect policy's are the protocol layer's,
 * `ACP_DEFAULTS.reconnect`).
 */
export const CLIENT_DEFAULTS = {
  autoConnect: true,
  cwd: "/",
  /**
   * What the client tells the agent it can present: all of it, since the transcript makes compaction
   * and notice entries of their updates and `setSessionConfigOption` sends boolean values as such.
   */
  shows: { compaction: true, notices: true, booleanOptions: true },
  /** Stable ACP; 2, the ACP v2 draft, is experimental and opt-in. */
  protocolVersion: 1,
} as const;

/** The defaults of `startSandbox`'s options (and `SandboxAgentClient.start`'s). */
export const START_DEFAULTS = {
  /** How long the sandbox's server may take to answer its health route. */
  healthTimeoutMs: 30_000,
  /** The health wait polls a server it just created: soon and often. */
  healthDelays: { initialDelayMs: 25, maxDelayMs: 1000 },
} as const;

/** The defaults of a health wait (`waitForHealth`, `connect({ waitForServer })`, `startSandbox`). */
export const HEALTH_WAIT_DEFAULTS = {
  timeoutMs: 30_000,
  path: "/v1/health",
  initialDelayMs: 100,
  maxDelayMs: 2000,
  attemptTimeoutMs: 5000,
} as const;

/** The defaults of the process API's streams and terminals. */
export const PROCESS_DEFAULTS = {
  /** `logs$`: how a dropped log stream is reconnected. */
  logsReconnect: { initialDelayMs: 50, maxDelayMs: 2_000, factor: 2, jitter: 0.2, maxRetries: 8 },
  /** `logs$`: how often the process's state is polled to learn that it exited. */
  logsPollIntervalMs: 250,
  /** `status$`: how often the process's state is polled, and how many failed polls in a row end it. */
  statusPollIntervalMs: 500,
  statusMaxFailures: 5,
  /** `terminal()`: how long the socket may take to be ready. */
  terminalReadyTimeoutMs: 10_000,
  /**
   * `run()` with a call `timeoutMs` and none of its own: how much sooner than the call the server is
   * told to stop the command (at most; a tenth of a short deadline), so its own timer fires first and
   * its answer can come back. A call that gives up first drops the request, and the 0.4.x server then
   * drops the run without stopping the command.
   */
  runAnswerMarginMs: 1_000,
} as const;

/** The defaults of the desktop API. */
export const DESKTOP_DEFAULTS = {
  /** The desktop routes' prefix on the released server. */
  prefix: "/v1/desktop",
  /** `clipboard.set`: the server's `POST` never answers (it waits for the `xclip` it leaves running). */
  clipboardSetTimeoutMs: 3000,
  /** Of that bound, what is kept for reading the clipboard back (at most half of it). */
  clipboardReadBackMs: 1000,
  /** `screen$`: the least time between the starts of two screenshots, and each one's bound. */
  screenIntervalMs: 1000,
  screenTimeoutMs: 10_000,
} as const;

/** The defaults of the session store, the recorder, `history$`, the replay text and leases. */
export const PERSISTENCE_DEFAULTS = {
  /** A listing's page size when a request names none. */
  pageLimit: 100,
  /** `indexedDbStore`: the database's name. */
  indexedDbName: "sandbox-agent-rx",
  /** `createRecorder`: the queue's bound, one event at a time or batched, and a batch's size. */
  maxBacklog: 10_000,
  maxBacklogBatched: 100_000,
  maxBatch: 5000,
  /** `history$`: a stored page's size, and how many recent ids tell a live duplicate apart. */
  historyPageSize: 500,
  historyRecentIds: 4096,
  /** The replay text for an agent that cannot reload a session. */
  replayMaxChars: 12_000,
  replayMaxEvents: 2000,
  /** A lease's time to live, and the longest one accepted (a year; a timer's own limit is 24.8 days). */
  leaseTtlMs: 15_000,
  leaseTtlMaxMs: 365 * 24 * 3600 * 1000,
} as const;
