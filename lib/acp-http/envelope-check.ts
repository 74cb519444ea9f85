/**
 * The envelope schemas of envelope.ts checked by hand, for the frames that pass them: the
 * same acceptance and the same output (a copy of the object with the schema's keys first,
 * then the other keys, without `__proto__`, `prototype` or `constructor`; `params` and
 * `error` copied the same way), without the per-value bookkeeping of a generic validator,
 * which tried `params` as an array first and wrote up that failure on every frame.
 * Anything it is not sure of yields undefined, and the schema itself decides (and explains).
 * Checked against the schemas in spec/acp-http/unit/envelope-check.spec.ts.
 */

const hasOwn = Object.prototype.hasOwnProperty;

type Json = Record<string, unknown>;

/** Which envelope an object is, chosen as `schemaFor` in envelope.ts chooses. */
export type EnvelopeKind = "request" | "notification" | "error" | "success";

/**
 * The checked copy of `o` as the schema of `kind` outputs it, or undefined to let the schema
 * decide. `owned`: `o` is a fresh parse nobody else holds, so when the copy would be equal to
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
      if ("params" in o) {
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
