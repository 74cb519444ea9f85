// The client's options, documented and defaulted in this one place (the values are ACP_DEFAULTS,
// defaults.ts), and the server profiles (per-server differences as data: RFD_PROFILE), with the
// default clientInfo.
import { normalizeReconnectPolicy, type NormalizedReconnectPolicy, type ReconnectOption } from "../internal/backoff.js";
import type { TokenSource } from "../internal/http.js";
import { debugLogger, type AcpLogger } from "../internal/logger.js";
import type { WebSocketConstructor } from "../internal/web-socket.js";
import { PROTOCOL_VERSION, type Implementation } from "./acp-types.js";
import type { AcpClientHandlers } from "./agent-requests.js";
import { ACP_DEFAULTS } from "./defaults.js";
import { profileOf, type ProtocolProfile } from "./protocol-versions.js";
import type { AcpConnectionClosedError, AcpHttpError, CloseReason } from "./errors.js";
import type { CursorAdvance } from "./event-stream.js";
import { defaultCookieStore, type AcpCookieStore } from "./http-transport.js";
import type { PendingOptions } from "./call-correlation.js";
import type { ResponseEcho } from "./response-order.js";

/** The options of `new AcpHttpClient(options)`: only `baseUrl` is required; each default is on its option. */
export interface AcpHttpClientOptions {
  /** Server origin (and any path prefix), e.g. `http://127.0.0.1:2468`. */
  baseUrl: string;
  /** Endpoint path for POST, GET and DELETE. Default `/acp` (the ACP transport RFD's). */
  path?: string;
  /** Header that carries the connection id. Default `Acp-Connection-Id` (the RFD's). */
  connectionIdHeader?: string;
  /** Resume an existing connection (e.g. after a page reload) instead of waiting to learn one. */
  connectionId?: string;
  /**
   * The ACP version this client asks for in `initialize` and speaks: 1 (default), or 2, the ACP v2
   * draft (experimental, opt-in: prompts end when the agent reports idle, `session/resume` replays with
   * `replayFrom`, upserts by id; docs/protocol-client.md). The agent's answer decides: asked for 2, an
   * agent that answers 1 is spoken to in v1. With `connectionId`: the version that connection's
   * `initialize` negotiated, also sent in `protocolVersionHeader` from the first request.
   */
  protocolVersion?: number | string;
  /** Query sent with the POSTs until one succeeds (servers that create the connection lazily). */
  bootstrapQuery?: Record<string, string>;
  /** Sent with every request; read once, when the client is made (a token that changes is `token`'s job). */
  headers?: Record<string, string>;
  token?: TokenSource;
  /**
   * The `fetch` every request goes through (default: the global one, looked up per call). It is
   * called as `fetch(url, init)`; `init.headers` is a `Headers` or a plain record (a fresh one per
   * call), so a wrapper reads it with `new Headers(init.headers)`.
   */
  fetch?: typeof globalThis.fetch;
  /**
   * How a dropped event stream (and, with `recover`, a lost connection) comes back: the one bound on
   * how long the client keeps trying before it closes (`retries-exhausted`). Default 6 attempts over
   * about 25.5 s (at most 30.6 s with jitter); `false`: the first drop of the stream closes (a recovery
   * still makes its one attempt). Each attempt is on `reconnecting$`.
   */
  reconnect?: ReconnectOption;
  /** Resume the connection stream from this event id. */
  lastEventId?: string;
  /**
   * Number requests from a random base in [2^20, 2^50) instead of 1: an earlier client used this
   * connection (its answers, ids counted from 1, can still arrive) and must not be taken for ours.
   * Default true when `connectionId` or `lastEventId` is given.
   */
  randomRequestIds?: boolean;
  /** Answers to the agent's own requests (permission, files, terminals). */
  handlers?: AcpClientHandlers;
  /** Sent as `clientInfo` by `initialize`. Default: this library's name and version (`CLIENT_INFO`). */
  clientInfo?: Implementation;
  /** Whether responses also arrive on the stream (see `ResponseEcho`). Default `"auto"`. */
  responseEcho?: ResponseEcho;
  /**
   * Per-session event streams, as the ACP streamable HTTP RFD profile has them: a GET
   * with this header per session, opened when a session is created or loaded here.
   */
  sessionStreams?: { header: string };
  /** Upper bound for the DELETE sent by `disconnect()`. Default 2000 ms. */
  closeTimeoutMs?: number;
  logger?: AcpLogger;
  /**
   * Whether the server numbers each stream's events 1, 2, 3, ... without holes, so a
   * skipped number is a lost event (reported on `gaps$` and re-fetched). Default true (the
   * sandbox-agent servers do); false treats ids as opaque cursors and infers no gaps.
   */
  contiguousEventIds?: boolean;
  /**
   * Called each time a stream's cursor moves, before the frame is dispatched: persist
   * `lastEventId` to resume that stream later (the connection stream's, or a session's).
   */
  onCursor?: (advance: CursorAdvance) => void;
  /**
   * `http` (default): POST out, GET event streams in. `websocket`: one socket to the same
   * path (`ws:`/`wss:`), one JSON text frame per message; the first message is `initialize`.
   */
  transport?: "http" | "websocket";
  /** The WebSocket constructor (Node 20 has none built in: pass the `ws` package's). Default the global one. */
  WebSocket?: WebSocketConstructor;
  /**
   * Affinity cookies, returned on every POST, GET, DELETE and WebSocket upgrade and kept across
   * reconnects and recoveries. Default: an in-memory store outside browsers, cleared on close (a
   * store passed here is the caller's and is not cleared); in browsers the page's own cookie jar
   * (see `credentials`). `false`: no cookies.
   */
  cookies?: AcpCookieStore | false;
  /**
   * `fetch`'s credentials mode. Default: fetch's own (`same-origin`), so a browser returns the page's
   * cookies to a same-origin server. A cross-origin server's affinity cookies need `"include"`, which
   * the server's CORS must allow (`Access-Control-Allow-Credentials: true`); the default stays off
   * because a preflight to a server without it fails every request.
   */
  credentials?: RequestCredentials;
  /**
   * The largest inbound message (an SSE event, a POST answer body, a WebSocket frame), in UTF-8
   * bytes. A larger one is dropped and reported on `parseErrors$` (the request it answered
   * fails with `AcpMessageTooLargeError`); the connection lives on. Default 32 MiB.
   */
  maxMessageBytes?: number;
  /**
   * Send `$/cancel_request { requestId }` when a request is aborted (its signal, or unsubscribing
   * `request$`), so the agent can stop working on it. `session/cancel` stays the turn-level cancel.
   * Default false; `RFD_PROFILE` turns it on.
   */
  cancelRequests?: boolean;
  /** Header for the negotiated protocol version, on every request after `initialize` (RFD: `Acp-Protocol-Version`). */
  protocolVersionHeader?: string;
  /**
   * When the server no longer knows the connection (HTTP 404, a WebSocket that dropped), start a
   * new one: re-`initialize`, then `session/load` each session opened here if the agent advertises
   * `loadSession`; in-flight requests fail with `AcpInterruptedError`, each recovery is on
   * `recoveries$`. Default false, on both transports: a lost connection closes as `connection-lost`.
   */
  recover?: boolean;
  /**
   * Whether a 404 answer to a POST means the server no longer knows this connection (`connectionId`:
   * this connection's id), so that it closes or recovers. Default: every 404 once the connection
   * exists. A server that also answers 404 for a request about something else it does not know (an
   * unknown session, named in its problem body) can tell the two apart here: such a 404 fails only
   * its own request.
   */
  isConnectionGone?: (error: AcpHttpError, connectionId: string | undefined) => boolean;
}

/** The options that have a default: after `resolveClientOptions` they are all set. */
type Defaulted =
  | "path"
  | "connectionIdHeader"
  | "randomRequestIds"
  | "handlers"
  | "clientInfo"
  | "responseEcho"
  | "closeTimeoutMs"
  | "logger"
  | "contiguousEventIds"
  | "maxMessageBytes"
  | "cancelRequests"
  | "recover";

/** A client's options with every default applied (see `resolveClientOptions`). */
export type ResolvedClientOptions = Omit<AcpHttpClientOptions, Defaulted | "cookies" | "protocolVersion"> &
  Required<Pick<AcpHttpClientOptions, Defaulted>> & {
    /** The store in use; undefined: none (`cookies: false`), or a browser's own jar. */
    cookies: AcpCookieStore | undefined;
    /** The store was made here rather than passed by the caller, so closing clears it. */
    ownCookies: boolean;
    /** Sent from the first request: set only when resuming a stored `connectionId`. */
    protocolVersion: number | string | undefined;
    /** The version asked for in `initialize` (and spoken until it is answered). */
    profile: ProtocolProfile;
    reconnectPolicy: NormalizedReconnectPolicy;
  };

/**
 * Every default of the client, in this one place (each is documented on its option above). Bad
 * values (a negative delay) throw here, at construction, before anything is sent.
 */
export function resolveClientOptions(options: AcpHttpClientOptions): ResolvedClientOptions {
  const cookies = options.cookies === false ? undefined : (options.cookies ?? defaultCookieStore());
  return {
    ...options,
    path: options.path ?? ACP_DEFAULTS.path,
    connectionIdHeader: options.connectionIdHeader ?? ACP_DEFAULTS.connectionIdHeader,
    // A stored connection was initialized by an earlier client: its version goes out from the start.
    protocolVersion: options.connectionId === undefined ? undefined : (options.protocolVersion ?? PROTOCOL_VERSION),
    profile: storedOrAskedProfile(options),
    randomRequestIds: options.randomRequestIds ?? (options.connectionId ?? options.lastEventId) !== undefined,
    handlers: options.handlers ?? {},
    clientInfo: options.clientInfo ?? { ...CLIENT_INFO },
    responseEcho: options.responseEcho ?? "auto",
    closeTimeoutMs: options.closeTimeoutMs ?? ACP_DEFAULTS.closeTimeoutMs,
    logger: options.logger ?? debugLogger("acp-http"),
    contiguousEventIds: options.contiguousEventIds ?? true,
    cookies,
    ownCookies: !options.cookies && cookies !== undefined,
    maxMessageBytes: options.maxMessageBytes ?? ACP_DEFAULTS.maxMessageBytes,
    cancelRequests: options.cancelRequests ?? false,
    recover: options.recover ?? ACP_DEFAULTS.recover,
    reconnectPolicy: normalizeReconnectPolicy(options.reconnect, ACP_DEFAULTS.reconnect),
  };
}

/**
 * The version a client speaks until `initialize` answers: the one asked for or, with `connectionId`,
 * the stored connection's, whose value may be one a server sends as an opaque header (`"2026-01"`).
 * A value without a profile is spoken as 1, as the option was read before the v2 draft.
 */
function storedOrAskedProfile(options: AcpHttpClientOptions): ProtocolProfile {
  return profileOf(options.protocolVersion ?? ACP_DEFAULTS.protocolVersion);
}

/** Settings for the ACP streamable HTTP RFD profile (`/acp`, `Acp-Connection-Id`, session streams). */
export const RFD_PROFILE = {
  path: "/acp",
  connectionIdHeader: "Acp-Connection-Id",
  sessionStreams: { header: "Acp-Session-Id" },
  // The RFD makes event ids opaque; qwen's replay numbers are not contiguous.
  contiguousEventIds: false,
  protocolVersionHeader: "Acp-Protocol-Version",
  cancelRequests: true,
} as const satisfies Partial<AcpHttpClientOptions>;

/** Per-call options: `signal` aborts the call, `timeoutMs` bounds it. */
export type RequestOptions = PendingOptions;

/** How a connection ended; `error` is absent for a clean `disconnect()`. */
export interface CloseInfo {
  reason: CloseReason;
  error?: AcpConnectionClosedError;
}

/**
 * This library's name and version, sent as `clientInfo` when the caller gives none.
 * One constant for both layers; keep `version` in step with package.json on release.
 */
export const CLIENT_INFO = { name: "sandbox-agent-rx", version: "0.1.0" } as const;
