// Every error class of the protocol layer says which failure it is by `kind`, so a caller can
// branch on a string, and stays an AcpError, so one instanceof still tells ours from theirs.
import * as acp from "../../../lib/acp-http/index.js";
import {
  AcpAbortError,
  AcpConnectionClosedError,
  AcpError,
  AcpHttpError,
  AcpInterruptedError,
  AcpInvalidHeaderError,
  AcpMessageTooLargeError,
  AcpNetworkError,
  AcpProtocolError,
  AcpProtocolVersionError,
  AcpRpcError,
  AcpTimeoutError,
  AcpUnsupportedError,
  WebSocketUnavailableError,
  type AcpErrorKind,
} from "../../../lib/acp-http/index.js";

const examples: Array<[AcpError, AcpErrorKind]> = [
  [new AcpAbortError("session/prompt"), "aborted"],
  [new AcpTimeoutError("session/prompt", 50), "timeout"],
  [new AcpConnectionClosedError("connection-lost", { method: "session/prompt" }), "closed"],
  [new AcpInterruptedError("session/prompt"), "connection-rebuilt"],
  [new AcpInterruptedError("session/prompt", undefined, "stream-lost"), "stream-lost"],
  [new AcpHttpError("POST /acp", new Response(null, { status: 503 }), undefined, undefined), "http"],
  [new AcpRpcError("session/prompt", { code: -32603, message: "boom" }), "rpc"],
  [new AcpProtocolError("result is not an object", { method: "initialize" }), "protocol"],
  [new AcpProtocolVersionError(2, 3), "protocol"],
  [new AcpNetworkError("POST /acp", new TypeError("fetch failed")), "network"],
  [new AcpMessageTooLargeError("stream", 2048, 1024), "message-too-large"],
  [new AcpInvalidHeaderError("x-trace"), "invalid-header"],
  [new WebSocketUnavailableError(), "websocket-unavailable"],
  [new AcpUnsupportedError("session/fork", "sessionCapabilities.fork"), "unsupported"],
];

describe("protocol error kinds", () => {
  it.each(examples.map(([error, kind]) => [error.name, kind, error] as const))(
    "%s has kind %s and is an AcpError",
    (_name, kind, error) => {
      expect(error).toBeInstanceOf(AcpError);
      expect(error).toBeInstanceOf(Error);
      expect(error.kind).toBe(kind);
    },
  );

  it("covers every error class the protocol entry point exports", () => {
    const exported = Object.values(acp).filter(
      (value): value is typeof AcpError => typeof value === "function" && value.prototype instanceof AcpError,
    );
    const covered = new Set(examples.map(([error]) => error.constructor));
    expect(exported.filter((cls) => !covered.has(cls)).map((cls) => cls.name)).toEqual([]);
  });

  it("has one class (an example above) for every member of the closed AcpErrorKind union", () => {
    // Keyed by the union: adding a kind fails to compile here until it is listed.
    const every: Record<AcpErrorKind, true> = {
      aborted: true,
      timeout: true,
      closed: true,
      "connection-rebuilt": true,
      "stream-lost": true,
      http: true,
      rpc: true,
      protocol: true,
      network: true,
      "message-too-large": true,
      "invalid-header": true,
      "websocket-unavailable": true,
      unsupported: true,
    };
    expect(new Set(examples.map(([, kind]) => kind))).toEqual(new Set(Object.keys(every)));
    for (const kind of Object.keys(every)) expect(kind).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });

  it("keeps the server's own codes as data, not as kinds", () => {
    const rpc = new AcpRpcError("session/prompt", { code: -32002, message: "no such session" });
    expect([rpc.kind, rpc.code]).toEqual(["rpc", -32002]);
    const problem = { type: "urn:example:gone", title: "gone", status: 410 };
    const http = new AcpHttpError("POST /acp", new Response(null, { status: 410 }), problem, undefined);
    expect([http.kind, http.status, http.problem]).toEqual(["http", 410, problem]);
  });

  it("keeps the interrupted kinds users branch on", () => {
    const kinds = examples.filter(([error]) => error instanceof AcpInterruptedError).map(([error]) => error.kind);
    expect(kinds).toEqual(["connection-rebuilt", "stream-lost"]);
  });
});
