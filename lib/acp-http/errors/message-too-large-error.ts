import { AcpError } from "../../internal/errors.js";

/**
 * One message (an SSE event, a POST body, a WebSocket frame) was larger than the client's
 * `maxMessageBytes`. It is reported and dropped; the stream and the connection go on.
 */
export class AcpMessageTooLargeError extends AcpError {
  override name = "AcpMessageTooLargeError";
  /** Where it came from: `stream`, `response-body` or `websocket`. */
  readonly source: string;
  /** At least this many bytes (counting may stop once the limit is passed). */
  readonly bytes: number;
  readonly limit: number;

  constructor(source: string, bytes: number, limit: number) {
    super(`a ${source} message of at least ${bytes} bytes exceeds maxMessageBytes (${limit})`);
    this.source = source;
    this.bytes = bytes;
    this.limit = limit;
  }
}
