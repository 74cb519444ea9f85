import { ConflictError } from "./conflict-error.js";
import { DesktopDependenciesMissingError } from "./desktop-dependencies-missing-error.js";
import { DesktopInactiveError } from "./desktop-inactive-error.js";
import { SandboxAgentHttpError } from "./http-error.js";
import { InvalidRequestError } from "./invalid-request-error.js";
import { NotFoundError } from "./not-found-error.js";

type HttpErrorClass = new (...args: ConstructorParameters<typeof SandboxAgentHttpError>) => SandboxAgentHttpError;

/**
 * The most specific error class for an HTTP failure, chosen by status and problem kind
 * (`code` for the desktop's own problems). Anything else, and non-HTTP errors, pass unchanged.
 * `conflictAs` picks the class for a plain 409 (e.g. the stream's own class).
 */
export function refineHttpError(error: unknown, conflictAs: HttpErrorClass = ConflictError): unknown {
  if (!(error instanceof SandboxAgentHttpError) || error.constructor !== SandboxAgentHttpError) return error;
  const kind = typeof error.problem?.code === "string" ? error.problem.code : error.kind;
  if (isMissingPath(error, kind)) return new NotFoundError(error.operation, error.status, error.problem, error.bodyText, { cause: error.cause });
  const target = classFor(error.status, kind, conflictAs);
  if (!target) return error;
  return new target(error.operation, error.status, error.problem, error.bodyText, { cause: error.cause });
}

/**
 * The filesystem's "not found" (both contracts): a 400 `invalid_request` whose detail is
 * `invalid request: path not found: <path>`, not a 404. Its other 400s (not a file, not a
 * directory, exists) are about a path that is there, and stay `InvalidRequestError`s.
 */
function isMissingPath(error: SandboxAgentHttpError, kind: string | undefined): boolean {
  return error.status === 400 && kind === "invalid_request" && /\bpath not found\b/i.test(error.problem?.detail ?? "");
}

function classFor(status: number, kind: string | undefined, conflictAs: HttpErrorClass): HttpErrorClass | undefined {
  if (kind === "desktop_dependencies_missing") return DesktopDependenciesMissingError;
  if (kind === "desktop_runtime_inactive") return DesktopInactiveError;
  if (status === 404 && kind !== "invalid_request") return NotFoundError;
  if (status === 409) return conflictAs;
  if (status === 400 || status === 415 || status === 422) return InvalidRequestError;
  return undefined;
}
