import { readHttpProblem } from "../internal/http.js";
import { AcpHttpError } from "./errors/http-error.js";

/** Turns a non-2xx response into the error the caller of `operation` sees. */
export async function toHttpError(operation: string, response: Response): Promise<AcpHttpError> {
  const { problem, bodyText } = await readHttpProblem(response);
  return new AcpHttpError(operation, response, problem, bodyText);
}
