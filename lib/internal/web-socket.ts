// The WebSocket shape both layers use (ACP over WebSocket, process terminals) and how an
// implementation is found.
import { AcpError } from "./errors.js";

/**
 * Finding a WebSocket implementation without depending on one: the caller's constructor
 * when given, else the runtime's standard `WebSocket` (browsers, Deno, Bun, Node >= 22),
 * else a typed error that says how to supply one (Node 20 has none built in).
 */

/**
 * A socket event listener. Its event is `any` on purpose: the event types of `ws` and of the DOM
 * differ, and a `ws` socket and a browser one must both fit {@link WebSocketLike} without a cast.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SocketListener = (event: any) => void;

/** The part of the WHATWG `WebSocket` interface this library uses; `ws` 8 and browsers both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  binaryType: string;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: SocketListener): void;
  removeEventListener(type: string, listener: SocketListener): void;
}

/**
 * A WebSocket constructor: the standard one (`url, protocols`) or one that also takes an
 * options object with `headers` as its third argument, as the `ws` package does.
 */
export interface WebSocketConstructor {
  // An interface, not a function type: `ws` declares overloads, and an overloaded constructor is
  // checked against a call signature here, so `import WebSocket from "ws"` assigns without a cast.
  new (url: string, protocols?: string | string[], options?: { headers?: Record<string, string> }): WebSocketLike;
}

/** No WebSocket implementation was given and the runtime has none. */
export class WebSocketUnavailableError extends AcpError {
  override name = "WebSocketUnavailableError";
  declare readonly kind: "websocket-unavailable";

  constructor() {
    super(
      "no WebSocket implementation: this runtime has no global WebSocket (Node < 22). " +
        'Install the "ws" package and pass it, e.g. `import WebSocket from "ws"` then `{ WebSocket }` in the options.',
      { kind: "websocket-unavailable" },
    );
  }
}

/** A constructor to use and whether it can send request headers on the handshake. */
export interface ResolvedWebSocket {
  WebSocket: WebSocketConstructor;
  /**
   * True for constructors known to take `{ headers }` (the `ws` package). A standard
   * WebSocket cannot set headers, so credentials must travel another way (e.g. the URL).
   */
  supportsHeaders: boolean;
}

/** The injected constructor, else `globalThis.WebSocket`, else throws {@link WebSocketUnavailableError}. */
export function resolveWebSocket(injected?: WebSocketConstructor): ResolvedWebSocket {
  const WebSocket = injected ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (typeof WebSocket !== "function") throw new WebSocketUnavailableError();
  return { WebSocket, supportsHeaders: takesHeaders(WebSocket) };
}

/**
 * `ws` is recognised by its `terminate()` method, which the standard interface lacks;
 * the standard constructors (browsers, undici) would silently ignore a third argument.
 */
function takesHeaders(WebSocket: WebSocketConstructor): boolean {
  const prototype = (WebSocket as { prototype?: { terminate?: unknown } }).prototype;
  return typeof prototype?.terminate === "function";
}

/** Standard `readyState` values (the constructors' static members are not on every implementation). */
export const WEB_SOCKET_OPEN = 1;
export const WEB_SOCKET_CLOSING = 2;
export const WEB_SOCKET_CLOSED = 3;
