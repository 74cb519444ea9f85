import * as v from "valibot";
import { checkEnvelope, type EnvelopeKind } from "./envelope-check.js";

/**
 * JSON-RPC 2.0 envelopes as valibot schemas; the TypeScript types below are inferred
 * from them so the two can never disagree. Envelopes are validated strictly at the
 * top level and loosely below it: `params` and `result` stay `unknown` here and are
 * checked by the method that consumes them, which keeps the per-frame cost low.
 */

export const JsonRpcIdSchema = v.union([v.string(), v.number(), v.null()]);

// Array first: valibot's record accepts arrays too and would turn [1, 2] into {"0": 1, "1": 2}.
const StructuredSchema = v.union([v.array(v.unknown()), v.record(v.string(), v.unknown())]);
const VersionSchema = v.literal("2.0");

export const JsonRpcErrorObjectSchema = v.looseObject({
  code: v.pipe(v.number(), v.integer()),
  message: v.string(),
  data: v.optional(v.unknown()),
});

export const AcpRequestSchema = v.looseObject({
  jsonrpc: VersionSchema,
  id: JsonRpcIdSchema,
  method: v.string(),
  params: v.optional(StructuredSchema),
});

export const AcpNotificationSchema = v.looseObject({
  jsonrpc: VersionSchema,
  method: v.string(),
  params: v.optional(StructuredSchema),
});

export const AcpSuccessResponseSchema = v.looseObject({
  jsonrpc: VersionSchema,
  id: JsonRpcIdSchema,
  result: v.unknown(),
});

export const AcpErrorResponseSchema = v.looseObject({
  jsonrpc: VersionSchema,
  id: JsonRpcIdSchema,
  error: JsonRpcErrorObjectSchema,
});

export type JsonRpcId = v.InferOutput<typeof JsonRpcIdSchema>;
export type JsonRpcErrorObject = v.InferOutput<typeof JsonRpcErrorObjectSchema>;
export type AcpRequest = v.InferOutput<typeof AcpRequestSchema>;
export type AcpNotification = v.InferOutput<typeof AcpNotificationSchema>;
export type AcpSuccessResponse = v.InferOutput<typeof AcpSuccessResponseSchema>;
export type AcpErrorResponse = v.InferOutput<typeof AcpErrorResponseSchema>;
export type AcpResponse = AcpSuccessResponse | AcpErrorResponse;
export type AcpEnvelope = AcpRequest | AcpNotification | AcpResponse;

export type EnvelopeParse = { ok: true; envelope: AcpEnvelope } | { ok: false; error: string };

/** Parses one frame's text; never throws, so a bad frame cannot end the stream it came on. */
export function parseEnvelope(text: string): EnvelopeParse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `invalid JSON: ${(error as Error).message}` };
  }
  return check(json, true);
}

/** Validates an already-parsed JSON value as one JSON-RPC 2.0 envelope. */
export function validateEnvelope(json: unknown): EnvelopeParse {
  return check(json, false);
}

/** `owned`: `json` is a fresh parse, which may be returned as the envelope itself (see checkEnvelope). */
function check(json: unknown, owned: boolean): EnvelopeParse {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { ok: false, error: "not a JSON-RPC object" };
  }
  const kind = envelopeKind(json as Record<string, unknown>);
  if (!kind) return { ok: false, error: "not a JSON-RPC request, notification or response" };
  const checked = checkEnvelope(json as Record<string, unknown>, kind, owned);
  if (checked) return { ok: true, envelope: checked as AcpEnvelope };
  const result = v.safeParse(ENVELOPE_SCHEMAS[kind], json);
  if (result.success) return { ok: true, envelope: result.output };
  return { ok: false, error: `invalid JSON-RPC envelope: ${summarize(result.issues)}` };
}

// Choosing the one schema up front (instead of a union) keeps both the cost and the
// error message to a single candidate. Valid envelopes are taken by checkEnvelope, which
// mirrors these schemas; only what it doubts goes through the schema.
export function envelopeKind(o: Record<string, unknown>): EnvelopeKind | undefined {
  if ("method" in o) return "id" in o ? "request" : "notification";
  if ("error" in o) return "error";
  if ("result" in o) return "success";
  return undefined;
}

/** The schema of each kind (the one `envelopeKind` picks). */
export const ENVELOPE_SCHEMAS = {
  request: AcpRequestSchema,
  notification: AcpNotificationSchema,
  error: AcpErrorResponseSchema,
  success: AcpSuccessResponseSchema,
} as const;

function summarize(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path?.map((item) => String(item.key)).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

export function isResponse(envelope: AcpEnvelope): envelope is AcpResponse {
  return !("method" in envelope);
}

export function isRequest(envelope: AcpEnvelope): envelope is AcpRequest {
  return "method" in envelope && "id" in envelope;
}

export function isNotification(envelope: AcpEnvelope): envelope is AcpNotification {
  return "method" in envelope && !("id" in envelope);
}

export function isErrorResponse(envelope: AcpResponse): envelope is AcpErrorResponse {
  return "error" in envelope;
}

/** A map key for a JSON-RPC id that keeps `"8"` and `8` apart, as the wire does. */
export function idKey(id: JsonRpcId): string {
  return typeof id === "string" ? `s:${id}` : typeof id === "number" ? `n:${id}` : "null";
}
