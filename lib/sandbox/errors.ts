// Every error the sandbox layer throws: one base class, SandboxAgentError, whose `kind` says which
// failure it is, and a subclass only where a caller branches on the class or needs its fields.
// It does not mirror the protocol layer's classes one to one (error-mapping.ts maps those by kind).
//
// Kept as classes, and why:
// - NotConnectedError: the first thing a caller handles ("call connect()"); `method`, `reason`.
// - CallTimeoutError, CallAbortedError: the two ways a caller ends its own call; callers branch on
//   them (and on `name` "TimeoutError" / "AbortError", as with DOM errors).
// - AgentError: the agent said no; its `code` and `data` are what a caller reads.
// - UnsupportedFeatureError: `validValues` lists what the session accepts (a caller shows them).
// - SandboxAgentHttpError: every HTTP problem, with `status`, `problem`, `bodyText`, `processId`,
//   `command`; NotFoundError (any 404, and the filesystem's missing path) because "not there" is
//   the one HTTP case callers branch on everywhere; DesktopDependenciesMissingError for its typed
//   `missingDependencies` and `installCommand`.
// - SandboxStartError: `reason` and the server's `output` tail are what a caller shows.
// - StoreError (`sessionId`, `eventId`, `issues` on `storeErrors$`) and LeaseLostError (a worker
//   branches on losing its session; `generation`).
// Folded into the base (or into SandboxAgentHttpError) as kinds, because they were a message and a
// kind and nothing else a caller needs: `already_connected`, `connection_lost` (the protocol
// error with its close reason is the `cause`), `agent_exited` (the exit code is in the message and
// on the `agent-exited` event), `protocol`, `network`, `terminal` / `terminal_server` (a terminal's
// local failure / the server's error frame), `sandbox_provider` / `sandbox_not_found`; and HTTP
// 409s and 400/415/422s, which are `SandboxAgentHttpError`s with their `status` and the server's
// kind (`conflict` / `invalid_request` when it sent none; `process_running`,
// `desktop_runtime_inactive`, `desktop_streamer_missing`, ...). The small functions beside the
// classes (alreadyConnected, connectionLost, agentExited, terminalError, providerError,
// sandboxNotFound) build the folded kinds with their messages; they are not part of the public API.

/**
 * What went wrong, for code that branches without `instanceof`. The client's own kinds are listed;
 * an HTTP error's kind is the server's problem kind where it sent one (`token_invalid`,
 * `session_not_found`, `desktop_runtime_inactive`, ...), so the set is open. The kinds that have no
 * class of their own (a plain `SandboxAgentError`):
 * - `already_connected`: `connect()` while a connection exists or is being made;
 * - `connection_lost`: the connection ended under a call (the protocol error, with its close
 *   reason, is the `cause`); also `DisconnectInfo.error`;
 * - `agent_exited`: the agent process is gone (its exit code in the message): `disconnect()`, then
 *   `connect()`;
 * - `protocol`: the server answered with something this client cannot read;
 * - `network`: the server could not be reached (refused, reset, DNS);
 * - `invalid_header`: a header value with CR or LF; nothing was sent;
 * - `websocket_unavailable`: a terminal needs a WebSocket and the runtime has none (Node 20): install
 *   `ws` and pass it as the client's `WebSocket` option;
 * - `terminal`: a terminal's socket failed or closed before the process exited;
 *   `terminal_server`: the server's error frame on `errors$` (the socket stays open);
 * - `log_stream`: `logs$` gave up reconnecting;
 * - `sandbox_provider`: a provider's engine failed; `sandbox_not_found`: it has no such sandbox;
 * - `cors`: in a browser, the server is there but did not allow this page's origin.
 * The client's finer readings of HTTP answers: `token_missing` (a 401 to a client with no token),
 * `path_not_found` (a missing file or directory), `agent_start_failed` (the server could not start
 * the agent's program: not installed there, or not executable).
 */
export type SandboxErrorKind =
  | "not_connected"
  | "already_connected"
  | "connection_lost"
  | "agent_exited"
  | "agent"
  | "timeout"
  | "aborted"
  | "protocol"
  | "network"
  | "invalid_header"
  | "websocket_unavailable"
  | "unsupported"
  | "http"
  | "not_found"
  | "path_not_found"
  | "token_missing"
  | "agent_start_failed"
  | "cors"
  | "conflict"
  | "invalid_request"
  | "process_not_found"
  | "process_running"
  | "process_not_running"
  | "not_a_terminal"
  | "spawn_failed"
  | "desktop_runtime_inactive"
  | "desktop_streamer_missing"
  | "terminal"
  | "terminal_server"
  | "log_stream"
  | "sandbox_start"
  | "sandbox_provider"
  | "sandbox_not_found"
  | StoreErrorKind
  | (string & {});

/** The kinds of a `StoreError`. */
export type StoreErrorKind =
  | "store"
  | "invalid_cursor"
  | "invalid_record"
  | "store_write"
  | "store_backlog"
  | "lease_lost";

/** The base of every error the sandbox client throws; `kind` says which failure it is. */
export class SandboxAgentError extends Error {
  override name = "SandboxAgentError";
  readonly kind: SandboxErrorKind;

  constructor(message: string, options?: { cause?: unknown; kind?: SandboxErrorKind }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options?.kind ?? "error";
  }
}

// --- the connection ------------------------------------------------------------------

/** Why there is no connection, where the client knows: its connect failed, or its connection ended. */
export type NotConnectedReason = "connect-failed" | "connection-ended";

/**
 * A session method was called with no live connection. The message says why when the client knows
 * (the connect failed, with its reason, or the connection ended) and what to do; `cause` is that
 * connect's error or the connection's error of kind `connection_lost`.
 */
export class NotConnectedError extends SandboxAgentError {
  override name = "NotConnectedError";
  readonly method: string;
  readonly reason: NotConnectedReason | undefined;

  constructor(method: string, options?: { cause?: unknown; reason?: NotConnectedReason }) {
    super(notConnectedMessage(method, options?.reason, options?.cause), {
      cause: options?.cause,
      kind: "not_connected",
    });
    this.method = method;
    this.reason = options?.reason;
  }
}

function notConnectedMessage(method: string, reason: NotConnectedReason | undefined, cause: unknown): string {
  const why = cause instanceof Error ? cause.message : cause === undefined ? "" : String(cause);
  if (reason === "connect-failed") {
    const failed = /^connect\b/.test(why) ? why : `connect failed${why ? `: ${why}` : ""}`;
    return `${method}: not connected: ${failed}; call connect() to try again`;
  }
  if (reason === "connection-ended") {
    return `${method}: not connected: the connection ended${why ? ` (${why})` : ""}; call connect() to open a new one`;
  }
  return `${method}: not connected; call connect() first`;
}

/**
 * `connect()` was called while a connection exists or is being made (auto-connect: await
 * `client.ready`): kind `already_connected`.
 */
export function alreadyConnected(): SandboxAgentError {
  return new SandboxAgentError(
    "already connected (or connecting); one client holds one connection; " +
      "call disconnect() first, or await client.ready",
    { kind: "already_connected" },
  );
}

/**
 * The connection ended while a call was pending, or under it (server gone, stream could not come
 * back): kind `connection_lost`. `reason` is the protocol layer's close reason.
 */
export function connectionLost(
  reason: string,
  method: string | undefined,
  options?: { cause?: unknown },
): SandboxAgentError {
  return new SandboxAgentError(`${method ? `${method}: ` : ""}connection lost (${reason})`, {
    cause: options?.cause,
    kind: "connection_lost",
  });
}

/** The agent process behind this connection has exited; its sessions are gone: kind `agent_exited`. */
export function agentExited(exitCode: number | null, method?: string): SandboxAgentError {
  return new SandboxAgentError(
    `${method ? `${method}: ` : ""}the agent process exited` +
      `${exitCode === null ? " (killed by a signal)" : ` with code ${exitCode}`}` +
      "; call disconnect() and connect() to start a new one",
    { kind: "agent_exited" },
  );
}

/** The agent (or the server acting for it) answered a call with an error. */
export class AgentError extends SandboxAgentError {
  override name = "AgentError";
  readonly code: number;
  readonly data: unknown;
  readonly method: string;

  constructor(method: string, code: number, message: string, data: unknown, options?: { cause?: unknown }) {
    super(`${method} failed: ${message} (code ${code})`, { cause: options?.cause, kind: "agent" });
    this.method = method;
    this.code = code;
    this.data = data;
  }
}

// --- any call ------------------------------------------------------------------------

/** A call's own deadline (`timeoutMs`) passed. */
export class CallTimeoutError extends SandboxAgentError {
  override name = "TimeoutError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { cause: options?.cause, kind: "timeout" });
  }
}

/** The caller aborted the call (AbortSignal or unsubscription). */
export class CallAbortedError extends SandboxAgentError {
  override name = "AbortError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { cause: options?.cause, kind: "aborted" });
  }
}

/**
 * The server or agent does not offer this feature, or not with this value; nothing was sent.
 * When the refusal is about a value (a mode, a config option, a category), `validValues` lists
 * what the session does accept.
 */
export class UnsupportedFeatureError extends SandboxAgentError {
  override name = "UnsupportedFeatureError";
  readonly feature: string;
  /** The accepted values (mode ids, option ids, option values, categories), when the refusal is about a value. */
  readonly validValues: readonly string[] | undefined;

  constructor(feature: string, detail: string, validValues?: readonly string[]) {
    super(`${feature} is not supported here: ${detail}`, { kind: "unsupported" });
    this.feature = feature;
    this.validValues = validValues;
  }
}

// --- HTTP problems ---------------------------------------------------------------------

/** RFC 7807 problem details from the server (`type` is `urn:sandbox-agent:error:<kind>`). */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  [extension: string]: unknown;
}

/** What an HTTP error was about beyond its answer: a process (its id, or the command that did not start). */
export interface HttpErrorOptions {
  cause?: unknown;
  /** The client's reading where it is finer than the server's (`process_running`); default the problem's kind. */
  kind?: SandboxErrorKind;
  /** The process the call was about. */
  processId?: string;
  /** The command that could not be started (kind `spawn_failed`). */
  command?: string;
  /** What the client adds to the server's words, where it knows better than `problemHint` (which agent, how). */
  hint?: string;
}

/**
 * A non-2xx answer from the server, with its problem+json details when it sent them. The message
 * names the call, the status and the server's words, then what the client knows to add (which
 * agent, where to look, the way out; see `problemHint`). `kind` is the client's finer reading where
 * it has one, else the server's problem kind, else the status's (the lists below):
 * - 409 (the request is valid but the server's state refuses it): `process_running`,
 *   `process_not_running`, `not_a_terminal` (with `processId`), `desktop_runtime_inactive` (a
 *   desktop not started), `desktop_streamer_missing` (no `neko` for `desktop.stream.start`),
 *   `conflict` (e.g. a recording already running);
 * - 400, 415, 422 (the server refused the request's shape; its words are in `problem` or
 *   `bodyText`, and in the message): the server's kind, else `invalid_request`;
 * - a command that could not start: `spawn_failed` (with `command`);
 * - anything else: the server's kind (`token_invalid`, `install_failed`, ...), else `http`.
 */
export class SandboxAgentHttpError extends SandboxAgentError {
  override name = "SandboxAgentHttpError";
  readonly status: number;
  readonly problem: Problem | undefined;
  /** The body when it was not JSON (plain text, HTML), capped. */
  readonly bodyText: string | undefined;
  readonly operation: string;
  /** The process the call was about (process routes and terminals). */
  readonly processId: string | undefined;
  /** The command that could not be started (`spawn_failed`). */
  readonly command: string | undefined;

  constructor(
    operation: string,
    status: number,
    problem: Problem | undefined,
    bodyText: string | undefined,
    options?: HttpErrorOptions,
  ) {
    const summary = problem?.detail ?? problem?.title ?? bodyText?.slice(0, 200);
    const problemKind = problem?.type?.split(":").pop();
    const hint = options?.hint ?? problemHint(status, options?.kind ?? problemKind, problem);
    super(`${operation} failed with HTTP ${status}${summary ? `: ${summary}` : ""}${hint ? `. ${hint}` : ""}`, {
      cause: options?.cause,
      kind: options?.kind ?? problemKind ?? statusKind(status),
    });
    this.operation = operation;
    this.status = status;
    this.problem = problem;
    this.bodyText = bodyText;
    this.processId = options?.processId;
    this.command = options?.command;
  }
}

/** The kind of an HTTP answer whose problem names none: what its status says. */
function statusKind(status: number): SandboxErrorKind {
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 400 || status === 415 || status === 422) return "invalid_request";
  return "http";
}

/**
 * The thing named does not exist: any 404 from the server (a process, a config entry, a recording,
 * a window, an app on the sandbox's PATH, an agent not installed, a session), and the filesystem's
 * 400 "path not found". `kind` tells which (`process_not_found` with `processId`, `not_found`,
 * `session_not_found` for config entries, `window_not_found`, `app_not_found`, `no_focused_window`,
 * `agent_not_installed`, `client_not_found`, `path_not_found` for a file or directory, which the
 * server answers with a 400); `status` is the server's own.
 */
export class NotFoundError extends SandboxAgentHttpError {
  override name = "NotFoundError";
}

/**
 * HTTP 503 `desktop_dependencies_missing`: the sandbox lacks the programs the desktop needs.
 * `installCommand` is what the server suggests running inside the sandbox (as root).
 */
export class DesktopDependenciesMissingError extends SandboxAgentHttpError {
  override name = "DesktopDependenciesMissingError";
  /** Program names the server looked for and did not find, e.g. `["Xvfb", "xdotool"]`. */
  readonly missingDependencies: string[];
  /** The server's install command, e.g. `sandbox-agent install desktop --yes`. */
  readonly installCommand: string | undefined;

  constructor(...args: ConstructorParameters<typeof SandboxAgentHttpError>) {
    super(...args);
    const missing: unknown = this.problem?.missingDependencies;
    this.missingDependencies = Array.isArray(missing)
      ? missing.filter((name): name is string => typeof name === "string")
      : [];
    const command = this.problem?.installCommand;
    this.installCommand = typeof command === "string" ? command : undefined;
  }
}

/** How much of the server's own account (an installer's stderr) a message quotes. */
const QUOTE_CHARS = 300;

/**
 * What the client can add to a server's problem that the server's bare words leave out ("install
 * failed: claude"): which agent, the server's reason where it sent one, and the way out. Undefined
 * for problems whose detail already says enough.
 */
function problemHint(status: number, kind: string | undefined, problem: Problem | undefined): string | undefined {
  const agent = typeof problem?.agent === "string" ? problem.agent : undefined;
  switch (kind) {
    case "install_failed": {
      const stderr = (problem?.details as { stderr?: unknown } | undefined)?.stderr;
      const reason = typeof stderr === "string" && stderr.trim() ? `: ${quote(stderr)}` : "";
      return (
        `The server could not install agent "${agent ?? "?"}"${reason}. Installing downloads the agent, so the ` +
        "server needs network access (and the agent its API key to run); the server's log has the details"
      );
    }
    case "agent_not_installed":
      return `The server runs only agents installed beforehand: install it first with installAgent("${agent ?? "?"}")`;
    case "unsupported_agent":
      return "listAgents() lists the agents this server knows";
    case "token_missing":
      return (
        "The server requires a token and this client sent none: pass the server's token (its --token) in the " +
        "token option"
      );
    case "token_invalid":
      return "The server refused the token this client sent: pass the server's token (its --token) in the token option";
  }
  if (status === 401) return "Pass the server's token (its --token) in the token option";
  if (status === 403) return "The token option's token is not allowed this call";
  return undefined;
}

function quote(text: string): string {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS - 3)}...` : line;
}

// --- processes' streams ----------------------------------------------------------------

/**
 * A terminal WebSocket problem: the server sent an error frame (kind `terminal_server`: the socket
 * stays open), or the socket failed or closed before the process exited (kind `terminal`).
 */
export function terminalError(
  processId: string,
  message: string,
  options: { fromServer: boolean; cause?: unknown },
): SandboxAgentError {
  return new SandboxAgentError(`terminal ${processId}: ${message}`, {
    cause: options.cause,
    kind: options.fromServer ? "terminal_server" : "terminal",
  });
}

// --- sandboxes (providers) ---------------------------------------------------------------

/** Why a sandbox's server did not come up. */
export type SandboxStartFailure = "spawn-failed" | "exited" | "timeout" | "port-in-use";

/**
 * A sandbox was created but its server never answered `GET /v1/health`, or could not be
 * started at all. `output` holds the tail of what the server wrote (tokens redacted).
 */
export class SandboxStartError extends SandboxAgentError {
  override name = "SandboxStartError";
  readonly provider: string;
  readonly reason: SandboxStartFailure;
  /** The last lines the server wrote before it failed; empty when nothing was seen. */
  readonly output: string;

  constructor(
    provider: string,
    reason: SandboxStartFailure,
    detail: string,
    output = "",
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${detail}${output ? `\n--- server output (tail) ---\n${output}` : ""}`, {
      cause: options?.cause,
      kind: "sandbox_start",
    });
    this.provider = provider;
    this.reason = reason;
    this.output = output;
  }
}

/**
 * The engine behind a provider failed an operation (`create`, `destroy`, `reconnect`, ...: the
 * Docker API refused, a binary is missing): kind `sandbox_provider`.
 */
export function providerError(
  provider: string,
  operation: string,
  detail: string,
  options?: { cause?: unknown },
): SandboxAgentError {
  return new SandboxAgentError(`${provider}.${operation}: ${detail}`, {
    cause: options?.cause,
    kind: "sandbox_provider",
  });
}

/**
 * `reconnect`, `pause` or `resume` was asked for a sandbox the provider does not have (any more):
 * kind `sandbox_not_found`.
 */
export function sandboxNotFound(provider: string, sandboxId: string, options?: { cause?: unknown }): SandboxAgentError {
  return new SandboxAgentError(`${provider}.find: no sandbox ${sandboxId}`, {
    cause: options?.cause,
    kind: "sandbox_not_found",
  });
}

// --- the session store -----------------------------------------------------------------

/**
 * A session store rejected a call or returned data that does not validate. `kind`: `invalid_cursor`
 * (a page cursor this store did not issue), `invalid_record` (a value that does not match its
 * schema, `issues` says how), `store_write` (the recorder could not store an event; it was still
 * delivered), `store_backlog` (the recorder's queue was full: the event was not stored), or `store`.
 */
export class StoreError extends SandboxAgentError {
  override name = "StoreError";
  override readonly kind: StoreErrorKind;
  /** The session of the event (`store_write`, `store_backlog`), or of the lease (`lease_lost`). */
  readonly sessionId: string | undefined;
  /** The event that was not stored (`store_write`, `store_backlog`). */
  readonly eventId: string | undefined;
  /** How a value failed its schema (`invalid_record`). */
  readonly issues: string | undefined;

  constructor(
    message: string,
    options?: { cause?: unknown; kind?: StoreErrorKind; sessionId?: string; eventId?: string; issues?: string },
  ) {
    super(message, { cause: options?.cause, kind: options?.kind ?? "store" });
    this.kind = options?.kind ?? "store";
    this.sessionId = options?.sessionId;
    this.eventId = options?.eventId;
    this.issues = options?.issues;
  }

  /** A page cursor that this store did not issue (or that belongs to another listing). */
  static invalidCursor(): StoreError {
    return new StoreError("invalid page cursor: pass the nextCursor of a previous page of the same listing", {
      kind: "invalid_cursor",
    });
  }

  /** A value given to a store, or read back from one, does not match its schema. */
  static invalidRecord(what: string, issues: string): StoreError {
    return new StoreError(`invalid ${what}: ${issues}`, { kind: "invalid_record", issues });
  }

  /** The recorder could not store an event; the event was still delivered to subscribers. */
  static writeFailed(sessionId: string, eventId: string, cause: unknown): StoreError {
    return new StoreError(`could not store event ${eventId} of session ${sessionId}`, {
      cause,
      kind: "store_write",
      sessionId,
      eventId,
    });
  }

  /**
   * A store failure met inside the user's call `call` (`restoreSessions`, `transcript$`, ...): the
   * message names that call first, then what failed (`the store's own message`); `cause` is the
   * store's error, and its `kind` and `sessionId` are kept. A `LeaseLostError` is returned as it is.
   */
  static during(call: string, cause: unknown, sessionId?: string): StoreError {
    if (cause instanceof LeaseLostError) return cause;
    const inner = cause instanceof StoreError ? cause : undefined;
    const message = (cause as { message?: unknown } | null)?.message;
    const detail = typeof message === "string" ? message : String(cause);
    const what = sessionId === undefined ? "the store failed" : `the store failed on session ${sessionId}`;
    return new StoreError(`${call}: ${what}: ${detail}`, {
      cause,
      kind: inner?.kind ?? "store",
      ...((sessionId ?? inner?.sessionId) !== undefined ? { sessionId: sessionId ?? inner?.sessionId } : {}),
      ...(inner?.eventId !== undefined ? { eventId: inner.eventId } : {}),
      ...(inner?.issues !== undefined ? { issues: inner.issues } : {}),
    });
  }

  /** The store fell so far behind that the recorder's queue was full: this event was not stored. */
  static backlog(sessionId: string, eventId: string, limit: number): StoreError {
    const message = `recorder queue full (${limit} events): event ${eventId} of session ${sessionId} was not stored`;
    return new StoreError(message, { kind: "store_backlog", sessionId, eventId });
  }
}

/**
 * This worker no longer holds the session's lease: it expired before it was renewed, or another
 * worker has claimed the session since (a newer generation). The write or call was refused; the
 * session is another worker's now.
 */
export class LeaseLostError extends StoreError {
  override name = "LeaseLostError";
  override readonly sessionId: string;
  /** The generation this worker held. */
  readonly generation: number;

  constructor(sessionId: string, generation: number, detail = "another worker holds it now") {
    super(`lease on session ${sessionId} (generation ${generation}) lost: ${detail}`, {
      kind: "lease_lost",
      sessionId,
    });
    this.sessionId = sessionId;
    this.generation = generation;
  }
}
