import {
  resolveWebSocket,
  type ResolvedWebSocket,
  type WebSocketConstructor,
  type WebSocketLike,
} from "../../../internal/web-socket.js";
import type { CallOptions } from "../../call-options.js";
import type { HttpSettings } from "../control-plane.js";
import { toSandboxError } from "../../error-mapping.js";
import { callToken } from "../call-token.js";
import { CallTimeoutError, SandboxAgentHttpError, terminalError } from "../../errors.js";
import { toProcessError } from "./process-errors.js";
import type { ProcessInfo } from "./schemas.js";
import type { TerminalConnector } from "./terminal.js";

export interface TerminalConnectorDeps {
  processId: string;
  settings: HttpSettings;
  WebSocket: WebSocketConstructor | undefined;
  url(accessToken: string | undefined): string;
  get(call: CallOptions): Promise<ProcessInfo>;
}

/**
 * The bound of the lookup that explains a refused socket: it runs on the client's own initiative,
 * so a server that never answers it must not keep a request open (the `ready` timeout settles the
 * terminal, not the request).
 */
export const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Opens the terminal socket with the client's credentials and explains a failed one.
 * A WebSocket that fails its handshake reports no status in browsers (and only in its
 * message with `ws`), so the process is looked up over HTTP instead: that answer is the
 * typed error (404, 401), or the process turns out not to be a tty (the server's 409).
 */
export function terminalConnector(deps: TerminalConnectorDeps): TerminalConnector {
  let token: string | undefined;
  const redact = (text: string) => (token ? text.split(token).join("***") : text);
  return {
    open: async (protocols) => {
      let resolved: ResolvedWebSocket;
      try {
        resolved = resolveWebSocket(deps.WebSocket);
      } catch (error) {
        throw toSandboxError(error, "terminal"); // no WebSocket: kind `websocket-unavailable`, the same advice
      }
      const { WebSocket, supportsHeaders } = resolved;
      // A failing token function is kind `token-failed`, as on every other route. (Its wait is bounded
      // by the terminal's own `ready` bound and signal, which settle the terminal without the socket.)
      token = await callToken(deps.settings.token, "processes.terminal", undefined);
      const url = deps.url(supportsHeaders || !token ? undefined : token);
      try {
        if (!supportsHeaders) return new WebSocket(url, protocols);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(deps.settings.headers ?? {})) {
          // One authorization header, whatever the case of the caller's.
          if (!(token && name.toLowerCase() === "authorization")) headers[name] = value;
        }
        if (token) headers.authorization = `Bearer ${token}`;
        return new WebSocket(url, protocols, { headers }) as WebSocketLike;
      } catch (error) {
        // A constructor's message may quote the URL, and with it an access token.
        const message = `could not open the socket: ${redact(String((error as Error).message))}`;
        throw terminalError(deps.processId, message, { fromServer: false });
      }
    },
    diagnose: async (reason) => {
      let info: ProcessInfo;
      try {
        info = await deps.get({ timeoutMs: LOOKUP_TIMEOUT_MS });
      } catch (error) {
        if (!(error instanceof CallTimeoutError)) return error as Error;
        const lookup = `the server did not answer the lookup of the process within ${LOOKUP_TIMEOUT_MS} ms`;
        return terminalError(deps.processId, `could not connect: ${redact(reason)}; ${lookup}`, {
          fromServer: false,
          cause: error,
        });
      }
      if (!info.tty) {
        const problem = { status: 409, detail: "conflict: process is not running in tty mode" };
        const answer = new SandboxAgentHttpError("processes.terminal", 409, problem, undefined);
        return toProcessError(answer, { processId: deps.processId }) as Error;
      }
      return terminalError(deps.processId, `could not connect: ${redact(reason)}`, { fromServer: false });
    },
  };
}
