import { AcpError } from "../../internal/errors.js";

/** A caller-requested deadline passed; there is no default deadline on requests. */
export class AcpTimeoutError extends AcpError {
  override name = "AcpTimeoutError";
  readonly method: string;
  readonly timeoutMs: number;

  constructor(method: string, timeoutMs: number) {
    super(`${method} timed out after ${timeoutMs} ms`);
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}
