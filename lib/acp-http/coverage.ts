// What of the stable protocol this layer covers, as data: each method by the client method that
// sends it, and each part it deliberately leaves out with the reason. spec/acp-http/unit/
// schema-coverage.spec.ts reads the stable schema the official SDK ships and fails for anything in it
// that is neither here, nor answered by a handler (AGENT_REQUEST_METHODS), nor a typed update kind
// (SESSION_UPDATE_SCHEMAS), nor a capability the client reads or sends; so a new protocol version
// shows its gap by itself. docs/acp-sdk-interop.md has the same table for readers.

/**
 * The client-to-agent methods of the stable protocol, each with the `AcpHttpClient` method that
 * sends it (the coverage check asserts the method exists).
 * @internal
 */
export const CLIENT_METHODS: Readonly<Record<string, string>> = {
  initialize: "initialize",
  authenticate: "authenticate",
  logout: "logout",
  "session/new": "newSession",
  "session/load": "loadSession",
  "session/list": "listSessions",
  "session/delete": "deleteSession",
  "session/resume": "resumeSession",
  "session/close": "closeSession",
  "session/set_mode": "setSessionMode",
  "session/set_config_option": "setSessionConfigOption",
  "session/prompt": "prompt",
  "session/cancel": "cancel",
  // Sent for a request its caller aborted or timed out (option `cancelRequests`); received, it
  // withdraws the agent's request (agent-requests.ts).
  "$/cancel_request": "request",
};

/**
 * The agent-to-client notifications of the stable protocol, with where a reader finds them typed.
 * @internal
 */
export const AGENT_NOTIFICATIONS: Readonly<Record<string, string>> = {
  "session/update": "readSessionUpdate",
  "elicitation/complete": "CompleteElicitationParams",
};

/**
 * What of the stable protocol this layer deliberately does not do, by the name the coverage check
 * uses (a method, an update kind, or a capability path such as `clientCapabilities.auth`), and why.
 * @internal
 */
export const NOT_SUPPORTED: Readonly<Record<string, string>> = {
  "clientCapabilities.session":
    "says the client shows compaction, notices and boolean options; only the layer's user knows that " +
    "(the updates are typed here), so it is sent when the caller passes it to initialize({ clientCapabilities }); " +
    "a client built on this layer decides it (the sandbox layer sends all three by default)",
  "clientCapabilities.auth":
    "terminal authentication runs the agent's login command in a terminal the client owns; this client " +
    "owns none (terminal/* requests go to the user's handlers); a caller may still pass it to initialize",
};

/**
 * What of the ACP v2 draft (experimental; `schema/v2/schema.json` of the SDK) this layer deliberately
 * does not do, and why; read by spec/acp-http/unit/schema-coverage-v2.spec.ts. The draft's methods are
 * in PROTOCOL_PROFILES[2] (protocol-versions.ts), its update kinds in V2_SESSION_UPDATE_SCHEMAS.
 * @internal
 */
export const V2_NOT_SUPPORTED: Readonly<Record<string, string>> = {
  "clientCapabilities.auth": NOT_SUPPORTED["clientCapabilities.auth"] as string,
};
