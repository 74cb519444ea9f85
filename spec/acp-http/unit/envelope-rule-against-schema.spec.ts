/**
 * The envelope rule (`checkEnvelope` in lib/acp-http/envelope.ts) against a valibot model of JSON-RPC 2.0
 * (spec/support/envelope-schemas.ts): on every input it takes, the schema must succeed with the same output (values
 * and key order, nested copies included); on JSON input, it must take every input the schema
 * accepts (so valid frames never pay for the schema) and none it rejects.
 */
import * as v from "valibot";
import { envelopeKind as kindOf, parseEnvelope, validateEnvelope } from "../../../lib/acp-http/envelope.js";
import { checkEnvelope, type EnvelopeKind } from "../../../lib/acp-http/envelope.js";
import { ENVELOPE_SCHEMAS as SCHEMAS } from "../../support/envelope-schemas.js";
import { mulberry32, randomInt } from "../../support/prng.js";

/** Deep structure with key order: two values print alike only if they are alike, keys in the same order. */
function shape(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(shape).join(",")}]`;
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record).map((key) => `${JSON.stringify(key)}:${shape(record[key])}`);
    return `{${entries.join(",")}}`;
  }
  return value === undefined ? "undefined" : Number.isNaN(value) ? "NaN" : JSON.stringify(value) ?? String(value);
}

const ids = ['"a"', "7", "-1.5", "null", "true", "{}", "[]", '"8"'];
const methods = ['"session/update"', '"x"', "3", "null", '""'];
const params = [
  '{"sessionId":"s","update":{"a":1}}',
  "[1,2]",
  "[]",
  "{}",
  "null",
  '"p"',
  "4",
  '{"__proto__":{"x":1},"k":1}',
  '{"constructor":1,"prototype":2,"b":3}',
];
const errors = [
  '{"code":-32601,"message":"m"}',
  '{"code":1.5,"message":"m"}',
  '{"code":"1","message":"m"}',
  '{"code":1}',
  '{"code":1,"message":"m","data":{"d":1},"extra":true}',
  "[]",
  "null",
  '{"message":"m","code":2,"__proto__":{}}',
];
const extras = ['"_meta":{"a":1}', '"__proto__":{"polluted":true}', '"constructor":"c"', '"prototype":0', '"zz":[1]'];
const versions = ['"2.0"', '"1.0"', "2", "null"];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[randomInt(random, 0, list.length - 1)] as T;
}

/** A random JSON object text built from the fragments above, keys in a random order. */
function randomEnvelopeText(random: () => number): string {
  const fields: string[] = [];
  if (random() < 0.95) fields.push(`"jsonrpc":${pick(random, versions)}`);
  if (random() < 0.6) fields.push(`"id":${pick(random, ids)}`);
  if (random() < 0.6) fields.push(`"method":${pick(random, methods)}`);
  if (random() < 0.5) fields.push(`"params":${pick(random, params)}`);
  if (random() < 0.3) fields.push(`"result":${pick(random, [...params, "0", "false"])}`);
  if (random() < 0.3) fields.push(`"error":${pick(random, errors)}`);
  if (random() < 0.4) fields.push(pick(random, extras));
  for (let i = fields.length - 1; i > 0; i--) {
    const j = randomInt(random, 0, i);
    [fields[i], fields[j]] = [fields[j] as string, fields[i] as string];
  }
  return `{${fields.join(",")}}`;
}

describe("checkEnvelope against the envelope schemas", () => {
  it("agrees with the schemas on 20,000 random JSON envelopes: same verdict, same output, copied or owned", () => {
    const random = mulberry32(20261202);
    let taken = 0;
    let rejected = 0;
    let reused = 0;
    for (let n = 0; n < 20_000; n++) {
      const text = randomEnvelopeText(random);
      const json = JSON.parse(text) as Record<string, unknown>;
      const kind = kindOf(json);
      if (!kind) continue;
      const schema = v.safeParse(SCHEMAS[kind], JSON.parse(text));
      const checked = checkEnvelope(json, kind);
      // Owned: the parse itself may come back, where it equals the copy.
      const fresh = JSON.parse(text) as Record<string, unknown>;
      const owned = checkEnvelope(fresh, kind, true);
      if (owned === fresh) reused++;
      if (!schema.success) {
        expect({ text, checked, owned }).toEqual({ text, checked: undefined, owned: undefined });
        rejected++;
        continue;
      }
      expect({ text, checked: shape(checked), owned: shape(owned) }).toEqual({
        text,
        checked: shape(schema.output),
        owned: shape(schema.output),
      });
      taken++;
    }
    // Both sides were exercised in earnest.
    expect(taken).toBeGreaterThan(1000);
    expect(rejected).toBeGreaterThan(1000);
    expect(reused).toBeGreaterThan(50);
    expect(reused).toBeLessThan(taken);
  });

  it("answers what JSON cannot produce (undefined values, NaN, holes, inherited keys) as the schema does", () => {
    const odd: Record<string, unknown>[] = [
      { jsonrpc: "2.0", method: "m", params: undefined },
      { jsonrpc: "2.0", id: undefined, method: "m" },
      { jsonrpc: "2.0", id: Number.NaN, result: 1 },
      // eslint-disable-next-line no-sparse-arrays
      { jsonrpc: "2.0", method: "m", params: [1, , 3] },
      Object.assign(Object.create({ jsonrpc: "2.0" }) as object, { method: "inherited" }),
    ];
    for (const input of odd) {
      const kind = kindOf(input) as EnvelopeKind;
      const schema = v.safeParse(SCHEMAS[kind], input);
      const checked = checkEnvelope(input, kind);
      if (checked !== undefined) expect(shape(checked)).toBe(shape(schema.output));
      const verdict = validateEnvelope(input);
      expect(verdict.ok).toBe(schema.success);
      if (verdict.ok && schema.success) expect(shape(verdict.envelope)).toBe(shape(schema.output));
    }
  });

  it("names the same faulty fields as the schema when it refuses (2,000 random JSON envelopes)", () => {
    const random = mulberry32(20261204);
    const pathsOf = (error: string) =>
      error
        .replace(/^invalid JSON-RPC envelope: /, "")
        .split("; ")
        .map((fault) => fault.slice(0, fault.indexOf(":")));
    let refused = 0;
    for (let n = 0; n < 2_000; n++) {
      const text = randomEnvelopeText(random);
      const json = JSON.parse(text) as Record<string, unknown>;
      const kind = kindOf(json);
      if (!kind) continue;
      const schema = v.safeParse(SCHEMAS[kind], json);
      const verdict = parseEnvelope(text);
      expect({ text, ok: verdict.ok }).toEqual({ text, ok: schema.success });
      if (verdict.ok || schema.success) continue;
      const expected = schema.issues.slice(0, 3).map((issue) => issue.path?.map((item) => String(item.key)).join("."));
      expect({ text, paths: pathsOf(verdict.error) }).toEqual({ text, paths: expected });
      refused++;
    }
    expect(refused).toBeGreaterThan(200);
  });

  it("explains a refusal by the faulty field, as the schema does", () => {
    expect(parseEnvelope('{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}')).toEqual({
      ok: false,
      error: expect.stringMatching(/^invalid JSON-RPC envelope: error\.code: /),
    });
    expect(parseEnvelope('{"jsonrpc":"1.0","method":"m"}')).toEqual({
      ok: false,
      error: expect.stringMatching(/^invalid JSON-RPC envelope: jsonrpc: /),
    });
  });

  // The schema cannot be asked here (valibot walks its own entries with for-in and trips over the
  // polluted key): the copy is the reference, which a returned parse must equal.
  it("returns a fresh parse only where it equals the copy while Object.prototype carries envelope keys", () => {
    const texts = [
      '{"jsonrpc":"2.0","method":"session/update"}',
      '{"jsonrpc":"2.0","method":"m","params":{"sessionId":"s"}}',
      '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}',
      '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}',
      '{"jsonrpc":"2.0","method":"m","params":{"a":1},"zz":2}',
    ];
    const polluted: [string, PropertyDescriptor][] = [
      ["params", { value: { inherited: true }, enumerable: true }],
      ["params", { value: { inherited: true }, enumerable: false }],
      ["id", { value: 9, enumerable: false }],
      ["zz", { value: 1, enumerable: true }],
      ["constructor", { value: Object, enumerable: true }],
    ];
    for (const [key, descriptor] of polluted) {
      const saved = Object.getOwnPropertyDescriptor(Object.prototype, key);
      Object.defineProperty(Object.prototype, key, { ...descriptor, configurable: true, writable: true });
      try {
        for (const text of texts) {
          const kind = kindOf(JSON.parse(text) as Record<string, unknown>) as EnvelopeKind;
          const copy = checkEnvelope(JSON.parse(text) as Record<string, unknown>, kind);
          const owned = checkEnvelope(JSON.parse(text) as Record<string, unknown>, kind, true);
          expect({ key, text, owned: owned && shape(owned) }).toEqual({ key, text, owned: copy && shape(copy) });
        }
      } finally {
        if (saved) Object.defineProperty(Object.prototype, key, saved);
        else delete (Object.prototype as Record<string, unknown>)[key];
      }
    }
  });
});
