import { AcpError } from "../../internal/errors.js";

/** The HTTP exchange itself failed (refused, reset, DNS): there is no status to report. */
export class AcpNetworkError extends AcpError {
  override name = "AcpNetworkError";
  readonly operation: string;

  constructor(operation: string, cause: unknown) {
    super(`${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.operation = operation;
  }
}
