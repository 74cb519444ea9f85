import { AcpError } from "./acp-error.js";

/** A header value would split the request (CR or LF); refused before anything is sent. The value is never echoed. */
export class AcpInvalidHeaderError extends AcpError {
  override name = "AcpInvalidHeaderError";
  readonly header: string;

  constructor(header: string) {
    super(`header "${header}" has a CR or LF character in its value; refusing to send it`);
    this.header = header;
  }
}
