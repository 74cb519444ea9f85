/** POST/GET/DELETE /v2/rpc (§1.2, §1.5, §1.6). */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  CONNECTION_HEADER,
  headerValue,
  readBody,
  requireAccept,
  requireJsonContentType,
  sendEmpty,
  sendJson,
} from "./http-util.js";
import { parseEnvelope } from "./jsonrpc.js";
import { MISSING_CONNECTION_HEADER, problems } from "./problem.js";
import type { Runtime } from "./runtime.js";

/** §1.2 checks in table order; the connection header goes on every successful POST response ([inferred]). */
export async function handlePost(runtime: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  requireJsonContentType(req);
  requireAccept(req, "application/json");
  // §1.2 row 3: [uncertain] exact detail; the header belongs to the removed per-request agent API.
  if (headerValue(req, "x-acp-agent") !== undefined) {
    throw problems.invalidRequest('x-acp-agent header is not supported; use params._meta["sandboxagent.dev"].agent');
  }
  const message = parseEnvelope(await readBody(req));
  const connId = headerValue(req, CONNECTION_HEADER);
  const connection = connId === undefined ? runtime.bootstrap(message) : runtime.connection(connId);
  const outcome = await runtime.post(connection, message);
  const headers = { [CONNECTION_HEADER]: connection.id };
  if (outcome.kind === "response") sendJson(res, 200, outcome.body, headers);
  else sendEmpty(res, 202, headers);
}

/**
 * §1.5. The contract lists no order; [inferred] the router-level checks (header, Accept,
 * Last-Event-ID) run before the runtime's (unknown connection, then conflict: rt/mod.rs:466-471).
 */
export function handleGet(runtime: Runtime, req: IncomingMessage, res: ServerResponse): void {
  const connId = headerValue(req, CONNECTION_HEADER);
  if (connId === undefined) throw problems.invalidRequest(MISSING_CONNECTION_HEADER);
  requireAccept(req, "text/event-stream");
  const lastEventId = parseLastEventId(headerValue(req, "last-event-id"));
  runtime.openStream(connId, res, lastEventId);
}

/** §1.5: empty counts as absent (headerValue trims), `0` is allowed, anything else non-numeric is a 400. */
function parseLastEventId(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed)) {
    throw problems.invalidRequest("Last-Event-ID must be a positive integer");
  }
  return parsed;
}

/** §1.6: 204 even for unknown or already-deleted ids. */
export function handleDelete(runtime: Runtime, req: IncomingMessage, res: ServerResponse): void {
  const connId = headerValue(req, CONNECTION_HEADER);
  if (connId === undefined) throw problems.invalidRequest(MISSING_CONNECTION_HEADER);
  runtime.close(connId);
  sendEmpty(res, 204);
}
