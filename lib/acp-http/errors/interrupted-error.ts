import { AcpError } from "./acp-error.js";

/**
 * The connection was lost while this request was in flight and had to be re-established
 * (re-`initialize`, then `session/load`): whether the agent acted on the request is unknown,
 * and its answer cannot arrive on the new connection. The client itself is still usable.
 */
export class AcpInterruptedError extends AcpError {
  override name = "AcpInterruptedError";
  readonly method: string | undefined;

  constructor(method: string | undefined, cause?: unknown) {
    super(`${method ? `${method} ` : ""}interrupted: the connection was lost and re-established`, { cause });
    this.method = method;
  }
}
