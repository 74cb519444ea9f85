import {
  AcpAbortError,
  AcpConnectionClosedError,
  AcpHttpError,
  AcpInterruptedError,
  AcpInvalidHeaderError,
  AcpMessageTooLargeError,
  AcpNetworkError,
  AcpProtocolError,
  AcpRpcError,
  AcpTimeoutError,
} from "../../../lib/acp-http/index.js";
import { AgentError, CallAbortedError, CallTimeoutError, NotFoundError, SandboxAgentHttpError } from "../../../lib/sandbox/index.js";
import { toSandboxError } from "../../../lib/sandbox/error-mapping.js";

describe("toSandboxError builds messages from fields, never by rewriting them", () => {
  it("keeps a protocol error's detail whole, colons included, under the sandbox method's name", () => {
    const converted = toSandboxError(new AcpProtocolError("unexpected result: field sessionId missing"), "newSession");
    expect(converted).toMatchObject({ name: "SandboxAgentError", kind: "protocol" });
    expect((converted as Error).message).toBe("newSession: unexpected result: field sessionId missing");
  });

  it("names the sandbox method instead of the wire method for a prefixed protocol error", () => {
    const error = new AcpProtocolError("the result was not an object", { method: "session/new" });
    const converted = toSandboxError(error, "newSession") as Error;
    expect(converted.message).toBe("newSession: the result was not an object");
  });

  it("gives an agent error the agent's own message, code and data", () => {
    const message = "tool failed: disk full (JSON-RPC 7)";
    const rpc = new AcpRpcError("session/prompt", { code: -32000, message, data: 1 });
    const converted = toSandboxError(rpc, "prompt") as AgentError;
    expect(converted).toBeInstanceOf(AgentError);
    expect(converted.message).toBe("prompt failed: tool failed: disk full (JSON-RPC 7) (code -32000)");
    expect(converted).toMatchObject({ code: -32000, data: 1, method: "prompt", cause: rpc });
  });

  it("adds the detail an agent's error data carries to a bare message (Codex's model failures)", () => {
    const data = { codex_error_info: "other", message: "unexpected status 401 Unauthorized: Incorrect API key" };
    const rpc = new AcpRpcError("session/prompt", { code: -32603, message: "Internal error", data });
    const converted = toSandboxError(rpc, "prompt") as AgentError;
    expect(converted.message).toBe(
      "prompt failed: Internal error: unexpected status 401 Unauthorized: Incorrect API key (code -32603)",
    );
    expect(converted.data).toBe(data);
    const repeated = new AcpRpcError("session/prompt", { code: -32603, message: "Internal error: boom", data: "boom" });
    expect((toSandboxError(repeated, "prompt") as Error).message).toBe("prompt failed: Internal error: boom (code -32603)");
  });
});

describe("toSandboxError maps each protocol kind to this layer's error", () => {
  const problem = (kind: string) => ({ type: `urn:sandbox-agent:error:${kind}`, detail: kind });
  const http = (status: number, kind: string) =>
    new AcpHttpError("POST /v1/acp", new Response(null, { status }), problem(kind), undefined);
  const cases: Array<[string, Error, Record<string, unknown>]> = [
    ["rpc", new AcpRpcError("session/prompt", { code: -32000, message: "no" }), { name: "AgentError", kind: "agent", code: -32000 }],
    ["http", http(409, "conflict"), { name: "SandboxAgentHttpError", kind: "conflict", status: 409 }],
    ["http 404", http(404, "session_not_found"), { name: "NotFoundError", kind: "not-found", code: "session_not_found", status: 404 }],
    ["closed", new AcpConnectionClosedError("retries-exhausted"), { name: "SandboxAgentError", kind: "connection-lost" }],
    ["timeout", new AcpTimeoutError("session/prompt", 50), { name: "TimeoutError", kind: "timeout" }],
    ["aborted", new AcpAbortError("session/prompt"), { name: "AbortError", kind: "aborted" }],
    ["network", new AcpNetworkError("POST /v1/acp", new TypeError("fetch failed")), { name: "SandboxAgentError", kind: "network" }],
    ["protocol", new AcpProtocolError("bad"), { name: "SandboxAgentError", kind: "protocol" }],
    ["invalid-header", new AcpInvalidHeaderError("x-trace"), { name: "SandboxAgentError", kind: "invalid-header" }],
  ];

  it.each(cases)("%s", (_kind, error, expected) => {
    const converted = toSandboxError(error, "prompt");
    expect(converted).toMatchObject(expected);
    expect((converted as Error).message).toMatch(/^prompt\b/);
    // The protocol error stays as the cause (a network failure's own cause, or an abort's reason, when it has one).
    expect((converted as Error).cause).toBe(error.cause ?? error);
  });

  it("keeps the classes callers branch on", () => {
    expect(toSandboxError(new AcpTimeoutError("session/prompt", 50), "prompt")).toBeInstanceOf(CallTimeoutError);
    expect(toSandboxError(new AcpAbortError("session/prompt"), "prompt")).toBeInstanceOf(CallAbortedError);
    expect(toSandboxError(http(404, "session_not_found"), "prompt")).toBeInstanceOf(NotFoundError);
    expect(toSandboxError(http(409, "conflict"), "prompt")).toBeInstanceOf(SandboxAgentHttpError);
  });

  it("passes interruptions and oversize messages through as they are", () => {
    for (const error of [
      new AcpInterruptedError("session/prompt"),
      new AcpInterruptedError("session/prompt", undefined, "stream-lost"),
      new AcpMessageTooLargeError("stream", 2048, 1024),
    ]) {
      expect(toSandboxError(error, "prompt")).toBe(error);
    }
  });
});
