import { AcpHttpError, type ProblemDetails } from "./errors/http-error.js";

/** How much of a non-JSON error body an `AcpHttpError` keeps. */
const MAX_ERROR_BODY = 2000;

/** Turns a non-2xx response into the error the caller of `operation` sees. */
export async function toHttpError(operation: string, response: Response): Promise<AcpHttpError> {
  const { problem, bodyText } = await readHttpProblem(response);
  return new AcpHttpError(operation, response, problem, bodyText);
}

/**
 * Reads an error body once: problem+json (or any JSON object) becomes `problem`,
 * anything else (HTML, plain text) a capped `bodyText`.
 */
export async function readHttpProblem(
  response: Response,
): Promise<{ problem: ProblemDetails | undefined; bodyText: string | undefined }> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // A body that cannot be read still leaves the status to report.
  }
  let problem: ProblemDetails | undefined;
  if (/json/i.test(response.headers.get("content-type") ?? "") && text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) problem = parsed as ProblemDetails;
    } catch {
      // Not JSON after all: keep it as text below.
    }
  }
  return { problem, bodyText: problem || !text ? undefined : text.slice(0, MAX_ERROR_BODY) };
}
