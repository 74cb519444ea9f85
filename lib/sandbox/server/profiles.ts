/**
 * The two server contracts as data. `v2` is the `/v2/rpc` contract (connection id
 * header, agent chosen in `_meta`, runtime-handled extensions); `v1` is what the
 * released 0.4.x server speaks (`/v1/acp/{serverId}?agent=`, one agent process per
 * server id, responses echoed on the event stream, extensions only if the agent has them).
 */
import type { AcpHttpError } from "../../acp-http/index.js";
import type { ControlPlaneHttp } from "./control-plane.js";
import { CallTimeoutError, SandboxAgentHttpError } from "../errors.js";
import { startDeadline } from "../../internal/abort.js";
import {
  extensionRoutes,
  httpRoutes,
  type ControlRoutes,
  type ExtensionChannel,
  type ServerLimits,
} from "./control-routes.js";

export type ServerApi = "v1" | "v2";
export type { ControlRoutes, ExtensionChannel, ServerLimits } from "./control-routes.js";

/**
 * The released 0.4.x server's limits: its HTTP router's default body limit (2,097,152 bytes pass,
 * 2,097,153 get 413 "length limit exceeded", or the socket closed mid-upload) and the process
 * runtime's default input limit (a larger input gets 413 "input payload exceeds
 * maxInputBytesPerRequest (65536)").
 */
export const V1_LIMITS: ServerLimits = {
  maxRequestBodyBytes: 2 * 1024 * 1024,
  maxInputBytesPerRequest: 64 * 1024,
};

export interface ServerProfile {
  api: ServerApi;
  /** What one request may carry. */
  limits: ServerLimits;
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
  /**
   * Run after the close of a connection whose creating POST was cut off before its answer, when
   * the server may still be creating what that POST asked for (absent: the close's DELETE is all).
   */
  settleCutOffCreation?(http: ControlPlaneHttp, path: string): Promise<void>;
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
  // The v2 runtime is built on the same router and process runtime, with the same defaults.
  limits: V1_LIMITS,
  controlPrefix: "/v2",
  transport: () => ({
    path: "/v2/rpc",
    connectionIdHeader: "x-acp-connection-id",
    bootstrapQuery: undefined,
    responseEcho: false,
  }),
  agentInMeta: true,
  needsConnectionHeader: true,
  controlRoutes: (http, channel) => extensionRoutes(http, channel, V1_LIMITS),
  isConnectionGone: v2ConnectionGone,
};

/**
 * The bound of a v1 DELETE. The server holds DELETE until the agent exits, and the agent exits only
 * once the DELETE is abandoned (that closes its stdin): a short bound is the close itself.
 */
const V1_CLOSE_TIMEOUT_MS = 750;

/** How long the v1 settle goes on waiting for a creation in progress: it may include installing the agent. */
const SETTLE_TIMEOUT_MS = 60_000;
/**
 * One probe of the v1 settle: a creation without an install (spawn the agent, register the id) is
 * over well within it. A longer creation is waited for by probing again after a pause.
 */
const SETTLE_ATTEMPT_MS = 2_000;
/** The pause between probes, on a timer that does not keep a Node process alive. */
const SETTLE_PAUSE_MS = 250;

/** A pause that never holds a process open (Node's `unref`; a browser page has no exit to hold). */
const detachedPause = (ms: number): Promise<void> =>
  new Promise((resolve) => void startDeadline(ms, resolve, { unref: true }));

/**
 * The 0.4.x server goes on creating the agent instance an aborted POST asked for (it spawns the
 * agent and registers the server id), so the close's DELETE may come first, find nothing (it
 * answers 204 either way) and leave the instance behind. A fact tells when the creation is over: a
 * POST without `?agent=` waits for a creation of the same id in progress (the server creates one
 * instance per id at a time, under a lock) and is then refused with 400 when no instance exists, or
 * passed to the instance when one does. Its body is an extension notification, which an agent
 * ignores. An instance found is DELETEd, bounded as the close's DELETE is (the server holds the
 * DELETE until the agent exits, and abandoning it closes the agent's stdin). Failures are the
 * server saying there is nothing to settle, or being gone: nothing to report.
 *
 * The settle runs after the caller's `disconnect()` resolved, often in a script that has nothing else
 * to do: a probe held for a whole long creation would keep that process alive for as long. So each
 * probe is short (`SETTLE_ATTEMPT_MS`) and a creation still going on is probed again after a pause
 * that does not hold the process: a process that goes on living (a server, a page) settles as before,
 * within `SETTLE_TIMEOUT_MS`; a script ends within one probe of its disconnect, leaving a creation
 * that outlasts it (an install) to the server.
 */
async function v1SettleCutOffCreation(http: ControlPlaneHttp, path: string): Promise<void> {
  const probe = { jsonrpc: "2.0", method: "_sandbox-agent-rx/settle", params: {} };
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const timeoutMs = Math.min(SETTLE_ATTEMPT_MS, deadline - Date.now());
    try {
      const found = await http.send("disconnect", "post", path, { json: probe, timeoutMs });
      await found.body?.cancel().catch(() => undefined);
      break;
    } catch (error) {
      // 400: no instance was created; or the server is unreachable. A probe out of time: still creating.
      if (!(error instanceof CallTimeoutError) || deadline - Date.now() <= SETTLE_PAUSE_MS) return;
    }
    await detachedPause(SETTLE_PAUSE_MS);
  }
  await http
    .send("disconnect", "delete", path, { timeoutMs: V1_CLOSE_TIMEOUT_MS })
    .then((response) => response.body?.cancel())
    .catch(() => undefined);
}

export const V1_PROFILE: ServerProfile = {
  api: "v1",
  limits: V1_LIMITS,
  controlPrefix: "/v1",
  transport: (agent, serverId) => ({
    path: `/v1/acp/${encodeURIComponent(serverId)}`,
    connectionIdHeader: "x-acp-connection-id",
    bootstrapQuery: { agent },
    // Every response is also on the stream; its position there orders it after the turn's updates.
    responseEcho: true,
    closeTimeoutMs: V1_CLOSE_TIMEOUT_MS,
  }),
  agentInMeta: true,
  needsConnectionHeader: false,
  controlRoutes: (http) => httpRoutes(http, "/v1", V1_LIMITS),
  settleCutOffCreation: v1SettleCutOffCreation,
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
