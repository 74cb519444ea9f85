import { inspect } from "node:util";
import { AcpHttpClient, AcpInvalidHeaderError } from "../../../lib/acp-http/index.js";
import { FakeAcpServer, bodyOf, networkFailure, never, problemResponse, rpcResult } from "../../support/fake-acp-server.js";
import { BASE_URL, PROMPT, bootstrap, createHarness, disconnectAll, settle } from "./client-harness.js";

afterEach(disconnectAll);

const SECRET = "tok_Sup3rSecret-value";

/** Everything an error could show: message, string form, JSON, the inspected object with its cause chain. */
function everythingShown(error: unknown): string {
  const parts = [String(error), inspect(error, { depth: 5 })];
  if (error instanceof Error) parts.push(error.message, JSON.stringify(error), error.stack ?? "");
  let cause = error instanceof Error ? error.cause : undefined;
  while (cause !== undefined) {
    parts.push(String(cause), inspect(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join("\n");
}

describe("AcpHttpClient authorization", () => {
  it("sends a string token as Authorization: Bearer on POST, GET and DELETE", async () => {
    const h = createHarness({ token: SECRET });
    await bootstrap(h);
    await h.client.disconnect();
    const methods = h.server.requests.map((request) => request.method);
    expect(methods).toEqual(["POST", "GET", "DELETE"]);
    for (const request of h.server.requests) expect(request.headers.get("authorization")).toBe(`Bearer ${SECRET}`);
  });

  it("reads the headers option once: a change to that object afterwards reaches no request, POST or GET", async () => {
    const headers: Record<string, string> = { "x-api-key": "k1" };
    const h = createHarness({ headers });
    const stream = await bootstrap(h);
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, {});
    headers["x-api-key"] = "k2";
    await h.client.request("_ext/one");
    stream.end();
    await h.server.stream(2);
    await h.client.request("_ext/two");
    const sent = h.server.requests.map((request) => `${request.method} ${request.headers.get("x-api-key")}`);
    expect(sent).toEqual(["POST k1", "GET k1", "POST k1", "GET k1", "POST k1"]);
  });

  it("asks a token function before every request, so a rotated token is used from the next call on", async () => {
    let current = "alpha";
    let asked = 0;
    const h = createHarness({
      token: async () => {
        asked++;
        await Promise.resolve();
        return current;
      },
    });
    const stream = await bootstrap(h);
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, {});
    current = "beta";
    await h.client.request("_ext/one");
    stream.end();
    const second = await h.server.stream(2);
    current = "gamma";
    await h.client.request("_ext/two");

    const posts = h.server.requestsOf("POST").map((request) => request.headers.get("authorization"));
    expect(posts).toEqual(["Bearer alpha", "Bearer beta", "Bearer gamma"]);
    expect(h.server.streams[0]?.request.headers.get("authorization")).toBe("Bearer alpha");
    expect(second.request.headers.get("authorization")).toBe("Bearer beta");
    expect(asked).toBe(5);
  });

  it("sends no Authorization header when the token function has none", async () => {
    const h = createHarness({ token: () => undefined });
    await bootstrap(h);
    for (const request of h.server.requests) expect(request.headers.has("authorization")).toBe(false);
  });

  it("never shows the token in an error or a log line", async () => {
    const h = createHarness({ token: SECRET, closeTimeoutMs: 20 });
    await bootstrap(h);
    const errors: unknown[] = [];
    const failure = (promise: Promise<unknown>) => promise.then(() => errors.push(new Error("expected a failure")), (error: unknown) => errors.push(error));

    h.server.onPost = () => networkFailure("socket hang up");
    await failure(h.client.prompt(PROMPT));
    h.server.onPost = () => never();
    await failure(h.client.prompt(PROMPT, { timeoutMs: 5 }));
    await failure(h.client.prompt(PROMPT, { signal: AbortSignal.timeout(5) }));
    const pending = h.client.prompt(PROMPT);
    h.server.onGet = () => problemResponse(401, { title: "Token Invalid", status: 401 });
    (await h.server.stream(1)).end();
    await failure(pending);
    await failure(h.client.prompt(PROMPT));

    // A refused POST closes its connection as unauthorized; the error carries the 401 as its cause.
    const refused = createHarness({ token: SECRET, closeTimeoutMs: 20 });
    await bootstrap(refused);
    refused.server.onPost = () => problemResponse(401, { title: "Token Invalid", status: 401, detail: "token invalid" });
    await failure(refused.client.prompt(PROMPT));

    const names = errors.map((error) => (error as Error).name);
    expect(names).toEqual(["AcpNetworkError", "AcpTimeoutError", "AbortError", "AcpConnectionClosedError", "AcpConnectionClosedError", "AcpConnectionClosedError"]);
    expect(((errors[5] as Error).cause as Error).name).toBe("AcpHttpError");
    for (const error of errors) expect(everythingShown(error)).not.toContain(SECRET);
    expect(h.logs.length).toBeGreaterThan(0);
    for (const line of [...h.logs, ...refused.logs]) expect(inspect(line, { depth: 5 })).not.toContain(SECRET);
  });
});

describe("AcpHttpClient header values", () => {
  it.each([
    ["a CR LF in a header value", { "x-trace": "abc\r\nInjected: yes" }],
    ["a lone LF in a header value", { "x-trace": "abc\nInjected: yes" }],
    ["a CR in a header name", { "x-trace\r": "abc" }],
  ])("refuses %s when the client is created, before any fetch", (_name, headers) => {
    const server = new FakeAcpServer();
    let fetches = 0;
    const fetch: typeof globalThis.fetch = (input, init) => {
      fetches++;
      return server.fetch(input, init);
    };
    expect(() => new AcpHttpClient({ baseUrl: BASE_URL, fetch, headers })).toThrow(AcpInvalidHeaderError);
    expect(fetches).toBe(0);
  });

  it("names the header but never echoes its value", () => {
    const error = (() => {
      try {
        new AcpHttpClient({ baseUrl: BASE_URL, headers: { "x-api-key": `${SECRET}\r\nX: y` } });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(AcpInvalidHeaderError);
    expect((error as AcpInvalidHeaderError).header).toBe("x-api-key");
    expect(everythingShown(error)).not.toContain(SECRET);
  });

  it.each([
    ["a token with CR LF", { token: `${SECRET}\r\nX-Injected: 1` }],
    ["a token function returning a LF", { token: async () => `${SECRET}\nX-Injected: 1` }],
    ["a resumed connection id with a LF", { connectionId: "acp_conn_1\nX-Injected: 1" }],
  ])("rejects a request with AcpInvalidHeaderError before any fetch for %s", async (_name, options) => {
    const h = createHarness(options);
    const error = await h.client.initialize().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AcpInvalidHeaderError);
    expect(everythingShown(error)).not.toContain(SECRET);
    await settle();
    expect(h.server.requests).toEqual([]);
  });
});
