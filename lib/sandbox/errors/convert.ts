import {
  AcpAbortError,
  AcpConnectionClosedError,
  AcpHttpError,
  AcpInvalidHeaderError,
  AcpNetworkError,
  AcpProtocolError,
  AcpRpcError,
  AcpTimeoutError,
} from "../../acp-http/index.js";
import { AgentError } from "./agent-error.js";
import { CallAbortedError, CallTimeoutError, NetworkError, ProtocolError } from "./call-errors.js";
import { ConnectionLostError } from "./connection-lost-error.js";
import { SandboxAgentHttpError } from "./http-error.js";
import { SandboxAgentError } from "./sandbox-agent-error.js";

/**
 * Rewrites a protocol-layer error as the sandbox error a caller of this layer
 * expects, so no protocol naming leaks through; the original stays as `cause`.
 */
export function toSandboxError(error: unknown, method: string): unknown {
  if (error instanceof SandboxAgentError) return error;
  if (error instanceof AcpRpcError) {
    const converted = new AgentError(method, error.code, stripPrefix(error.message), error.data);
    return Object.assign(converted, { cause: error });
  }
  if (error instanceof AcpHttpError) return new SandboxAgentHttpError(method, error.status, error.problem, error.bodyText, { cause: error });
  if (error instanceof AcpConnectionClosedError) return new ConnectionLostError(error.reason, method, { cause: error });
  if (error instanceof AcpTimeoutError) return new CallTimeoutError(`${method} timed out after ${error.timeoutMs} ms`, { cause: error });
  if (error instanceof AcpAbortError) return new CallAbortedError(`${method} was aborted`, { cause: error.cause ?? error });
  if (error instanceof AcpNetworkError) return new NetworkError(`${method} failed: ${(error.cause as Error | undefined)?.message ?? "network error"}`, { cause: error });
  if (error instanceof AcpProtocolError) return new ProtocolError(error.message.replace(/^[^:]*: /, `${method}: `), { cause: error });
  if (error instanceof AcpInvalidHeaderError) return new SandboxAgentError(`${method}: header "${error.header}" has a CR or LF character; refusing to send it`, { cause: error });
  return error;
}

function stripPrefix(message: string): string {
  return message.replace(/^.*? failed: /, "").replace(/ \(JSON-RPC -?\d+\)$/, "");
}
