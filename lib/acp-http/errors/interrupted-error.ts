import { AcpError } from "../../internal/errors.js";

/**
 * Why a request's answer can no longer arrive:
 * - `connection-rebuilt`: the connection was lost and re-established (re-`initialize`, then
 *   `session/load`); the answer cannot arrive on the new connection.
 * - `stream-lost`: the event stream that would carry the answer (the session's, in the RFD profile)
 *   was ended by the server, which gives no event ids to replay it from: what it wrote while no
 *   stream was attached may be gone. The stream itself is reopened for later events.
 */
export type AcpInterruptionKind = "connection-rebuilt" | "stream-lost";

/**
 * A request in flight whose answer can no longer arrive (see `kind`): whether the agent acted on it
 * is unknown. The client itself is still usable.
 */
export class AcpInterruptedError extends AcpError {
  override name = "AcpInterruptedError";
  readonly method: string | undefined;
  readonly kind: AcpInterruptionKind;

  constructor(method: string | undefined, cause?: unknown, kind: AcpInterruptionKind = "connection-rebuilt") {
    const why =
      kind === "stream-lost"
        ? "the event stream carrying its answer ended and the server cannot replay it"
        : "the connection was lost and re-established";
    super(`${method ? `${method} ` : ""}interrupted: ${why}`, { cause });
    this.method = method;
    this.kind = kind;
  }
}
