/**
 * The two server contracts as data. `v2` is the `/v2/rpc` contract (connection id
 * header, agent chosen in `_meta`, runtime-handled extensions); `v1` is what the
 * released 0.4.x server speaks (`/v1/acp/{serverId}?agent=`, one agent process per
 * server id, responses echoed on the event stream, extensions only if the agent has them).
 */
import type { AcpHttpError } from "../../acp-http/index.js";
import type { ControlPlaneHttp } from "./control-plane.js";
import { SandboxAgentHttpError } from "../errors.js";
import { extensionRoutes, httpRoutes, type ControlRoutes, type ExtensionChannel } from "./control-routes.js";

export type ServerApi = "v1" | "v2";
export type { ControlRoutes, ExtensionChannel } from "./control-routes.js";

export interface ServerProfile {
  api: ServerApi;
  /** Prefix of the control-plane routes (health, agents, fs). */
  controlPrefix: string;
  /** Transport settings of the session connection. */
  transport(agent: string, serverId: string): {
    path: string;
    connectionIdHeader: string;
    bootstrapQuery: Record<string, string> | undefined;
    responseEcho: boolean;
    /** The bound of the DELETE on `disconnect()`; absent: the protocol client's default. */
    closeTimeoutMs?: number;
  };
  /** Whether `initialize` and `session/new` must name the agent in their metadata. */
  agentInMeta: boolean;
  /** Whether the connection id arrives in a response header that the client must be able to read. */
  needsConnectionHeader: boolean;
  /** This contract's control-plane routes: plain HTTP, or extensions over the session connection. */
  controlRoutes(http: ControlPlaneHttp, channel: ExtensionChannel): ControlRoutes;
  /** Whether a 404 to a request means the server forgot the connection (absent: every 404 does). */
  isConnectionGone?(error: AcpHttpError, connectionId: string | undefined): boolean;
}

/**
 * The v2 runtime answers 404 `client_not_found` both for a connection it does not know and for a
 * session a request names that it does not know (`_sandboxagent/session/set_metadata`, `.../get`,
 * fs calls with a `sessionId`); the problem's `sessionId` member tells which: the connection's own
 * id, or the session's. Only the first ends the connection; the second fails its request.
 */
function v2ConnectionGone(error: AcpHttpError, connectionId: string | undefined): boolean {
  const named = error.problem?.sessionId;
  return typeof named !== "string" || connectionId === undefined || named === connectionId;
}

export const V2_PROFILE: ServerProfile = {
  api: "v2",
  controlPrefix: "/v2",
  transport: () => ({
    path: "/v2/rpc",
    connectionIdHeader: "x-acp-connection-id",
    bootstrapQuery: undefined,
    responseEcho: false,
  }),
  agentInMeta: true,
  needsConnectionHeader: true,
  controlRoutes: extensionRoutes,
  isConnectionGone: v2ConnectionGone,
};

export const V1_PROFILE: ServerProfile = {
  api: "v1",
  controlPrefix: "/v1",
  transport: (agent, serverId) => ({
    path: `/v1/acp/${encodeURIComponent(serverId)}`,
    connectionIdHeader: "x-acp-connection-id",
    bootstrapQuery: { agent },
    // Every response is also on the stream; its position there orders it after the turn's updates.
    responseEcho: true,
    // The server holds DELETE until the agent exits, and the agent exits only once the
    // DELETE is abandoned (that closes its stdin): a short bound is the close itself.
    closeTimeoutMs: 750,
  }),
  agentInMeta: true,
  needsConnectionHeader: false,
  controlRoutes: (http) => httpRoutes(http, "/v1"),
};

export function profileFor(api: ServerApi): ServerProfile {
  return api === "v2" ? V2_PROFILE : V1_PROFILE;
}

/**
 * Tells the contracts apart with one request: the released server answers
 * `/v1/health`, a v2 server answers every `/v1/*` route with 410 "v1 removed".
 */
export function apiFromHealthProbe(status: number): ServerApi | undefined {
  if (status >= 200 && status < 300) return "v1";
  if (status === 410) return "v2";
  return undefined;
}

/**
 * How long the contract probe waits for the server's answer. It runs ahead of a user's call that
 * may have no deadline of its own (none is the default), so it needs one: a server that accepts
 * connections and never answers must not hang every call. A health route answers in milliseconds.
 */
export const PROBE_TIMEOUT_MS = 10_000;

/** The probe's route, for messages. */
export const PROBE_ROUTE = "GET /v1/health";

/** Asks the server which contract it speaks (one `GET /v1/health`, bounded by `PROBE_TIMEOUT_MS`). */
export async function detectServerApi(http: ControlPlaneHttp): Promise<ServerApi> {
  try {
    const response = await http.send("detect server version", "get", "/v1/health", { timeoutMs: PROBE_TIMEOUT_MS });
    // Only the status matters; the body is let go so the connection can be reused.
    await response.body?.cancel().catch(() => undefined);
    return "v1";
  } catch (error) {
    const api = error instanceof SandboxAgentHttpError ? apiFromHealthProbe(error.status) : undefined;
    if (api) return api;
    throw error;
  }
}
