import { PROTOCOL_VERSION } from "./acp-types.js";
import type { AcpHttpClientOptions } from "./client-options.js";
import { defaultCookieStore, type AcpCookieStore } from "./cookie-store.js";
import type { AcpNetworkError } from "./errors/network-error.js";
import { HttpTransport, joinUrl } from "./http.js";
import type { AcpLogger } from "./logger.js";
import { WebSocketTransport } from "./ws-transport.js";
import { normalizeWatchdogPolicy } from "./ws-watchdog.js";

export interface Transports {
  http: HttpTransport;
  /** Set for `transport: "websocket"`: every envelope goes out (and comes in) on it. */
  socket: WebSocketTransport | undefined;
  /** The cookie store the client made itself (cleared on close); undefined for a caller's or none. */
  ownCookies: AcpCookieStore | undefined;
}

export interface SocketCallbacks {
  onMessage(data: string): void;
  onOversize(bytes: number, head: string): void;
  onLost(cause: AcpNetworkError): void;
  /** Requests are waiting for answers (the watchdog counts silence only then, where it cannot ping). */
  busy?(): boolean;
}

/**
 * The HTTP transport (always: DELETE and the RFD GETs use it) and, for `transport: "websocket"`,
 * the socket, sharing one cookie store. Without a store (a browser) the page's cookie jar serves,
 * with fetch's credentials mode as the caller set it.
 */
export function createTransports(
  options: AcpHttpClientOptions,
  limits: { maxMessageBytes: number },
  logger: AcpLogger,
  socket: SocketCallbacks,
): Transports {
  const cookies = options.cookies === false ? undefined : (options.cookies ?? defaultCookieStore());
  const credentials = options.credentials;
  const path = options.path ?? "/v2/rpc";
  const connectionIdHeader = options.connectionIdHeader ?? "x-acp-connection-id";
  const http = new HttpTransport({
    baseUrl: options.baseUrl,
    path,
    connectionIdHeader,
    bootstrapQuery: options.bootstrapQuery,
    headers: options.headers,
    token: options.token,
    fetch: options.fetch,
    connectionId: options.connectionId,
    logger,
    cookies,
    credentials,
    protocolVersionHeader: options.protocolVersionHeader,
    // A stored connection was initialized by an earlier client: its version goes out from the start.
    protocolVersion: options.connectionId === undefined ? undefined : (options.protocolVersion ?? PROTOCOL_VERSION),
    maxMessageBytes: limits.maxMessageBytes,
  });
  const webSocket =
    options.transport === "websocket"
      ? new WebSocketTransport({
          url: joinUrl(options.baseUrl, path).replace(/^http/i, "ws"),
          WebSocket: options.WebSocket,
          connectionIdHeader,
          headers: options.headers,
          token: options.token,
          cookies,
          maxMessageBytes: limits.maxMessageBytes,
          watchdog: normalizeWatchdogPolicy((options.reconnect || undefined)?.webSocket),
          logger,
          ...socket,
        })
      : undefined;
  return { http, socket: webSocket, ownCookies: options.cookies ? undefined : cookies };
}
