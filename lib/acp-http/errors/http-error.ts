import { AcpError } from "../../internal/errors.js";
import type { ProblemDetails } from "../../internal/http.js";

/**
 * A non-2xx HTTP answer. The message names the operation and the status, never a
 * header value (the token lives in one), and `response` is kept out of enumeration
 * so that logging the error cannot dump a live object graph.
 */
export class AcpHttpError extends AcpError {
  override name = "AcpHttpError";
  readonly status: number;
  readonly problem: ProblemDetails | undefined;
  /** The body as text when it was not problem+json (HTML, plain text), capped. */
  readonly bodyText: string | undefined;
  declare readonly response: Response;

  constructor(
    operation: string,
    response: Response,
    problem: ProblemDetails | undefined,
    bodyText: string | undefined,
  ) {
    super(describe(operation, response.status, problem, bodyText));
    this.status = response.status;
    this.problem = problem;
    this.bodyText = bodyText;
    Object.defineProperty(this, "response", { value: response, enumerable: false });
  }
}

function describe(
  operation: string,
  status: number,
  problem: ProblemDetails | undefined,
  bodyText: string | undefined,
): string {
  const summary = problem?.detail ?? problem?.title ?? (bodyText ? bodyText.slice(0, 200) : undefined);
  return `${operation} failed with HTTP ${status}${summary ? `: ${summary}` : ""}`;
}
