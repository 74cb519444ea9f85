/**
 * sandbox-agent's transport values for a protocol client that talks to it (the v2 contract server,
 * the released 0.4.2 server, the fakes that answer as they do). The protocol layer defaults to the
 * ACP transport RFD's (`/acp`, `Acp-Connection-Id`), so these are passed explicitly, as the sandbox
 * layer's profiles pass them.
 */
export const SANDBOX_AGENT_HEADER = { connectionIdHeader: "x-acp-connection-id" } as const;

/** The v2 contract's endpoint and connection id header. */
export const SANDBOX_AGENT_V2 = { path: "/v2/rpc", ...SANDBOX_AGENT_HEADER } as const;
