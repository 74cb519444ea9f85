// Bringing sessions back in a new process (RFD profile): the stored connection and each session's
// cursor, else a new connection and session/load. It sits above the client and makes clients
// through its public constructor and methods; the steps it shares with the in-client recovery
// (the ledger, the retry loop) are recovery.ts's, which sits below the client, so this cannot
// live there without an import cycle.
//
// An entry point of its own (`sandbox-agent-rx/acp-http/reattach`), opt-in: nothing else in lib/
// imports it, so a program that never reattaches never loads it, and the protocol entry does not
// carry its names. It is inside lib/acp-http and may use the layer's own modules (the client,
// `resolveClientOptions` for the reconnect policy and logger, `SessionLedger`), which a user's
// code cannot: built on the public API alone it would need its own copy of the retry loop and of
// those defaults.

/**
 * Reattach a protocol client to a stored connection in a new process (RFD-profile servers such as
 * `qwen serve`): `reattach()` and the shapes it stores and returns.
 *
 * @module sandbox-agent-rx/acp-http/reattach
 */
import type { InitializeParams, McpServer } from "./acp-types.js";
import { AcpHttpClient } from "./client.js";
import { resolveClientOptions, type AcpHttpClientOptions, type RequestOptions } from "./client-options.js";
import { ACP_DEFAULTS } from "./defaults.js";
import { AcpConnectionClosedError } from "./errors.js";
import { SessionLedger, type AcpRecovery } from "./recovery.js";

/** A session as stored for a later reattach: its id, its stream's cursor, and what `session/load` needs. */
export interface StoredSession {
  sessionId: string;
  /** The session stream's last cursor from `onCursor` (absent: "0", all the server keeps). */
  lastEventId?: string | undefined;
  /** For the fallback `session/load`: the `cwd` and MCP servers the session was opened with. */
  cwd: string;
  mcpServers?: McpServer[];
}

/** A connection as stored for a later reattach (RFD profile: `Acp-Connection-Id`, per-session streams). */
export interface StoredConnection {
  connectionId: string;
  /** What the connection's `initialize` negotiated (its result's `protocolVersion`). Default `PROTOCOL_VERSION`. */
  protocolVersion?: number | string | undefined;
  sessions: readonly StoredSession[];
  /** Sent by the fallback's `initialize` when the stored connection is gone. Default the client's. */
  initialize?: Partial<InitializeParams>;
}

/** How `reattach` brought the sessions back. */
export interface AcpReattachment {
  /** The client to use from now on: the stored connection's, or a new one. */
  client: AcpHttpClient;
  /** True: the stored connection. False: it was gone, `client` is a new connection (`recovery` says how). */
  reattached: boolean;
  /** Sessions resumed from their cursors: the server replayed what they missed, nothing twice. */
  resumed: string[];
  /** Sessions brought back with `session/load`: the agent sends their history again, as it keeps it. */
  loaded: string[];
  /** Sessions that could not be brought back (the load failed, or the agent cannot load). */
  failed: AcpRecovery["failed"];
}

/**
 * After a reload or a restart, on an RFD-profile server: reattaches the stored connection and
 * resumes each session's stream from its own cursor (`attachSession`). A session the connection
 * no longer owns is `session/load`ed on it. When the server no longer knows the connection,
 * (`connection-lost`) the fallback is the recovery a lost connection gets (`recover`): a new
 * connection, its `initialize`, then `session/load` for each session. Rejects when that
 * `initialize` keeps failing (per `options.reconnect`), with its last error, or with the
 * `AcpConnectionClosedError` of any other close (e.g. `unauthorized`). `options.connectionId` is ignored.
 *
 * `watch` gets each client made here before it opens or sends anything: subscribe to its
 * `envelopes$` there, because the replay starts as soon as a stream opens.
 *
 * `call.timeoutMs` bounds each request sent here (each `attachSession`, `initialize`, `session/load`;
 * default `ACP_DEFAULTS.recoveryRequestTimeoutMs`, as a recovery's own requests), so a server that never
 * answers fails an attempt instead of holding `reattach()`; `call.signal` stops it all.
 */
export async function reattach(
  options: AcpHttpClientOptions,
  stored: StoredConnection,
  watch: (client: AcpHttpClient) => void = () => undefined,
  call: RequestOptions = {},
): Promise<AcpReattachment> {
  const bound = { signal: call.signal, timeoutMs: call.timeoutMs ?? ACP_DEFAULTS.recoveryRequestTimeoutMs };
  const version = stored.protocolVersion ?? options.protocolVersion;
  const client = new AcpHttpClient({
    ...options,
    connectionId: stored.connectionId,
    ...(version === undefined ? {} : { protocolVersion: version }),
  });
  watch(client);
  const outcomes = await Promise.allSettled(
    stored.sessions.map(({ sessionId, lastEventId }) => client.attachSession(sessionId, { ...bound, lastEventId })),
  );
  if (!client.closeInfo) {
    const resumed = stored.sessions.filter((_, i) => outcomes[i]?.status === "fulfilled");
    const refused = stored.sessions.filter((_, i) => outcomes[i]?.status === "rejected");
    const request = (method: string, params: unknown) => client.request(method, params, bound);
    const { loaded, failed } = await SessionLedger.of(stored.initialize ?? {}, refused).loadAll({ request });
    return { client, reattached: true, resumed: resumed.map((s) => s.sessionId), loaded, failed };
  }
  // Only a connection the server no longer knows is replaced; unauthorized stays unauthorized.
  const closed = client.closeInfo;
  if (closed.reason !== "connection-lost") throw closed.error ?? new AcpConnectionClosedError(closed.reason);
  const { connectionId: _stored, ...fresh } = options;
  const ledger = SessionLedger.of(stored.initialize ?? {}, stored.sessions);
  // The same defaults as every client's (the reconnect policy bounds the attempts, the logger reports them).
  const resolved = resolveClientOptions(fresh);
  let current: AcpHttpClient | undefined;
  const recovery = await ledger.recover({
    policy: resolved.reconnectPolicy,
    signal: call.signal ?? new AbortController().signal,
    logger: resolved.logger,
    // A client whose first `initialize` failed is closed for good: each attempt gets a new one.
    reset: () => {
      current = new AcpHttpClient(fresh);
      watch(current);
    },
    request: async (method, params) => {
      const next = current as AcpHttpClient;
      const result =
        method === "initialize"
          ? await next.initialize(params as Partial<InitializeParams>, bound)
          : await next.request(method, params, bound);
      // The new `initialize` result tells whether the agent can `session/load`.
      ledger.note(method, params, result);
      return result;
    },
    connectionId: () => current?.connectionId,
  });
  const { loaded, failed } = recovery;
  return { client: current as AcpHttpClient, reattached: false, resumed: [], loaded, failed };
}
