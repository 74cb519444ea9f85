// JSON-RPC 2.0 envelopes as valibot schemas: the independent model that the library's one envelope
// rule (`checkEnvelope` in lib/acp-http/envelope.ts) is held to in
// spec/acp-http/unit/envelope-rule-against-schema.spec.ts. Top level strict, below it loose; loose
// objects keep unknown keys.
import * as v from "valibot";

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

/** The schema of each kind (the one `envelopeKind` picks). */
export const ENVELOPE_SCHEMAS = {
  request: AcpRequestSchema,
  notification: AcpNotificationSchema,
  error: AcpErrorResponseSchema,
  success: AcpSuccessResponseSchema,
} as const;
