import { AcpInvalidHeaderError } from "../../../lib/acp-http/index.js";
import { assertHeaders, mergeHeaders } from "../../../lib/internal/http.js";
import { MAX_TIMER_MS, normalizeTimeout, startDeadline } from "../../../lib/internal/abort.js";
import { resolveToken } from "../../../lib/internal/http.js";
import { joinUrl, withQuery } from "../../../lib/internal/http.js";

describe("mergeHeaders", () => {
  it("treats names case-insensitively: ours win for content-type and accept, never joined", () => {
    const headers = mergeHeaders({
      user: { "Content-Type": "text/plain", Accept: "*/*", "X-Trace": "t1" },
      own: { "content-type": "application/json", accept: "application/json" },
    });
    expect(headers.get("content-type")).toBe("application/json");
    expect(headers.get("accept")).toBe("application/json");
    expect(headers.get("x-trace")).toBe("t1");
  });

  it("replaces a user Authorization when a token is given, keeps it when none is", () => {
    expect(mergeHeaders({ user: { Authorization: "Basic dTpw" }, token: "tok" }).get("authorization")).toBe("Bearer tok");
    expect(mergeHeaders({ user: { Authorization: "Basic dTpw" } }).get("authorization")).toBe("Basic dTpw");
  });

  it("accepts a Headers object or entry pairs as the user's set, and skips undefined own values", () => {
    expect(mergeHeaders({ user: new Headers({ "X-A": "1" }), own: { "x-b": undefined } }).get("x-a")).toBe("1");
    expect([...mergeHeaders({ user: [["X-A", "2"]] }).keys()]).toEqual(["x-a"]);
  });

  it("rejects CR or LF anywhere in a value, ends included (Headers would trim them silently)", () => {
    for (const value of ["a\r\nb", "trailing\r\n", "\nleading", "x\ry"]) {
      expect(() => mergeHeaders({ user: { "X-Evil": value } })).toThrow(AcpInvalidHeaderError);
      expect(() => assertHeaders({ "X-Evil": value })).toThrow(AcpInvalidHeaderError);
    }
    expect(() => mergeHeaders({ token: "tok\r\nX-Injected: 1" })).toThrow(AcpInvalidHeaderError);
  });

  it("never echoes the refused value in the error", () => {
    try {
      mergeHeaders({ user: { "X-Evil": "s3cret\r\nInjected: 1" } });
      throw new Error("expected a refusal");
    } catch (error) {
      expect(error).toBeInstanceOf(AcpInvalidHeaderError);
      expect(String((error as Error).message)).not.toContain("s3cret");
      expect((error as AcpInvalidHeaderError).header).toBe("X-Evil");
    }
  });
});

describe("resolveToken", () => {
  it("resolves strings and sync or async functions; empty means none", async () => {
    expect(await resolveToken("a")).toBe("a");
    expect(await resolveToken(() => "b")).toBe("b");
    expect(await resolveToken(async () => "c")).toBe("c");
    expect(await resolveToken(() => undefined)).toBeUndefined();
    expect(await resolveToken("")).toBeUndefined();
    expect(await resolveToken(undefined)).toBeUndefined();
  });
});

describe("joinUrl", () => {
  it("joins with exactly one slash and appends the query", () => {
    expect(joinUrl("http://h:1/", "/v1/acp")).toBe("http://h:1/v1/acp");
    expect(joinUrl("http://h:1/prefix//", "v1/fs/file", { path: "/a b", recursive: true, skip: undefined })).toBe(
      "http://h:1/prefix/v1/fs/file?path=%2Fa+b&recursive=true",
    );
    expect(withQuery("http://h/x?a=1", { b: 2 })).toBe("http://h/x?a=1&b=2");
    expect(withQuery("http://h/x", {})).toBe("http://h/x");
  });
});

describe("normalizeTimeout", () => {
  it("keeps ordinary deadlines and treats ≥ 2^31−1 or Infinity as none", () => {
    expect(normalizeTimeout(undefined)).toBeUndefined();
    expect(normalizeTimeout(0)).toBe(0);
    expect(normalizeTimeout(1500)).toBe(1500);
    expect(normalizeTimeout(MAX_TIMER_MS - 1)).toBe(MAX_TIMER_MS - 1);
    expect(normalizeTimeout(MAX_TIMER_MS)).toBeUndefined();
    expect(normalizeTimeout(2 ** 40)).toBeUndefined();
    expect(normalizeTimeout(Infinity)).toBeUndefined();
  });

  it("throws a TypeError for negatives and NaN", () => {
    expect(() => normalizeTimeout(-1)).toThrow(TypeError);
    expect(() => normalizeTimeout(Number.NaN)).toThrow(TypeError);
    expect(() => normalizeTimeout(-Infinity)).toThrow(TypeError);
  });

  it("starts no timer for a deadline too long for one (it would fire at once)", async () => {
    let fired = 0;
    const cancel = startDeadline(Infinity, () => fired++);
    const cancelHuge = startDeadline(2 ** 32, () => fired++);
    await new Promise((resolve) => setTimeout(resolve, 20));
    cancel();
    cancelHuge();
    expect(fired).toBe(0);
  });
});
