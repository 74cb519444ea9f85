import type { WebSocketConstructor } from "../internal/web-socket.js";
import type { Observable } from "rxjs";
import type { ReconnectOption, TokenSource } from "../acp-http/index.js";
import type { CallOptions, Logger } from "./call-options.js";
import type { SandboxAgentError } from "./errors.js";
import type { InputRequest, PermissionRequest, SandboxEvent } from "./events/events.js";

export type { InputRequest };
import type { HistoryEvent, HistoryOptions } from "./persistence/history.js";
import type { ReplayOptions } from "./persistence/replay.js";
import type { SessionStore } from "./persistence/store.js";
import type { ServerApi } from "./server/profiles.js";
import type { AgentCan } from "./connection/capabilities.js";
import type { PromptInput, PromptOutcome } from "./sessions/session-calls.js";
import type { Transcript } from "./transcript/index.js";

export type { CallOptions, Logger };

/** The answer to a permission request: one of the offered options, or no decision. */
export type PermissionReply = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };


/**
 * The answer to an `InputRequest`: `accept` (with the form's `values`; for a URL, the user agreed to
 * open it), `decline`, or `cancel` (dismissed without a decision).
 */
export type InputReply =
  | { action: "accept"; values?: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

/** What a permission handler gets besides the request. */
export interface PermissionContext {
  /**
   * Aborts when the answer is no longer wanted (the turn was cancelled, the agent withdrew
   * the request, or the connection closed): a UI dialog can close itself.
   */
  signal: AbortSignal;
}

/** What `new SandboxAgentClient(options)` takes: where the server is, which agent, and how to behave. */
export interface SandboxAgentClientOptions {
  /** The server, e.g. `http://127.0.0.1:2468`. */
  baseUrl: string;
  /** The agent to drive (`claude`, `codex`, `mock`, ...); required to connect. */
  agent?: string;
  token?: TokenSource;
  /** Sent with every request; names are case-insensitive, and the client's own headers win over them. */
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  /** A WebSocket constructor for terminals where the runtime has none (Node 20: `import WebSocket from "ws"`). */
  WebSocket?: WebSocketConstructor;
  /** Connect from the constructor (default true); the outcome is on `ready` and `state$`. */
  autoConnect?: boolean;
  /** With `autoConnect`: wait for the server's health first (see `ConnectOptions.waitForServer`). */
  waitForServer?: boolean | HealthWaitBounds;
  /** Which server contract; asked of the server when absent. */
  serverApi?: ServerApi;
  /** `v1` servers only: the server-side id of this client's agent process. Default: random. */
  serverId?: string;
  /**
   * How a dropped connection comes back, and so how long `state$` may say `reconnecting` before
   * `disconnected$` reports `retries-exhausted`. Default 6 attempts over about 25.5 s (at most
   * 30.6 s); `false`: none, the first drop ends the connection. Each attempt is on `reconnecting$`.
   */
  reconnect?: ReconnectOption;
  /** Working directory for new sessions when a call does not give one. Default `/`. */
  cwd?: string;
  /**
   * The protocol version asked of the agent: 1 (default), or 2 for the ACP v2 draft, which is
   * experimental (the draft may still change). The agent's answer decides; `ConnectInfo.protocolVersion`
   * says which was agreed. On 2 a prompt resolves when the agent reports its session idle, every
   * update of the turn delivered first, and a session is reopened with the agent's `session/resume`
   * (`loadSession` asks it to replay the history). See docs/client.md.
   */
  protocolVersion?: 1 | 2;
  /**
   * Decides the agent's permission requests; without it every request is answered "cancelled". `"ask"`:
   * each request waits for `client.replyPermission(...)` (a UI's answer; it shows as the session
   * transcript's `pendingPermission`) until its turn is cancelled or the agent withdraws it.
   */
  onPermissionRequest?:
    | ((request: PermissionRequest, context: PermissionContext) => PermissionReply | Promise<PermissionReply>)
    | "ask";
  /**
   * Answers the agent's questions (`InputRequest`: a form, or a URL to open); the agent is told the
   * client can be asked only when it is given. Without it a question is declined, never accepted.
   * `context.signal` aborts when the answer stops mattering (the turn was cancelled: the agent is then
   * answered `cancel`; the agent withdrew it; the connection closed). `"ask"`: each question waits for
   * `client.replyInput(...)` (a UI's answer; it shows as the session transcript's `pendingInput`)
   * until its turn ends or is cancelled (then the agent is answered `cancel`).
   */
  onInput?: ((request: InputRequest, context: PermissionContext) => InputReply | Promise<InputReply>) | "ask";
  /** Answers the agent's file reads and writes (advertised to the agent only when given). */
  onReadTextFile?: (request: ReadTextFileRequest) => string | Promise<string>;
  onWriteTextFile?: (request: { sessionId: string; path: string; content: string }) => void | Promise<void>;
  /**
   * What the client tells the agent it can present to the user, told when connecting; default: all
   * of it (`CLIENT_DEFAULTS.shows`). `compaction`: the agent's context compactions (the transcript's
   * `compaction` entries); `notices`: its notices to the user (`notice` entries); `booleanOptions`:
   * on/off configuration options (`setSessionConfigOption(id, id, true)`). Set one to `false` when
   * your interface does not show it; an agent told nothing may keep such updates to itself. With
   * `booleanOptions: false` an on/off value is refused before it is sent (`UnsupportedFeatureError`).
   */
  shows?: { compaction?: boolean; notices?: boolean; booleanOptions?: boolean };
  /** Log what the client does (never tokens): `true` for the console, or a logger of your own. */
  debug?: boolean | Logger;
  /**
   * Where sessions and their events are kept, for `history$`, `resumeSession(localId)` and
   * `restoreSessions()`. Default: `memoryStore()` (this process only). Writes never delay events.
   */
  store?: SessionStore;
  /** Bounds of the history text sent ahead of the next prompt when a session had to be recreated. */
  replay?: ReplayOptions;
}

export interface ReadTextFileRequest {
  sessionId: string;
  path: string;
  line?: number | null;
  limit?: number | null;
}

/** Options of `waitForHealth` (their defaults are `HEALTH_WAIT_DEFAULTS`, in client-options.ts). */
export interface HealthWaitOptions {
  /** Give up after this long, in ms (default 30000). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The health route (default `/v1/health`; a v2 server has `/v2/health`). */
  path?: string;
  /** First pause between attempts, in ms (default 100); doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  /** Longest pause between attempts, in ms (default 2000). */
  maxDelayMs?: number;
  /**
   * HTTP statuses that also count as "the server is up" (default none). `[410]` makes a v2
   * server's answer to `/v1/health` count, for callers that detect the contract afterwards.
   */
  upStatuses?: number[];
  /** Bound on one attempt, in ms (default 5000), so one hung attempt cannot use up the wait. */
  attemptTimeoutMs?: number;
}

/** How `waitForHealth` paces itself (its bounds are the call's `signal` and `timeoutMs`). */
export type HealthWaitBounds = Omit<HealthWaitOptions, "signal" | "timeoutMs" | "path" | "upStatuses">;

/** `connect()`'s bounds (a signal that cancels the attempt, and a deadline for all of it) and its agent. */
export interface ConnectOptions extends CallOptions {
  /**
   * The agent to connect to (e.g. `"claude"`): the one of this connection and of later ones, as if
   * given to the constructor. Default: the client's `agent` option.
   */
  agent?: string | undefined;
  /**
   * Wait for the server's health route first (with backoff, within the same deadline; 30 s when
   * none is given): a server in a sandbox often starts after its client. `true` uses the defaults.
   */
  waitForServer?: boolean | HealthWaitBounds | undefined;
}

/** `disconnected` until connected and after `disconnect()` or a lost connection. */
export type ConnectionState = "disconnected" | "connecting" | "connected" | "reconnecting";

/** What a successful `connect()` reports: the server contract, the agent, and what it advertised. */
export interface ConnectInfo {
  api: ServerApi;
  /** The protocol version the agent agreed to: 1, or 2 (the ACP v2 draft, experimental) when asked for. */
  protocolVersion: 1 | 2;
  agent: string;
  agentInfo: { name: string; version?: string } | undefined;
  /** Extension flags the server or agent advertised. */
  extensions: Record<string, boolean>;
  /** The optional session calls the agent said it answers (`loadSession`, `deleteSession`, ...). */
  agentCan: AgentCan;
}

/** Why a connection ended: `disconnected` is `disconnect()`; anything else came from the server or network. */
export interface DisconnectInfo {
  reason: "disconnected" | "connection-lost" | "retries-exhausted" | "unauthorized" | "stream-rejected"
    | "initialize-failed";
  /** Absent for `disconnect()`; otherwise the error that ended the connection (kind `connection-lost`). */
  error?: SandboxAgentError;
}

/** One reconnect attempt while `state$` says `reconnecting` ("server unreachable, retrying (3/6)"). */
export interface ReconnectAttempt {
  /** 1-based; it starts again at 1 once the connection is back and events flow again. */
  attempt: number;
  /** After this many failed attempts the connection ends (`retries-exhausted` on `disconnected$`). */
  maxAttempts: number;
  /** How long until this attempt starts, in ms. */
  nextDelayMs: number;
  /** What failed last (a `SandboxAgentError` of kind `network` when the server is unreachable). */
  cause: unknown;
}

/** A prompt turn as a stream: the session's events while it runs, then its outcome. */
export type PromptEvent = SandboxEvent | { kind: "stop"; stopReason: string };

/** One session seen from the client: its own events and its own calls. */
export interface SessionView {
  readonly sessionId: string;
  /**
   * This session's events, with the `events-lost` gaps that may concern it; completes after
   * the session ends or when the connection it was subscribed on closes.
   */
  readonly events$: Observable<SandboxEvent>;
  prompt(prompt: PromptInput, options?: CallOptions): Promise<PromptOutcome>;
  prompt$(prompt: PromptInput): Observable<PromptEvent>;
  cancel(): Promise<void>;
  /**
   * The session's stored events, then its live ones, without a gap or a duplicate at the seam
   * (stored ones carry their `eventIndex`). Works for a resumed session under either id.
   */
  history$(options?: HistoryOptions): Observable<HistoryEvent>;
  /**
   * The session as a transcript (see `toTranscript`): the empty transcript, then a snapshot per change,
   * built from the stored history and then the live events (a reopened or reloaded session shows all
   * of it). Cold: each subscription reads the history; it stays open across reconnects.
   */
  readonly transcript$: Observable<Transcript>;
}
