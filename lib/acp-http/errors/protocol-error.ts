import { AcpError } from "../../internal/errors.js";

/** The peer answered with something the protocol does not allow (a malformed result, a missing header). */
export class AcpProtocolError extends AcpError {
  override name = "AcpProtocolError";
  readonly method: string | undefined;
  /** What was wrong, without the method prefix. */
  readonly detail: string;

  constructor(message: string, options?: { method?: string; cause?: unknown }) {
    super(
      options?.method ? `${options.method}: ${message}` : message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.method = options?.method;
    this.detail = message;
  }
}
