// Every default of the protocol layer's options, and the bounds more than one part reads, in one
// module that imports nothing, so that any part can read it without an import cycle (response-order.ts
// reads a default and client-options.ts imports its types, so the values cannot live in
// client-options.ts). `resolveClientOptions` (client-options.ts) applies the options' defaults once
// per client. What is not an option and belongs to one mechanism stays beside it (the hold windows in
// response-order.ts, the stream-loss verdict bound in session-streams.ts, the remembered-id bounds of
// dedupe).

/**
 * The defaults of the protocol client (`AcpHttpClient`), each documented on its option too. The
 * endpoint and the connection id header are the ACP transport RFD's; a server that differs (sandbox-agent:
 * `/v2/rpc`, `x-acp-connection-id`) is given its values by whoever knows it (the sandbox layer's profiles).
 */
export const ACP_DEFAULTS = {
  /** `path`: the RFD's endpoint. */
  path: "/acp",
  /** `connectionIdHeader`: the RFD's. */
  connectionIdHeader: "Acp-Connection-Id",
  /** `protocolVersion`: stable ACP, 1 (2, the v2 draft, is experimental and opt-in). */
  protocolVersion: 1,
  /**
   * `recover`: off on both transports. Rebuilding a lost connection re-sends `initialize` and
   * `session/load`s every session, which a caller must choose: without it a lost connection (a 404
   * after the bootstrap, a dropped socket) closes as `connection-lost`, whichever the transport.
   */
  recover: false,
  /** `closeTimeoutMs`: the upper bound of the DELETE `disconnect()` sends. */
  closeTimeoutMs: 2000,
  /** `maxMessageBytes`: one message (an SSE event, a POST body, a WebSocket frame), 32 MiB. */
  maxMessageBytes: 32 * 1024 * 1024,
  /**
   * `reconnect`: 6 attempts after 0.5, 1, 2, 4, 8 and 10 s (±20 %), so a server that is gone is
   * given up about 25.5 s (at most 30.6 s) after its stream dropped (`normalizeReconnectPolicy`).
   */
  reconnect: { initialDelayMs: 500, maxDelayMs: 10_000, factor: 2, jitter: 0.2, maxRetries: 6 },
  /** `reconnect.webSocket.heartbeatMs`: how often the WebSocket watchdog looks (and pings). */
  webSocketHeartbeatMs: 15_000,
  /** How long a WebSocket may take to open before the send that opened it fails. */
  webSocketOpenTimeoutMs: 15_000,
  /**
   * On a server that echoes responses on the stream (`responseEcho: "auto"`), how long a POST's
   * answer is held for its stream copy before it is delivered anyway.
   */
  echoGraceMs: 1500,
  /** How long a POST may stay open after its response arrived on the stream. */
  postReleaseMs: 1000,
  /** The bound of each request a recovery sends itself (`initialize`, `session/load`). */
  recoveryRequestTimeoutMs: 15_000,
  /**
   * How long a notification (`session/cancel`, ...) sent during a rebuild waits for the new connection
   * before it fails with `AcpInterruptedError` (a request waits within its own deadline instead).
   */
  recoveryWaitMs: 30_000,
} as const;
