// The JSON-RPC message: its shape (the types, and the parse checked by `checkEnvelope`), the session
// it belongs to, a batch split into members, and the size rule (a message over the limit is
// refused, and an oversize answer still settles its request by the id read from its head).
import { ACP_DEFAULTS } from "./defaults.js";

/**
 * JSON-RPC 2.0 envelopes. The rule that decides what is one is `checkEnvelope` below (one rule,
 * written out by hand because it runs for every frame); these types say what it lets through.
 * Envelopes are checked strictly at the top level and loosely below it: `params` and `result`
 * stay `unknown` here and are checked by the method that consumes them.
 */

/** A request's id; `"8"` and `8` are different ids. */
export type JsonRpcId = string | number | null;

/** Params of a request or notification: by position or by name. */
export type JsonRpcParams = unknown[] | Record<string, unknown>;

/** The `error` member of a JSON-RPC error response: a code, a message, optional data. */
export interface JsonRpcErrorObject {
  /** An integer. */
  code: number;
  message: string;
  data?: unknown;
  [key: string]: unknown;
}

/** A JSON-RPC request: a method, an id to answer, params. */
export interface AcpRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: JsonRpcParams | undefined;
  [key: string]: unknown;
}

/** A JSON-RPC notification: a method and params, no id, no answer. */
export interface AcpNotification {
  jsonrpc: "2.0";
  method: string;
  params?: JsonRpcParams | undefined;
  [key: string]: unknown;
}

/** A JSON-RPC answer with a `result`. */
export interface AcpSuccessResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: unknown;
  [key: string]: unknown;
}

/** A JSON-RPC answer with an `error`. */
export interface AcpErrorResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  error: JsonRpcErrorObject;
  [key: string]: unknown;
}

/** A JSON-RPC answer: a result or an error, for the request with the same id. */
export type AcpResponse = AcpSuccessResponse | AcpErrorResponse;
/** One JSON-RPC message, as `envelopes$` carries it: a request, a notification or an answer. */
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
  return { ok: false, error: `invalid JSON-RPC envelope: ${explain(json as Record<string, unknown>, kind)}` };
}

/** Which envelope an object claims to be, from its keys; `checkEnvelope` then holds it to that. */
export function envelopeKind(o: Record<string, unknown>): EnvelopeKind | undefined {
  if ("method" in o) return "id" in o ? "request" : "notification";
  if ("error" in o) return "error";
  if ("result" in o) return "success";
  return undefined;
}

/** Whether the envelope is an answer (it has no `method`). */
export function isResponse(envelope: AcpEnvelope): envelope is AcpResponse {
  return !("method" in envelope);
}

/** Whether the envelope is a request (a `method` and an `id`): the agent waits for its answer. */
export function isRequest(envelope: AcpEnvelope): envelope is AcpRequest {
  return "method" in envelope && "id" in envelope;
}

/** Whether the envelope is a notification (a `method`, no `id`), e.g. `session/update`. */
export function isNotification(envelope: AcpEnvelope): envelope is AcpNotification {
  return "method" in envelope && !("id" in envelope);
}

/** Whether the answer is an error (it has an `error` member). */
export function isErrorResponse(envelope: AcpResponse): envelope is AcpErrorResponse {
  return "error" in envelope;
}

/** A map key for a JSON-RPC id that keeps `"8"` and `8` apart, as the wire does. */
export function idKey(id: JsonRpcId): string {
  return typeof id === "string" ? `s:${id}` : typeof id === "number" ? `n:${id}` : "null";
}

/**
 * The envelope rule. A valid envelope comes back as a checked copy: the entries first (`jsonrpc`,
 * `id`, `method`, `params`, or `result`/`error`), then the other keys, without `__proto__`,
 * `prototype` or `constructor`, and `params` and `error` copied the same way. It is written out
 * rather than built from a generic validator, which cost about a quarter more CPU per inbound
 * envelope (bench scenario 1); spec/acp-http/unit/envelope-rule-against-schema.spec.ts holds it to a
 * valibot model of JSON-RPC 2.0 (spec/support/envelope-schemas.ts) on random and odd input.
 */
const hasOwn = Object.prototype.hasOwnProperty;

type Json = Record<string, unknown>;

/** Which envelope an object is (`envelopeKind`). */
export type EnvelopeKind = "request" | "notification" | "error" | "success";

/**
 * The checked copy of `o` as an envelope of `kind`, or undefined when it is not one (`explain`
 * says why). `owned`: `o` is a fresh parse nobody else holds, so when the copy would be equal to
 * it (same keys in the same order, nothing dropped) `o` itself is returned, copying nothing.
 */
export function checkEnvelope(o: Json, kind: EnvelopeKind, owned = false): Json | undefined {
  if (o.jsonrpc !== "2.0") return undefined;
  if (owned && kind !== "error" && isOwnLayout(o, kind)) return o;
  let out: Json;
  switch (kind) {
    case "request":
    case "notification": {
      if (typeof o.method !== "string") return undefined;
      if (kind === "request") {
        if (!isId(o.id)) return undefined;
        out = { jsonrpc: "2.0", id: o.id, method: o.method };
      } else out = { jsonrpc: "2.0", method: o.method };
      // A params key holding undefined (possible in an object handed to validateEnvelope, never in
      // JSON) counts as absent, but stays in the copy.
      if ("params" in o && o.params === undefined) out.params = undefined;
      else if ("params" in o) {
        const params = structured(o.params);
        if (params === undefined) return undefined;
        out.params = params;
      }
      return copyRest(o, out, kind === "request" ? REQUEST_KEYS : NOTIFICATION_KEYS);
    }
    case "success":
      if (!isId(o.id)) return undefined;
      out = { jsonrpc: "2.0", id: o.id, result: o.result };
      return copyRest(o, out, SUCCESS_KEYS);
    case "error": {
      if (!isId(o.id)) return undefined;
      const error = errorObject(o.error);
      if (error === undefined) return undefined;
      out = { jsonrpc: "2.0", id: o.id, error };
      return copyRest(o, out, ERROR_KEYS);
    }
  }
}

/**
 * Whether `o`, a fresh parse, already is its own checked copy: valid for `kind` (the error
 * object aside), no own key the copy drops, the schema's keys first and in the schema's
 * order, and `params` (if any) a plain object without a key the copy would drop (a parse has
 * only own keys, so those three are all there is to look for). The 0.4.2 server writes
 * notifications with sorted keys, which is that order. Positions are spelled out rather than
 * looked up: this runs for every frame.
 *
 * Own keys are listed (Object.keys) rather than walked with a lookup each: the copy holds own
 * keys only, so an inherited one changes nothing, except a schema entry, which the schema
 * copies as an own key. Each entry `in` the object must therefore be among its own keys.
 */
function isOwnLayout(o: Json, kind: Exclude<EnvelopeKind, "error">): boolean {
  if (kind === "notification" || kind === "request") {
    if (typeof o.method !== "string" || (kind === "request" && !isId(o.id))) return false;
    if ("params" in o && !isCleanRecord(o.params)) return false;
  } else if (!isId(o.id)) return false;
  let next = 0;
  let pastEntries = false;
  let ownEntries = 0;
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key === "__proto__" || key === "prototype" || key === "constructor") return false;
    const at = positionIn(kind, key);
    if (at === -1) pastEntries = true;
    else if (pastEntries || at < next) return false;
    else {
      next = at + 1;
      ownEntries++;
    }
  }
  return ownEntries === entriesIn(o, kind);
}

/** How many of the schema's entries `o` has, own or inherited (as checked before: all but `params`). */
function entriesIn(o: Json, kind: Exclude<EnvelopeKind, "error">): number {
  if (kind === "success") return 3;
  return (kind === "request" ? 3 : 2) + ("params" in o ? 1 : 0);
}

/** Where `key` stands among the schema's entries for `kind`; -1 when it is not one of them. */
function positionIn(kind: Exclude<EnvelopeKind, "error">, key: string): number {
  if (key === "jsonrpc") return 0;
  if (kind === "notification") return key === "method" ? 1 : key === "params" ? 2 : -1;
  if (key === "id") return 1;
  if (kind === "request") return key === "method" ? 2 : key === "params" ? 3 : -1;
  return key === "result" ? 2 : -1;
}

/**
 * A parsed non-array object its record copy would equal (nothing in it the copy drops). Its keys
 * are walked rather than the three names looked up: params hold a few keys, and a walk costs less
 * than three lookups of absent keys. An inherited enumerable key of such a name (a polluted
 * prototype) is taken for one of its own: a doubt, which only sends the frame to the copy.
 */
function isCleanRecord(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  for (const key in value) if (key === "__proto__" || key === "constructor" || key === "prototype") return false;
  return true;
}

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_KEYS = new Set(["jsonrpc", "method", "params"]);
const SUCCESS_KEYS = new Set(["jsonrpc", "id", "result"]);
const ERROR_KEYS = new Set(["jsonrpc", "id", "error"]);
const ERROR_OBJECT_KEYS = new Set(["code", "message", "data"]);

function isId(id: unknown): boolean {
  return typeof id === "string" || id === null || (typeof id === "number" && !Number.isNaN(id));
}

/** An own key a schema copies: not inherited, not one that could reach a prototype. */
function copyable(o: object, key: string): boolean {
  return hasOwn.call(o, key) && key !== "__proto__" && key !== "prototype" && key !== "constructor";
}

/** The keys of `o` that no schema entry names, after those that do (a loose object's output). */
function copyRest(o: Json, out: Json, known: ReadonlySet<string>): Json {
  for (const key in o) if (!known.has(key) && copyable(o, key)) out[key] = o[key];
  return out;
}

/** An array (copied) or an object (its copyable keys copied); undefined for anything else. */
function structured(value: unknown): unknown[] | Json | undefined {
  if (Array.isArray(value)) {
    // Index by index, as the schema copies it (a hole becomes undefined).
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) items.push(value[i]);
    return items;
  }
  if (value === null || typeof value !== "object") return undefined;
  const out: Json = {};
  for (const key in value) if (copyable(value, key)) out[key] = (value as Json)[key];
  return out;
}

function errorObject(value: unknown): Json | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const e = value as Json;
  if (typeof e.code !== "number" || !Number.isInteger(e.code) || typeof e.message !== "string") return undefined;
  const out: Json = { code: e.code, message: e.message };
  if ("data" in e) out.data = e.data;
  return copyRest(e, out, ERROR_OBJECT_KEYS);
}

/** The `sessionId` a params or result object names, if any (ACP puts it at the top level). */
export function sessionOf(value: unknown): string | undefined {
  const sessionId = (value as { sessionId?: unknown } | null | undefined)?.sessionId;
  return typeof sessionId === "string" ? sessionId : undefined;
}

/**
 * JSON-RPC 2.0 batches: one frame or body holding an array of envelopes. Each member is
 * handled on its own, as if it had come alone, so one bad member costs only itself.
 */

/** The members of a batch as JSON texts; undefined when `text` is not a non-empty JSON array of objects. */
export function splitBatch(text: string): string[] | undefined {
  if (!startsWithBracket(text)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined; // Not JSON at all: the caller reports it as it would any bad frame.
  }
  // Only an array of objects is a batch; anything else ([1], []) is one bad frame, reported whole.
  if (!Array.isArray(json) || json.length === 0 || !json.every(isObject)) return undefined;
  return json.map((member) => JSON.stringify(member) ?? "null");
}

// Checked by hand: a frame is usually one object, and trimming a large one would copy it.
function startsWithBracket(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Default `maxMessageBytes`: 32 MiB, as the official ACP SDK has it. */
export const DEFAULT_MAX_MESSAGE_BYTES = ACP_DEFAULTS.maxMessageBytes;

const encoder = new TextEncoder();

/**
 * The UTF-8 size of `text` when it exceeds `limit`, else undefined. Cheap for the common
 * case: a string is at least its length and at most three times its length in UTF-8
 * bytes, so most strings are decided without encoding them.
 */
export function oversize(text: string, limit: number): number | undefined {
  if (text.length > limit) return text.length;
  if (text.length * 3 <= limit) return undefined;
  const bytes = encoder.encode(text).length;
  return bytes > limit ? bytes : undefined;
}

/** How much of an oversized message is looked at: serializers write `id` before `result`. */
export const ANSWER_HEAD_CHARS = 4096;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The id of the request an oversized message answers, read from its first characters
 * without parsing it (that is what the size limit forbids), so that the request fails at
 * once instead of waiting for an answer that was dropped. Undefined unless the head shows
 * a top-level object with an `id` (number or string) and a `result` or `error` key, and no
 * `method` before them: a request or notification of the agent answers nothing.
 */
export function answeredIdOf(text: string): JsonRpcId | undefined {
  const head = text.length > ANSWER_HEAD_CHARS ? text.slice(0, ANSWER_HEAD_CHARS) : text;
  const start = head.search(/\S/);
  if (start < 0 || head[start] !== "{") return undefined;
  let depth = 0;
  let expectKey = false;
  let key: string | undefined;
  let id: JsonRpcId | undefined;
  let answer = false;
  for (let i = start; i < head.length && !(answer && id !== undefined); i++) {
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end < 0) break;
      if (depth === 1 && expectKey) {
        key = JSON.parse(head.slice(i, end + 1)) as string;
        expectKey = false;
        if (key === "method") return undefined;
        if (key === "result" || key === "error") answer = true;
      } else if (depth === 1 && key === "id") {
        id = JSON.parse(head.slice(i, end + 1)) as string;
      }
      i = end;
    } else if (c === "{" || c === "[") {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === "}" || c === "]") {
      depth--;
    } else if (depth === 1 && c === ",") {
      expectKey = true;
      key = undefined;
    } else if (depth === 1 && key === "id" && c !== undefined && (c === "-" || (c >= "0" && c <= "9"))) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(head);
      if (!match) break;
      id = Number(match[0]);
      i += match[0].length - 1;
    }
  }
  return answer ? id : undefined;
}

/** The index of the quote that closes the string opening at `open`; -1 when the head ends first. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === '"') return i;
  }
  return -1;
}

/**
 * Why `o` is not an envelope of `kind`: its first three faults, as `path: what`. Only rejected
 * frames come here, so it may take its time.
 */
function explain(o: Json, kind: EnvelopeKind): string {
  const faults: string[] = [];
  const fault = (path: string, expected: string, value: unknown) =>
    faults.push(`${path}: Invalid type: Expected ${expected} but received ${received(value)}`);
  if (o.jsonrpc !== "2.0") fault("jsonrpc", '"2.0"', o.jsonrpc);
  if (kind !== "notification" && !isId(o.id)) fault("id", "(string | number | null)", o.id);
  if (kind === "request" || kind === "notification") {
    if (typeof o.method !== "string") fault("method", "string", o.method);
    if ("params" in o && o.params !== undefined && structured(o.params) === undefined) {
      fault("params", "(Array | Object)", o.params);
    }
  }
  if (kind === "error") {
    const error = o.error;
    if (error === null || typeof error !== "object") fault("error", "Object", error);
    else {
      const e = error as Json;
      if (!("code" in e)) faults.push('error.code: Invalid key: Expected "code" but received undefined');
      else if (typeof e.code !== "number" || Number.isNaN(e.code)) fault("error.code", "number", e.code);
      else if (!Number.isInteger(e.code)) faults.push(`error.code: Invalid integer: Received ${e.code}`);
      if (!("message" in e)) faults.push('error.message: Invalid key: Expected "message" but received undefined');
      else if (typeof e.message !== "string") fault("error.message", "string", e.message);
    }
  }
  return faults.slice(0, 3).join("; ") || "not a JSON-RPC envelope";
}

function received(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "Array";
  if (value !== null && typeof value === "object") return "Object";
  return String(value);
}
