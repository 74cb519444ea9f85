import { readExtensions, readSandboxMeta, safeCopy, SANDBOX_META_KEY, splitListedMetadata, withSandboxMeta } from "../../../lib/sandbox/metadata.js";

/** A JSON text with hostile keys, parsed so that `__proto__` is an own property (as off the wire). */
const HOSTILE = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"},"title":"ok"}';

function hostile(): Record<string, unknown> {
  return JSON.parse(HOSTILE) as Record<string, unknown>;
}

function expectNoPollution(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")).toBe(false);
}

function expectNoHostileKeys(value: Record<string, unknown>): void {
  for (const key of ["__proto__", "constructor", "prototype"]) expect(Object.prototype.hasOwnProperty.call(value, key)).toBe(false);
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

afterEach(() => expectNoPollution());

describe("safeCopy", () => {
  it("copies own keys shallowly into a fresh object", () => {
    const nested = { a: 1 };
    const source = { x: 1, nested };
    const copy = safeCopy(source);
    expect(copy).toEqual(source);
    expect(copy).not.toBe(source);
    expect(copy.nested).toBe(nested);
  });

  it("gives an empty object for non-objects and arrays", () => {
    for (const value of [undefined, null, 3, "s", true, [1, 2]]) expect(safeCopy(value)).toEqual({});
  });

  it("drops __proto__, constructor and prototype keys from parsed JSON", () => {
    const source = hostile();
    expect(Object.prototype.hasOwnProperty.call(source, "__proto__")).toBe(true);
    const copy = safeCopy(source);
    expect(copy).toEqual({ title: "ok" });
    expectNoHostileKeys(copy);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe("withSandboxMeta", () => {
  it("puts metadata into the sandbox namespace of a fresh _meta", () => {
    expect(withSandboxMeta(undefined, { title: "t", variant: "v", agent: "mock" })).toEqual({ [SANDBOX_META_KEY]: { title: "t", variant: "v", agent: "mock" } });
  });

  it("leaves no namespace when there is nothing to put", () => {
    expect(withSandboxMeta(undefined, undefined)).toEqual({});
    expect(withSandboxMeta({ other: 1 }, {})).toEqual({ other: 1 });
  });

  it("merges into an existing namespace, new values winning, other namespaces kept", () => {
    const meta = deepFreeze({ "other.dev": { keep: true }, [SANDBOX_META_KEY]: { title: "old", model: "m1" } });
    const metadata = deepFreeze({ title: "new", permissionMode: "plan" });
    const out = withSandboxMeta(meta, metadata);
    expect(out).toEqual({ "other.dev": { keep: true }, [SANDBOX_META_KEY]: { title: "new", model: "m1", permissionMode: "plan" } });
    expect(meta).toEqual({ "other.dev": { keep: true }, [SANDBOX_META_KEY]: { title: "old", model: "m1" } });
    expect(metadata).toEqual({ title: "new", permissionMode: "plan" });
  });

  it("does not mutate unfrozen inputs either", () => {
    const namespace = { title: "old" };
    const meta = { [SANDBOX_META_KEY]: namespace };
    const metadata = { variant: "x" };
    const out = withSandboxMeta(meta, metadata);
    expect(namespace).toEqual({ title: "old" });
    expect(meta[SANDBOX_META_KEY]).toBe(namespace);
    expect(out[SANDBOX_META_KEY]).not.toBe(namespace);
    expect(metadata).toEqual({ variant: "x" });
  });

  it("drops hostile keys at both levels", () => {
    const meta = JSON.parse(`{"__proto__":{"polluted":"yes"},"${SANDBOX_META_KEY}":${HOSTILE}}`) as unknown;
    const out = withSandboxMeta(meta, hostile());
    expectNoHostileKeys(out);
    const namespace = out[SANDBOX_META_KEY] as Record<string, unknown>;
    expect(namespace).toEqual({ title: "ok" });
    expectNoHostileKeys(namespace);
  });
});

describe("readSandboxMeta", () => {
  it("reads the namespace as a copy", () => {
    const namespace = { title: "t", skills: ["a"] };
    const read = readSandboxMeta({ [SANDBOX_META_KEY]: namespace, other: 1 });
    expect(read).toEqual(namespace);
    expect(read).not.toBe(namespace);
  });

  it("is empty when absent or malformed", () => {
    for (const meta of [undefined, null, 1, {}, { [SANDBOX_META_KEY]: "str" }, { [SANDBOX_META_KEY]: [1] }]) expect(readSandboxMeta(meta)).toEqual({});
  });

  it("drops hostile keys", () => {
    const read = readSandboxMeta(JSON.parse(`{"${SANDBOX_META_KEY}":${HOSTILE}}`) as unknown);
    expect(read).toEqual({ title: "ok" });
    expectNoHostileKeys(read);
  });
});

describe("splitListedMetadata", () => {
  it("separates runtime-maintained fields of the right type", () => {
    const meta = deepFreeze({
      [SANDBOX_META_KEY]: { title: "t", variant: "v", agent: "mock", createdAt: 1, updatedAt: 2, ended: false, eventCount: 7, model: "m" },
    });
    const { metadata, runtime } = splitListedMetadata(meta);
    expect(runtime).toEqual({ agent: "mock", createdAt: 1, updatedAt: 2, ended: false, eventCount: 7, model: "m" });
    expect(metadata).toEqual({ title: "t", variant: "v", agent: "mock", createdAt: 1, updatedAt: 2, ended: false, eventCount: 7, model: "m" });
  });

  it("ignores runtime fields of the wrong type", () => {
    const { runtime } = splitListedMetadata({ [SANDBOX_META_KEY]: { agent: 1, createdAt: "x", ended: "no", eventCount: null, model: 3 } });
    expect(runtime).toEqual({});
  });

  it("drops hostile keys", () => {
    const { metadata, runtime } = splitListedMetadata(JSON.parse(`{"${SANDBOX_META_KEY}":${HOSTILE}}`) as unknown);
    expect(metadata).toEqual({ title: "ok" });
    expectNoHostileKeys(metadata);
    expectNoHostileKeys(runtime as Record<string, unknown>);
  });
});

describe("readExtensions", () => {
  it("reads boolean flags and string methods", () => {
    const capabilities = {
      _meta: { [SANDBOX_META_KEY]: { extensions: { sessionDetach: true, sessionSetMetadata: false, notAFlag: "yes", methods: ["a", 3, "b"] } } },
    };
    expect(readExtensions(capabilities)).toEqual({ flags: { sessionDetach: true, sessionSetMetadata: false }, methods: ["a", "b"] });
  });

  it("is empty without an advertisement", () => {
    for (const value of [undefined, null, {}, { _meta: {} }, { _meta: { [SANDBOX_META_KEY]: {} } }]) {
      expect(readExtensions(value)).toEqual({ flags: {}, methods: [] });
    }
  });

  it("drops hostile keys from the advertisement", () => {
    const capabilities = JSON.parse(
      `{"_meta":{"${SANDBOX_META_KEY}":{"extensions":{"__proto__":true,"constructor":true,"prototype":true,"fsStat":true,"methods":[]}}}}`,
    ) as unknown;
    const { flags } = readExtensions(capabilities);
    expect(flags).toEqual({ fsStat: true });
    expectNoHostileKeys(flags);
  });
});
