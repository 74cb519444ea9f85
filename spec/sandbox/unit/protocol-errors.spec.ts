import { AcpProtocolError, AcpRpcError } from "../../../lib/acp-http/index.js";
import { AgentError, ProtocolError } from "../../../lib/sandbox/index.js";
import { toSandboxError } from "../../../lib/sandbox/error-mapping.js";

describe("toSandboxError builds messages from fields, never by rewriting them", () => {
  it("keeps a protocol error's detail whole, colons included, under the sandbox method's name", () => {
    const converted = toSandboxError(new AcpProtocolError("unexpected result: field sessionId missing"), "newSession");
    expect(converted).toBeInstanceOf(ProtocolError);
    expect((converted as ProtocolError).message).toBe("newSession: unexpected result: field sessionId missing");
  });

  it("names the sandbox method instead of the wire method for a prefixed protocol error", () => {
    const error = new AcpProtocolError("the result was not an object", { method: "session/new" });
    const converted = toSandboxError(error, "newSession") as ProtocolError;
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
});
