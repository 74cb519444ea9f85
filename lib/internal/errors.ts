// The error base both layers build on. It lives here, below lib/acp-http, because the shared
// header helpers (./http.ts) throw one of its kinds; lib/acp-http/errors re-exports both.
/**
 * The base of every error this client throws, so callers can tell our failures
 * apart from their own with one `instanceof` check.
 */
export class AcpError extends Error {
  override name = "AcpError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A header value would split the request (CR or LF); refused before anything is sent. The value is never echoed. */
export class AcpInvalidHeaderError extends AcpError {
  override name = "AcpInvalidHeaderError";
  readonly header: string;

  constructor(header: string) {
    super(`header "${header}" has a CR or LF character in its value; refusing to send it`);
    this.header = header;
  }
}
