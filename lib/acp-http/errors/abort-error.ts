import { AcpError } from "../../internal/errors.js";

/** The caller aborted the request through its `AbortSignal` (or unsubscribed). */
export class AcpAbortError extends AcpError {
  override name = "AbortError";
  readonly method: string;

  constructor(method: string, reason?: unknown) {
    super(`${method} was aborted`, reason === undefined ? undefined : { cause: reason });
    this.method = method;
  }
}
