/** Wire-level behaviour pinned against the fake server: headers, timeouts, POST-body answers, stalls, cursors. */
import { AcpRpcError, AcpTimeoutError, isResponse } from "../../../lib/acp-http/index.js";
import { bodyOf, jsonResponse, never, rpcResult, sseEvent } from "../../support/fake-acp-server.js";
import { bootstrap, createHarness, disconnectAll, settle } from "./client-harness.js";

afterEach(disconnectAll);

const SECRET = "tok_Sup3rSecret-value";

describe("header merge", () => {
  it("sends one content-type and one accept even when the user set them in another case", async () => {
    const h = createHarness({ headers: { "Content-Type": "text/plain", Accept: "text/html", "X-Trace": "t1" } });
    await bootstrap(h);
    const post = h.server.requestsOf("POST")[0];
    expect(post?.headers.get("content-type")).toBe("application/json");
    expect(post?.headers.get("accept")).toBe("application/json");
    expect(post?.headers.get("x-trace")).toBe("t1");
    expect(h.server.streams[0]?.request.headers.get("accept")).toBe("text/event-stream");
  });

  it("replaces a user Authorization (any case) with the token's", async () => {
    const h = createHarness({ headers: { Authorization: "Basic dTpw" }, token: SECRET });
    await bootstrap(h);
    await h.client.disconnect();
    for (const request of h.server.requests) expect(request.headers.get("authorization")).toBe(`Bearer ${SECRET}`);
  });
});

describe("timeoutMs normalised", () => {
  it("a request with timeoutMs Infinity or 2^32 waits for its answer instead of timing out at once", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return rpcResult(bodyOf(request).id, { ok: true });
    };
    await expect(h.client.request("_ext/slow", {}, { timeoutMs: Infinity })).resolves.toEqual({ ok: true });
    await expect(h.client.request("_ext/slow", {}, { timeoutMs: 2 ** 32 })).resolves.toEqual({ ok: true });
  });

  it("a negative or NaN timeoutMs is a TypeError and sends nothing", async () => {
    const h = createHarness();
    await bootstrap(h);
    const before = h.server.requestsOf("POST").length;
    await expect(h.client.request("_ext/x", {}, { timeoutMs: -1 })).rejects.toThrow(TypeError);
    await expect(h.client.request("_ext/x", {}, { timeoutMs: Number.NaN })).rejects.toThrow(TypeError);
    await settle();
    expect(h.server.requestsOf("POST").length).toBe(before);
  });

  it("an ordinary timeoutMs still times out", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = () => never();
    await expect(h.client.request("_ext/hang", {}, { timeoutMs: 20 })).rejects.toBeInstanceOf(AcpTimeoutError);
  });
});

describe("a POST body answering with a null id", () => {
  const parseError = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };

  it("200 {id: null, error} rejects the request it answered, and a second one is delivered too", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = () => jsonResponse(parseError);
    const first = h.client.request("_ext/one", {}, { timeoutMs: 5000 });
    await expect(first).rejects.toBeInstanceOf(AcpRpcError);
    await expect(first).rejects.toMatchObject({ code: -32700 });
    await expect(h.client.request("_ext/two", {}, { timeoutMs: 5000 })).rejects.toMatchObject({ code: -32700 });
    const nullErrors = h.envelopes.filter((e) => isResponse(e) && e.id === null);
    expect(nullErrors).toHaveLength(2);
  });

  it("null-id errors on the stream are each delivered (none remembered as 'already delivered')", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    stream.push(sseEvent({ id: "1", data: JSON.stringify(parseError) }));
    stream.push(sseEvent({ id: "2", data: JSON.stringify(parseError) }));
    await settle(20);
    expect(h.envelopes.filter((e) => isResponse(e) && e.id === null)).toHaveLength(2);
  });

  it("an answer to an agent request does not settle one of ours that happens to share its id", async () => {
    const h = createHarness({ handlers: {} });
    const stream = await bootstrap(h);
    h.server.onPost = (request) => (bodyOf(request).method === undefined ? jsonResponse(parseError) : never());
    const ours = h.client.request("_ext/ours", {}, { timeoutMs: 300 });
    stream.push(sseEvent({ id: "1", data: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "_agent/ask", params: {} }) }));
    await expect(ours).rejects.toBeInstanceOf(AcpTimeoutError);
  });
});

describe("a slow subscriber is not a stalled server", () => {
  it("a 25 ms-per-envelope envelopes$ subscriber under a 100 ms stall timeout never causes reconnecting", async () => {
    const h = createHarness({ reconnect: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetries: 3, stallTimeoutMs: 100 } });
    const states: string[] = [];
    h.client.state$.subscribe((state) => states.push(state));
    const stream = await bootstrap(h);
    let handled = 0;
    h.client.envelopes$.subscribe(() => {
      const end = performance.now() + 25;
      while (performance.now() < end) {
        // Synchronous work per envelope (a UI render, a database write).
      }
      handled++;
    });
    const update = (n: number) => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", n } });
    stream.push(Array.from({ length: 12 }, (_, i) => sseEvent({ id: String(i + 1), data: update(i) })).join(""));
    for (let i = 0; i < 200 && handled < 12; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    // The server stays silent for 40 ms after we were done, well within its 100 ms, then sends a heartbeat.
    await new Promise((resolve) => setTimeout(resolve, 40));
    stream.push(": heartbeat\n\n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(handled).toBe(12);
    expect(states).not.toContain("reconnecting");
    expect(h.server.streams).toHaveLength(1);
  });
});

describe("event ids through the client: opaque ids per profile, cursor advances, cursor after close", () => {
  const note = (n: number) => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", n } });

  it("contiguousEventIds false (the RFD profile's): ids 10, 20, 30 open no new GET and report no gap", async () => {
    const h = createHarness({ contiguousEventIds: false });
    const gaps: unknown[] = [];
    h.client.gaps$.subscribe((gap) => gaps.push(gap));
    const stream = await bootstrap(h);
    for (const id of ["10", "20", "30"]) stream.push(sseEvent({ id, data: note(Number(id)) }));
    await settle(20);
    expect(h.envelopes.filter((e) => "method" in e && e.method === "session/update")).toHaveLength(3);
    expect(gaps).toEqual([]);
    expect(h.server.streams).toHaveLength(1);
  });

  it("the default (contiguous) still reopens from the cursor on a skipped id", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    stream.push(sseEvent({ id: "1", data: note(1) }) + sseEvent({ id: "3", data: note(3) }));
    await h.server.stream(2);
    expect(h.server.streams[1]?.request.headers.get("last-event-id")).toBe("1");
  });

  it("onCursor reports each advance of the connection stream, and lastEventId stays readable after disconnect", async () => {
    const advances: unknown[] = [];
    const h = createHarness({ contiguousEventIds: false, onCursor: (advance) => advances.push(advance) });
    const stream = await bootstrap(h);
    stream.push(sseEvent({ id: "a7", data: note(1) }) + sseEvent({ id: "b9", data: note(2) }));
    await settle(20);
    expect(advances).toEqual([
      { stream: "connection", lastEventId: "a7" },
      { stream: "connection", lastEventId: "b9" },
    ]);
    await h.client.disconnect();
    expect(h.client.lastEventId).toBe("b9");
  });
});
