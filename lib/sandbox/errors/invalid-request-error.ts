import { SandboxAgentHttpError } from "./http-error.js";

/**
 * HTTP 400, 415 or 422: the server refused the request's shape before acting on it (an unknown
 * enum value, a missing field, a bad query string). The server's reason is in `bodyText`
 * (plain text for framework rejections) or `problem`.
 */
export class InvalidRequestError extends SandboxAgentHttpError {
  override name = "InvalidRequestError";

  /** The server's own words, e.g. "missing field `command`". */
  get reason(): string | undefined {
    return this.problem?.detail ?? this.bodyText;
  }
}
