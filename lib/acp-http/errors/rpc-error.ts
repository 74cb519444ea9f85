import { AcpError } from "../../internal/errors.js";

/** A JSON-RPC error answer (the request reached its peer, which said no). */
export class AcpRpcError extends AcpError {
  override name = "AcpRpcError";
  readonly code: number;
  readonly data: unknown;
  readonly method: string;
  /** The peer's own error message, as it sent it. */
  readonly rpcMessage: string;

  constructor(method: string, error: { code: number; message: string; data?: unknown }) {
    super(`${method} failed: ${error.message} (JSON-RPC ${error.code})`);
    this.method = method;
    this.rpcMessage = error.message;
    this.code = error.code;
    this.data = error.data;
  }
}
