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
