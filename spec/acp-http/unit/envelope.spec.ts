import {
  idKey,
  isErrorResponse,
  isNotification,
  isRequest,
  isResponse,
  parseEnvelope,
  validateEnvelope,
  type AcpEnvelope,
} from "../../../lib/acp-http/envelope.js";

function parsed(text: string): AcpEnvelope {
  const result = parseEnvelope(text);
  if (!result.ok) throw new Error(`expected an envelope, got: ${result.error}`);
  return result.envelope;
}

function failure(text: string): string {
  const result = parseEnvelope(text);
  if (result.ok) throw new Error(`expected a failure for ${text}`);
  return result.error;
}

describe("parseEnvelope", () => {
  it("reads a request", () => {
    const envelope = parsed('{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}');
    expect(envelope).toEqual({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: "s1", prompt: [] } });
    expect(isRequest(envelope)).toBe(true);
    expect(isNotification(envelope)).toBe(false);
    expect(isResponse(envelope)).toBe(false);
  });

  it.each([
    ["a string id", '"agent-req-1"', "agent-req-1"],
    ["a null id", "null", null],
    ["a large numeric id", "9007199254740991", 9007199254740991],
  ])("reads a request with %s", (_name, idText, id) => {
    const envelope = parsed(`{"jsonrpc":"2.0","id":${idText},"method":"fs/read_text_file"}`);
    expect(isRequest(envelope) && envelope.id).toBe(id);
  });

  it("reads a notification, with params as an object or an array", () => {
    const withObject = parsed('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1"}}');
    const withArray = parsed('{"jsonrpc":"2.0","method":"_ext/ping","params":[1,2]}');
    const bare = parsed('{"jsonrpc":"2.0","method":"_ext/ping"}');
    for (const envelope of [withObject, withArray, bare]) {
      expect(isNotification(envelope)).toBe(true);
      expect(isRequest(envelope)).toBe(false);
    }
    expect(withArray).toEqual({ jsonrpc: "2.0", method: "_ext/ping", params: [1, 2] });
  });

  it("reads a result, null and falsy results included", () => {
    for (const [text, result] of [
      ['{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}', { stopReason: "end_turn" }],
      ['{"jsonrpc":"2.0","id":1,"result":null}', null],
      ['{"jsonrpc":"2.0","id":1,"result":0}', 0],
    ] as const) {
      const envelope = parsed(text);
      expect(isResponse(envelope)).toBe(true);
      expect(isResponse(envelope) && !isErrorResponse(envelope) && envelope.result).toEqual(result);
    }
  });

  it("reads an error response with its data", () => {
    const envelope = parsed('{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found","data":{"method":"nope"}}}');
    expect(isResponse(envelope) && isErrorResponse(envelope)).toBe(true);
    expect(envelope).toEqual({ jsonrpc: "2.0", id: "x", error: { code: -32601, message: "Method not found", data: { method: "nope" } } });
  });

  it("keeps fields it does not know (extensions, _meta)", () => {
    const envelope = parsed('{"jsonrpc":"2.0","method":"session/update","params":{"_meta":{"k":1}},"extra":true}');
    expect(envelope).toMatchObject({ extra: true, params: { _meta: { k: 1 } } });
  });

  it("reports invalid JSON without throwing", () => {
    expect(failure("{not json")).toMatch(/^invalid JSON: /);
    expect(failure("")).toMatch(/^invalid JSON: /);
    expect(failure('{"jsonrpc":"2.0","id":1,"result":1')).toMatch(/^invalid JSON: /);
  });

  it.each([["42"], ["null"], ["[1]"], ['"text"'], ["true"], ['[{"jsonrpc":"2.0","method":"x"}]']])("refuses JSON that is not an object: %s", (text) => {
    expect(failure(text)).toBe("not a JSON-RPC object");
  });

  it("refuses an object that is neither request, notification nor response", () => {
    expect(failure('{"no":1}')).toBe("not a JSON-RPC request, notification or response");
    expect(failure('{"jsonrpc":"2.0","id":1}')).toBe("not a JSON-RPC request, notification or response");
  });

  it.each([
    ["version 1.0", '{"jsonrpc":"1.0","id":1,"result":{}}'],
    ["no version", '{"id":1,"method":"x"}'],
    ["a numeric version", '{"jsonrpc":2,"method":"x"}'],
    ["a non-string method", '{"jsonrpc":"2.0","id":1,"method":5}'],
    ["an object id", '{"jsonrpc":"2.0","id":{"a":1},"method":"x"}'],
    ["params that are a string", '{"jsonrpc":"2.0","method":"x","params":"p"}'],
    ["an error without a code", '{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}'],
    ["a fractional error code", '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}'],
  ])("refuses an envelope with %s", (_name, text) => {
    expect(failure(text)).toMatch(/^invalid JSON-RPC envelope: /);
  });

  it("names the offending field in the error", () => {
    expect(failure('{"jsonrpc":"2.0","id":1,"method":5}')).toContain("method");
  });

  it("does not let __proto__ keys reach Object.prototype or the envelope's prototype", () => {
    const texts = [
      '{"jsonrpc":"2.0","method":"x","params":{"__proto__":{"polluted":"params"}}}',
      '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":"result"}}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","__proto__":{"polluted":"top","method":"y"}}',
      '{"__proto__":{"method":"x","id":1},"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","__proto__":{"polluted":"error"}}}',
      '{"jsonrpc":"2.0","method":"x","params":{"constructor":{"prototype":{"polluted":"ctor"}}}}',
    ];
    const results = texts.map((text) => parseEnvelope(text));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(Object.prototype).not.toHaveProperty("method");
    for (const result of results) {
      if (!result.ok) continue;
      expect(Object.getPrototypeOf(result.envelope)).toBe(Object.prototype);
      expect((result.envelope as Record<string, unknown>).polluted).toBeUndefined();
    }
    // A top-level __proto__ does not make an envelope out of nothing.
    expect(results[3]?.ok).toBe(false);
    // The method comes from the envelope's own field, not from a smuggled prototype.
    expect(results[2]?.ok && isRequest(results[2].envelope) && results[2].envelope.method).toBe("x");
  });
});

describe("validateEnvelope", () => {
  it("checks an already-parsed value the same way", () => {
    expect(validateEnvelope({ jsonrpc: "2.0", method: "x" })).toEqual({ ok: true, envelope: { jsonrpc: "2.0", method: "x" } });
    expect(validateEnvelope(undefined)).toEqual({ ok: false, error: "not a JSON-RPC object" });
  });
});

describe("idKey", () => {
  it("keeps ids of different JSON types apart", () => {
    expect(new Set([idKey(8), idKey("8"), idKey(null), idKey("null")]).size).toBe(4);
    expect(idKey(8)).toBe(idKey(8));
  });
});
