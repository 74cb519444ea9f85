// Every error the sandbox layer throws: one base class, SandboxAgentError, whose `kind` says which
// failure it is, and a subclass only where a caller branches on the class or needs its fields.
// It does not mirror the protocol layer's classes one to one (error-mapping.ts maps those by kind).
//
// Kept as classes, and why:
// - NotConnectedError: the first thing a caller handles ("call connect()"); `method`, `reason`.
// - AlreadyConnectedError: the specification's error model names it (a second `connect()`).
// - CallTimeoutError, CallAbortedError: the two ways a caller ends its own call; callers branch on
//   them (and on `name` "TimeoutError" / "AbortError", as with DOM errors).
// - AgentError: the agent said no; its `code` and `data` are what a caller reads.
// - UnsupportedFeatureError: `validValues` lists what the session accepts (a caller shows them).
// - SandboxAgentHttpError: every HTTP problem, with `status`, `problem`, `bodyText`, `processId`,
//   `command`; NotFoundError (any 404, and the filesystem's missing path) because "not there" is
//   the one HTTP case callers branch on everywhere; DesktopDependenciesMissingError for its typed
//   `missingDependencies` and `installCommand`.
// - BodyTooLargeError: a request body refused before it was sent; `bytes` and `limitBytes` are what
//   a caller needs to split it.
// - SandboxStartError: `reason` and the server's `output` tail are what a caller shows.
// - StoreError (`sessionId`, `eventId`, `issues` on `storeErrors$`) and LeaseLostError (a worker
//   branches on losing its session; `generation`).
// Folded into the base (or into SandboxAgentHttpError) as kinds, because they were a message and a
// kind and nothing else a caller needs: `connection-lost` (the protocol
// error with its close reason is the `cause`), `agent-exited` (the exit code is in the message and
// on the `agent-exited` event), `protocol`, `network`, `terminal` / `terminal-server` (a terminal's
// local failure / the server's error frame), `sandbox-provider` / `sandbox-not-found`; and HTTP
// 409s and 400/415/422s, which are `SandboxAgentHttpError`s with their `status`, the client's
// reading as the kind (`conflict`, `invalid-request`, `process-running`, ...) and the server's own
// problem code as `code`. The small functions beside the classes (alreadyConnected, connectionLost,
// agentExited, terminalError, providerError, sandboxNotFound) build the folded kinds with their
// messages; they are not part of the public API.

/**
 * What went wrong, for code that branches without `instanceof`: one closed set, in kebab-case like
 * the protocol layer's kinds and the events' (a `switch` over it is checked for exhaustiveness).
 * The server's own problem codes (`token_invalid`, `session_not_found`, ...) are not kinds: they
 * are data on the error (`SandboxAgentHttpError.code`). The kinds that have no class of their own
 * (a plain `SandboxAgentError`):
 * - `no-agent`: `connect()` with no agent, neither in the options nor as its argument;
 * - `connection-lost`: the connection ended under a call (the protocol error, with its close
 *   reason, is the `cause`); also `DisconnectInfo.error`;
 * - `agent-exited`: the agent process is gone (its exit code in the message): `disconnect()`, then
 *   `connect()`;
 * - `protocol`: the server answered with something this client cannot read;
 * - `network`: the server could not be reached (refused, reset, DNS);
 * - `invalid-header`: a header value with CR or LF (or otherwise not a valid header); nothing was sent;
 * - `token-failed`: the client's `token` function threw or rejected (its error is the `cause`);
 *   nothing was sent;
 * - `websocket-unavailable`: a terminal needs a WebSocket and the runtime has none (Node 20): install
 *   `ws` and pass it as the client's `WebSocket` option;
 * - `terminal`: a terminal's socket failed or closed before the process exited;
 *   `terminal-server`: the server's error frame on `errors$` (the socket stays open);
 * - `log-stream`: `logs$` gave up reconnecting;
 * - `sandbox-provider`: a provider's engine failed; `sandbox-not-found`: it has no such sandbox;
 * - `cors`: in a browser, the server is there but did not allow this page's origin.
 * An HTTP answer's kind is the client's reading of it (see `SandboxAgentHttpError`).
 */
export type SandboxErrorKind =
  | "not-connected"
  | "already-connected"
  | "no-agent"
  | "connection-lost"
  | "agent-exited"
  | "agent"
  | "timeout"
  | "aborted"
  | "protocol"
  | "network"
  | "invalid-header"
  | "token-failed"
  | "websocket-unavailable"
  | "unsupported"
  | "cors"
  | HttpErrorKind
  | "terminal"
  | "terminal-server"
  | "log-stream"
  | "sandbox-start"
  | "sandbox-provider"
  | "sandbox-not-found"
  | StoreErrorKind;

/**
 * The client's reading of an HTTP answer (`SandboxAgentHttpError.kind`): by status (`http`,
 * `unauthorized` for a 401, `forbidden` for a 403, `not-found`, `conflict` for a 409,
 * `invalid-request` for a 400, 415 or 422), or finer where the client knows more: `token-missing`
 * (a 401 to a client with no token), `path-not-found` (a missing file or directory),
 * `agent-start-failed` (the server could not start the agent's program), `process-not-found`,
 * `process-running`, `process-not-running`, `not-a-terminal`, `spawn-failed`,
 * `desktop-runtime-inactive` (the desktop is not started), `desktop-streamer-missing` (no `neko`),
 * `desktop-dependencies-missing` (`DesktopDependenciesMissingError`), `body-too-large` (a 413: the
 * request body is over one of the server's limits; a body known to be over one is refused before it
 * is sent, as a `BodyTooLargeError` of the same kind).
 */
export type HttpErrorKind =
  | "http"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "conflict"
  | "invalid-request"
  | "token-missing"
  | "path-not-found"
  | "agent-start-failed"
  | "process-not-found"
  | "process-running"
  | "process-not-running"
  | "not-a-terminal"
  | "spawn-failed"
  | "desktop-runtime-inactive"
  | "desktop-streamer-missing"
  | "desktop-dependencies-missing"
  | "body-too-large";

/** The kinds of a `StoreError`. */
export type StoreErrorKind =
  | "store"
  | "invalid-cursor"
  | "invalid-record"
  | "store-write"
  | "store-backlog"
  | "lease-lost"
  | "lease-claimant";

/** The base of every error the sandbox client throws; `kind` says which failure it is. */
export class SandboxAgentError extends Error {
  override name = "SandboxAgentError";
  readonly kind: SandboxErrorKind;

  constructor(message: string, options: { cause?: unknown; kind: SandboxErrorKind }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options.kind;
  }
}

// --- the connection ------------------------------------------------------------------

/** Why there is no connection, where the client knows: its connect failed, or its connection ended. */
export type NotConnectedReason = "connect-failed" | "connection-ended";

/**
 * A session method was called with no live connection. The message says why when the client knows
 * (the connect failed, with its reason, or the connection ended) and what to do; `cause` is that
 * connect's error or the connection's error of kind `connection-lost`.
 */
export class NotConnectedError extends SandboxAgentError {
  override name = "NotConnectedError";
  readonly method: string;
  readonly reason: NotConnectedReason | undefined;

  constructor(method: string, options?: { cause?: unknown; reason?: NotConnectedReason }) {
    super(notConnectedMessage(method, options?.reason, options?.cause), {
      cause: options?.cause,
      kind: "not-connected",
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
 * `client.ready`): kind `already-connected`. Nothing was sent; the existing connection goes on.
 */
export class AlreadyConnectedError extends SandboxAgentError {
  override name = "AlreadyConnectedError";

  constructor() {
    super(
      "already connected (or connecting); one client holds one connection; " +
        "call disconnect() first, or await client.ready",
      { kind: "already-connected" },
    );
  }
}

/** The refusal of a second `connect()` (see `AlreadyConnectedError`). */
export function alreadyConnected(): AlreadyConnectedError {
  return new AlreadyConnectedError();
}

/**
 * The connection ended while a call was pending, or under it (server gone, stream could not come
 * back): kind `connection-lost`. `reason` is the protocol layer's close reason.
 */
export function connectionLost(
  reason: string,
  method: string | undefined,
  options?: { cause?: unknown },
): SandboxAgentError {
  return new SandboxAgentError(`${method ? `${method}: ` : ""}connection lost (${reason})`, {
    cause: options?.cause,
    kind: "connection-lost",
  });
}

/** The agent process behind this connection has exited; its sessions are gone: kind `agent-exited`. */
export function agentExited(exitCode: number | null, method?: string): SandboxAgentError {
  return new SandboxAgentError(
    `${method ? `${method}: ` : ""}the agent process exited` +
      `${exitCode === null ? " (killed by a signal)" : ` with code ${exitCode}`}` +
      "; call disconnect() and connect() to start a new one",
    { kind: "agent-exited" },
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
 * The client's `token` function threw or rejected, so the call `operation` sent nothing: kind
 * `token-failed`, the function's error as `cause`. (Its words are not quoted: they may hold a secret.)
 */
export function tokenFailed(operation: string, cause: unknown): SandboxAgentError {
  return new SandboxAgentError(`${operation} failed: the token function failed, so nothing was sent`, {
    cause,
    kind: "token-failed",
  });
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

/**
 * A request body over one of the server's limits (see the server profile's `limits`), refused
 * before anything was sent: kind `body-too-large`, as a 413 from the server is. The 0.4.x server
 * would otherwise close the socket mid-upload (a `network` failure) or answer 413.
 */
export class BodyTooLargeError extends SandboxAgentError {
  override name = "BodyTooLargeError";
  /** The call refused (`fs.writeFile`, `fs.uploadBatch`). */
  readonly operation: string;
  /** The size of the body refused. */
  readonly bytes: number;
  /** The server's limit it is over. */
  readonly limitBytes: number;

  constructor(operation: string, bytes: number, limitBytes: number) {
    super(
      `${operation}: the body is ${bytes} bytes, over the server's limit of ${limitBytes} bytes per request; ` +
        "nothing was sent (split it into smaller files or archives)",
      { kind: "body-too-large" },
    );
    this.operation = operation;
    this.bytes = bytes;
    this.limitBytes = limitBytes;
  }
}

// --- HTTP problems ---------------------------------------------------------------------

/** RFC 7807 problem details from the server (`type` is `urn:sandbox-agent:error:<code>`). */
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
  /** The client's reading where it is finer than the status's (`process-running`); default by status. */
  kind?: HttpErrorKind;
  /** The process the call was about. */
  processId?: string;
  /** The command that could not be started (kind `spawn-failed`). */
  command?: string;
  /** What the client adds to the server's words, where it knows better than `problemHint` (which agent, how). */
  hint?: string;
}

/**
 * A non-2xx answer from the server, with its problem+json details when it sent them. The message
 * names the call, the status and the server's words, then what the client knows to add (which
 * agent, where to look, the way out; see `problemHint`). `kind` is the client's reading
 * (`HttpErrorKind`): its finer one where it has one, else the status's (the lists below); `code` is
 * the server's own problem code, as it spells it (`token_invalid`, `install_failed`, ...):
 * - 409 (the request is valid but the server's state refuses it): `process-running`,
 *   `process-not-running`, `not-a-terminal` (with `processId`), `desktop-runtime-inactive` (a
 *   desktop not started), `desktop-streamer-missing` (no `neko` for `desktop.stream.start`),
 *   `conflict` (e.g. a recording already running);
 * - 400, 415, 422 (the server refused the request's shape; its words are in `problem` or
 *   `bodyText`, and in the message): `invalid-request`;
 * - 401: `token-missing` (this client sent no token) or `unauthorized`; 403: `forbidden`;
 * - a command that could not start: `spawn-failed` (with `command`);
 * - anything else: `http`.
 */
export class SandboxAgentHttpError extends SandboxAgentError {
  override name = "SandboxAgentHttpError";
  override readonly kind: HttpErrorKind;
  readonly status: number;
  readonly problem: Problem | undefined;
  /**
   * The server's own code for the problem, as it spells it: the desktop's `code`, else the last part
   * of the problem's `type` (`urn:sandbox-agent:error:token_invalid` gives `token_invalid`).
   */
  readonly code: string | undefined;
  /** The body when it was not JSON (plain text, HTML), capped. */
  readonly bodyText: string | undefined;
  readonly operation: string;
  /** The process the call was about (process routes and terminals). */
  readonly processId: string | undefined;
  /** The command that could not be started (`spawn-failed`). */
  readonly command: string | undefined;

  constructor(
    operation: string,
    status: number,
    problem: Problem | undefined,
    bodyText: string | undefined,
    options?: HttpErrorOptions,
  ) {
    const summary = problem?.detail ?? problem?.title ?? bodyText?.slice(0, 200);
    const code = problemCode(problem);
    const kind = options?.kind ?? CODE_KINDS[code ?? ""] ?? statusKind(status);
    const hint = options?.hint ?? problemHint(status, kind, code, problem);
    super(`${operation} failed with HTTP ${status}${summary ? `: ${summary}` : ""}${hint ? `. ${hint}` : ""}`, {
      cause: options?.cause,
      kind,
    });
    this.kind = kind;
    this.code = code;
    this.operation = operation;
    this.status = status;
    this.problem = problem;
    this.bodyText = bodyText;
    this.processId = options?.processId;
    this.command = options?.command;
  }
}

/** The server's own code of a problem: the desktop's `code`, else the last part of its `type`. */
function problemCode(problem: Problem | undefined): string | undefined {
  if (typeof problem?.code === "string") return problem.code;
  return problem?.type?.split(":").pop() || undefined;
}

/** The server's codes that the client reads as a kind of its own (a caller branches on them). */
const CODE_KINDS: Record<string, HttpErrorKind | undefined> = {
  desktop_runtime_inactive: "desktop-runtime-inactive",
  desktop_dependencies_missing: "desktop-dependencies-missing",
};

/** The kind of an HTTP answer the client has no finer reading of: what its status says. */
function statusKind(status: number): HttpErrorKind {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not-found";
  if (status === 409) return "conflict";
  if (status === 400 || status === 415 || status === 422) return "invalid-request";
  if (status === 413) return "body-too-large";
  return "http";
}

/**
 * The thing named does not exist: any 404 from the server (a process, a config entry, a recording,
 * a window, an app on the sandbox's PATH, an agent not installed, a session), and the filesystem's
 * 400 "path not found". `kind` is `not-found`, `process-not-found` (with `processId`) or
 * `path-not-found` (a file or directory, which the server answers with a 400); `code` is the
 * server's (`session_not_found` for config entries, `window_not_found`, `app_not_found`,
 * `no_focused_window`, `agent_not_installed`, `client_not_found`, ...); `status` is the server's own.
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
function problemHint(
  status: number,
  kind: HttpErrorKind,
  code: string | undefined,
  problem: Problem | undefined,
): string | undefined {
  const agent = typeof problem?.agent === "string" ? problem.agent : undefined;
  if (kind === "token-missing") {
    return (
      "The server requires a token and this client sent none: pass the server's token (its --token) in the " +
      "token option"
    );
  }
  switch (code) {
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
 * A terminal WebSocket problem: the server sent an error frame (kind `terminal-server`: the socket
 * stays open), or the socket failed or closed before the process exited (kind `terminal`).
 */
export function terminalError(
  processId: string,
  message: string,
  options: { fromServer: boolean; cause?: unknown },
): SandboxAgentError {
  return new SandboxAgentError(`terminal ${processId}: ${message}`, {
    cause: options.cause,
    kind: options.fromServer ? "terminal-server" : "terminal",
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
      kind: "sandbox-start",
    });
    this.provider = provider;
    this.reason = reason;
    this.output = output;
  }
}

/**
 * The engine behind a provider failed an operation (`create`, `destroy`, `reconnect`, ...: the
 * Docker API refused, a binary is missing): kind `sandbox-provider`.
 */
export function providerError(
  provider: string,
  operation: string,
  detail: string,
  options?: { cause?: unknown },
): SandboxAgentError {
  return new SandboxAgentError(`${provider}.${operation}: ${detail}`, {
    cause: options?.cause,
    kind: "sandbox-provider",
  });
}

/**
 * `reconnect`, `pause` or `resume` was asked for a sandbox the provider does not have (any more):
 * kind `sandbox-not-found`.
 */
export function sandboxNotFound(provider: string, sandboxId: string, options?: { cause?: unknown }): SandboxAgentError {
  return new SandboxAgentError(`${provider}.find: no sandbox ${sandboxId}`, {
    cause: options?.cause,
    kind: "sandbox-not-found",
  });
}

// --- the session store -----------------------------------------------------------------

/**
 * A session store rejected a call or returned data that does not validate. `kind`: `invalid-cursor`
 * (a page cursor this store did not issue), `invalid-record` (a value that does not match its
 * schema, `issues` says how), `store-write` (the recorder could not store an event; it was still
 * delivered), `store-backlog` (the recorder's queue was full: the event was not stored),
 * `lease-claimant` (a second owner claimed through a store that fences one claimant, such as one
 * `postgresStore` shared by two clients), or `store`.
 */
export class StoreError extends SandboxAgentError {
  override name = "StoreError";
  override readonly kind: StoreErrorKind;
  /** The session of the event (`store-write`, `store-backlog`), or of the lease (`lease-lost`). */
  readonly sessionId: string | undefined;
  /** The event that was not stored (`store-write`, `store-backlog`). */
  readonly eventId: string | undefined;
  /** How a value failed its schema (`invalid-record`). */
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
      kind: "invalid-cursor",
    });
  }

  /** A value given to a store, or read back from one, does not match its schema. */
  static invalidRecord(what: string, issues: string): StoreError {
    return new StoreError(`invalid ${what}: ${issues}`, { kind: "invalid-record", issues });
  }

  /** The recorder could not store an event; the event was still delivered to subscribers. */
  static writeFailed(sessionId: string, eventId: string, cause: unknown): StoreError {
    return new StoreError(`could not store event ${eventId} of session ${sessionId}`, {
      cause,
      kind: "store-write",
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
    return new StoreError(message, { kind: "store-backlog", sessionId, eventId });
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
      kind: "lease-lost",
      sessionId,
    });
    this.sessionId = sessionId;
    this.generation = generation;
  }
}
