/**
 * §2.1 problem details. `detail` follows the error's display string; for kinds whose display text
 * the contract does not quote, the form "<kind words>: <message>" is used when the error carries a
 * required message and the bare words otherwise (as `token invalid` / `stream error: …` show).
 */
import type { JsonObject } from "./json.js";

const TYPE_PREFIX = "urn:sandbox-agent:error:";

export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly body: JsonObject,
  ) {
    super(typeof body.detail === "string" ? body.detail : `HTTP ${status}`);
  }
}

function problem(status: number, kind: string, title: string, detail: string, extra: JsonObject = {}): HttpProblem {
  return new HttpProblem(status, { type: `${TYPE_PREFIX}${kind}`, title, status, detail, ...extra });
}

export const problems = {
  invalidRequest: (message: string) => problem(400, "invalid_request", "Invalid Request", `invalid request: ${message}`),
  conflict: (message: string) => problem(409, "conflict", "Conflict", `conflict: ${message}`, { details: { message } }),
  unsupportedAgent: (agent: string) =>
    problem(400, "unsupported_agent", "Unsupported Agent", `unsupported agent: ${agent}`, { agent }),
  tokenInvalid: () =>
    problem(401, "token_invalid", "Token Invalid", "token invalid", {
      details: { message: "missing or invalid bearer token" },
    }),
  permissionDenied: (message: string) =>
    problem(403, "permission_denied", "Permission Denied", "permission denied", { details: { message } }),
  notAcceptable: (message: string) =>
    problem(406, "not_acceptable", "Not Acceptable", `not acceptable: ${message}`, { details: { message } }),
  unsupportedMediaType: (message: string) =>
    problem(415, "unsupported_media_type", "Unsupported Media Type", `unsupported media type: ${message}`, {
      details: { message },
    }),
  /** §2.1: SessionNotFound is rewritten for unknown connections and unknown sessions alike. */
  clientNotFound: (id: string) =>
    problem(404, "client_not_found", "ACP client not found", "unknown ACP client id", { sessionId: id }),
  streamError: (message: string) =>
    problem(502, "stream_error", "Stream Error", `stream error: ${message}`, { details: { message } }),
  timeout: (message: string) => problem(504, "timeout", "Timeout", "timeout", { details: { message } }),
  v1Removed: () => problem(410, "v1_removed", "v1 API removed", "v1 API removed; use /v2"),
  /** §2.1: unknown routes reuse the invalid_request type with the title "Not Found". */
  notFound: () => problem(404, "invalid_request", "Not Found", "endpoint not found"),
};

export const MISSING_CONNECTION_HEADER = "missing x-acp-connection-id header";
