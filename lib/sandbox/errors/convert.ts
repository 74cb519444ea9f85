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
import { CallAbortedError, CallTimeoutError, ProtocolError } from "./call-errors.js";
import { ConnectionLostError } from "./connection-lost-error.js";
import { SandboxAgentHttpError } from "./http-error.js";
import { unreachable } from "./network-failure.js";
import { refineHttpError } from "./refine.js";
import { SandboxAgentError } from "./sandbox-agent-error.js";

/**
 * Rewrites a protocol-layer error as the sandbox error a caller of this layer expects,
 * named for the sandbox method (`method`), built from the error's fields (never by
 * editing its message), so no protocol naming leaks through; the original stays as `cause`.
 */
export function toSandboxError(error: unknown, method: string): unknown {
  if (error instanceof SandboxAgentError) return error;
  const cause = { cause: error };
  if (error instanceof AcpRpcError) {
    return Object.assign(new AgentError(method, error.code, error.rpcMessage, error.data), cause);
  }
  if (error instanceof AcpHttpError) {
    // The same kinds as the control-plane routes' (NotFoundError, ConflictError, ...).
    return refineHttpError(new SandboxAgentHttpError(method, error.status, error.problem, error.bodyText, cause));
  }
  if (error instanceof AcpConnectionClosedError) return new ConnectionLostError(error.reason, method, cause);
  if (error instanceof AcpTimeoutError) {
    return new CallTimeoutError(`${method} timed out after ${error.timeoutMs} ms`, cause);
  }
  if (error instanceof AcpAbortError) {
    return new CallAbortedError(`${method} was aborted`, { cause: error.cause ?? error });
  }
  if (error instanceof AcpNetworkError) return unreachable(method, error.cause ?? error);
  if (error instanceof AcpProtocolError) return new ProtocolError(`${method}: ${error.detail}`, cause);
  if (error instanceof AcpInvalidHeaderError) {
    const message = `${method}: header "${error.header}" has a CR or LF character; refusing to send it`;
    return new SandboxAgentError(message, cause);
  }
  return error;
}
