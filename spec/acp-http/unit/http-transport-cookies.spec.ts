import { MemoryAcpCookieStore } from "@agentclientprotocol/sdk/experimental/http-client";
import {
  MemoryCookieStore,
  defaultCookieStore,
  headersFrom,
  type AcpCookieStore,
} from "../../../lib/acp-http/http-transport.js";

const response = (...setCookies: string[]): Headers => {
  const headers = new Headers();
  for (const line of setCookies) headers.append("set-cookie", line);
  return headers;
};

const cookieAfter = (store: AcpCookieStore, init?: HeadersInit): string | null => {
  const headers = new Headers(init);
  store.apply(headers);
  return headers.get("cookie");
};

describe("MemoryCookieStore", () => {
  it("keeps name=value of each Set-Cookie and sends them back joined by '; '", () => {
    const store = new MemoryCookieStore();
    store.store(response("lb=backend-3; Path=/; HttpOnly; Secure", "trace=abc=def; SameSite=Lax"));
    expect(cookieAfter(store)).toBe("lb=backend-3; trace=abc=def");
    expect(store.size).toBe(2);
  });

  it("a later Set-Cookie for the same name replaces the value; Max-Age=0 or a past Expires forgets it", () => {
    const store = new MemoryCookieStore();
    store.store(response("lb=one", "keep=1", "gone=x"));
    store.store(response("lb=two"));
    store.store(response("gone=; Max-Age=0"));
    expect(cookieAfter(store)).toBe("lb=two; keep=1");
    store.store(response("keep=; Expires=Thu, 01 Jan 1970 00:00:00 GMT"));
    expect(cookieAfter(store)).toBe("lb=two");
  });

  it("Max-Age wins over Expires; a future Expires keeps the cookie", () => {
    const store = new MemoryCookieStore();
    store.store(response("a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60", "b=2; Expires=Fri, 01 Jan 2100 00:00:00 GMT"));
    expect(cookieAfter(store)).toBe("a=1; b=2");
  });

  it("ignores lines without a name (no '=', or '=' first) instead of throwing", () => {
    const store = new MemoryCookieStore();
    store.store(response("novalue", "=orphan", "ok=1"));
    expect(cookieAfter(store)).toBe("ok=1");
  });

  it("leaves a caller's own Cookie header in place and does not send a name twice", () => {
    const store = new MemoryCookieStore();
    store.store(response("lb=server", "other=2"));
    expect(cookieAfter(store, { cookie: "lb=mine" })).toBe("lb=mine; other=2");
    expect(cookieAfter(new MemoryCookieStore(), { cookie: "lb=mine" })).toBe("lb=mine");
  });

  it("adds nothing while empty, and clear() empties it", () => {
    const store = new MemoryCookieStore();
    expect(cookieAfter(store)).toBeNull();
    store.store(response("lb=1"));
    store.clear();
    expect(cookieAfter(store)).toBeNull();
    expect(store.size).toBe(0);
  });

  it("splits joined Set-Cookie lines when getSetCookie is missing, commas inside Expires included", () => {
    const joined = new Headers({ "set-cookie": "a=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT, b=2" });
    Object.defineProperty(joined, "getSetCookie", { value: undefined });
    const store = new MemoryCookieStore();
    store.store(joined);
    expect(cookieAfter(store)).toBe("a=1; b=2");
  });

  it("never shows values in toString (they may be credentials)", () => {
    const store = new MemoryCookieStore();
    store.store(response("session=s3cr3t-value"));
    expect(String(store)).toBe("MemoryCookieStore(session)");
    expect(String(store)).not.toContain("s3cr3t");
  });

  it("takes a 101's headers as Node gives them (set-cookie as an array)", () => {
    const store = new MemoryCookieStore();
    store.store(headersFrom({ upgrade: "websocket", "set-cookie": ["lb=ws-1; Path=/", "x=y"], absent: undefined }));
    expect(cookieAfter(store)).toBe("lb=ws-1; x=y");
  });

  it("interchanges with the official SDK's MemoryAcpCookieStore (same methods, same result)", () => {
    const theirs: AcpCookieStore = new MemoryAcpCookieStore();
    const ours: AcpCookieStore = new MemoryCookieStore();
    for (const store of [theirs, ours]) store.store(response("lb=backend-3; Path=/", "t=1"));
    expect(cookieAfter(ours)).toBe(cookieAfter(theirs));
  });
});

describe("defaultCookieStore", () => {
  it("is an in-memory store in Node, none where a document (a browser) exists", () => {
    expect(defaultCookieStore()).toBeInstanceOf(MemoryCookieStore);
    const global = globalThis as { document?: unknown };
    global.document = {};
    try {
      expect(defaultCookieStore()).toBeUndefined();
    } finally {
      delete global.document;
    }
  });
});
