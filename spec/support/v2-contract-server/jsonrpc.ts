/** JSON-RPC envelope checks of §1.2 rows 4-8 and message classification. */
import { isObject, type JsonObject } from "./json.js";
import { problems } from "./problem.js";

/**
 * A serde `Option<Value>` reads `"id": null` as absent, so a null id makes a notification.
 * §1.2: the runtime's envelope type is read that way [inferred].
 */
export function hasId(message: JsonObject): boolean {
  return message.id !== undefined && message.id !== null;
}

export function methodOf(message: JsonObject): string | undefined {
  return typeof message.method === "string" ? message.method : undefined;
}

export function isRequest(message: JsonObject): boolean {
  return methodOf(message) !== undefined && hasId(message);
}

export function isNotification(message: JsonObject): boolean {
  return methodOf(message) !== undefined && !hasId(message);
}

export function isResponse(message: JsonObject): boolean {
  return methodOf(message) === undefined && hasId(message);
}

/** Rows 4-8. Detail texts for rows 6-8 complete the contract's elided "…" with "JSON-RPC payload". */
export function parseEnvelope(body: Buffer): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch (error) {
    // §1.2 row 4: [inferred] detail from the later router.
    throw problems.invalidRequest(`invalid JSON body: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(parsed)) throw problems.invalidRequest("JSON-RPC payload must be an object");
  if (!("jsonrpc" in parsed)) throw problems.invalidRequest("JSON-RPC payload must include jsonrpc field");
  if (parsed.jsonrpc !== "2.0") throw problems.invalidRequest("jsonrpc must be '2.0'");
  const method = parsed.method;
  if (method !== undefined && typeof method !== "string") throw problems.invalidRequest("method must be a string");
  if (method === undefined && !hasId(parsed)) {
    throw problems.invalidRequest("JSON-RPC payload must include either method or id");
  }
  if (method !== undefined && ("result" in parsed || "error" in parsed)) {
    throw problems.invalidRequest("JSON-RPC payload must not include result or error");
  }
  return parsed;
}

export function resultResponse(id: unknown, result: unknown): JsonObject {
  return { jsonrpc: "2.0", id, result };
}

export function errorResponse(id: unknown, code: number, message: string): JsonObject {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

export function notification(method: string, params: unknown): JsonObject {
  return { jsonrpc: "2.0", method, params };
}
