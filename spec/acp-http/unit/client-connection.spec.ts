import { jest } from "@jest/globals";
import { firstValueFrom, toArray } from "rxjs";
import { AcpConnectionClosedError, AcpHttpError, isResponse, type AcpConnectionState, type AcpParseError, type EventGap } from "../../../lib/acp-http/index.js";
import { bodyOf, jsonResponse, networkFailure, never, problemResponse, rpcResult, type FakeSseStream } from "../../support/fake-acp-server.js";
import { CONNECTION_ID, PROMPT, bootstrap, createHarness, disconnectAll, idOf, notification, result, settle, watch, type Harness, advance, useFakeClock } from "./client-harness.js";

afterEach(async () => {
  jest.useRealTimers();
  await disconnectAll();
});


/** The texts of the `session/update` chunks delivered so far, in order. */
function chunks(h: Harness): string[] {
  return h.envelopes.flatMap((envelope) => {
    if (isResponse(envelope) || envelope.method !== "session/update") return [];
    const params = envelope.params as { update: { content: { text: string } } };
    return [params.update.content.text];
  });
}

function recordStates(h: Harness): { states: AcpConnectionState[]; completed: () => boolean } {
  const states: AcpConnectionState[] = [];
  let completed = false;
  h.client.state$.subscribe({ next: (state) => states.push(state), complete: () => (completed = true) });
  return { states, completed: () => completed };
}

const NOT_FOUND = { type: "urn:sandbox-agent:error:client_not_found", title: "ACP client not found", status: 404 };

describe("AcpHttpClient connection lifecycle", () => {
  it("moves idle → connecting → open → reconnecting → open → closed, and completes state$", async () => {
    const h = createHarness();
    const { states, completed } = recordStates(h);
    expect(states).toEqual(["idle"]);
    const stream = await bootstrap(h);
    expect(states).toEqual(["idle", "connecting", "open"]);
    stream.send(1, notification(1));
    stream.end();
    await h.server.stream(2);
    await settle();
    expect(states).toEqual(["idle", "connecting", "open", "reconnecting", "open"]);
    await h.client.disconnect();
    expect(states).toEqual(["idle", "connecting", "open", "reconnecting", "open", "closed"]);
    expect(completed()).toBe(true);
    expect(h.client.state).toBe("closed");
  });

  it("disconnect() rejects pending requests, completes the streams, sends one DELETE and fails every later call at once", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    const { states } = recordStates(h);
    h.server.onPost = () => never();
    h.server.onDelete = () => problemResponse(404, NOT_FOUND);
    const pending = h.client.prompt(PROMPT);
    const post = await h.server.request("POST", 2);
    const envelopesDone = firstValueFrom(h.client.envelopes$.pipe(toArray()));
    const parseErrorsDone = firstValueFrom(h.client.parseErrors$.pipe(toArray()));
    const gapsDone = firstValueFrom(h.client.gaps$.pipe(toArray()));

    await expect(h.client.disconnect()).resolves.toBeUndefined();

    const error = await pending.catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(AcpConnectionClosedError);
    expect(error).toMatchObject({ reason: "disconnected", method: "session/prompt" });
    await expect(envelopesDone).resolves.toEqual([]);
    await expect(parseErrorsDone).resolves.toEqual([]);
    await expect(gapsDone).resolves.toEqual([]);
    expect(states.at(-1)).toBe("closed");
    await expect(h.client.closed).resolves.toEqual({ reason: "disconnected" });
    expect(post.signal.aborted).toBe(true);
    expect(stream.isOpen).toBe(false);

    const deletes = h.server.requestsOf("DELETE");
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.headers.get("x-acp-connection-id")).toBe(CONNECTION_ID);
    expect(deletes[0]?.url.pathname).toBe("/v2/rpc");

    await h.client.disconnect();
    expect(h.server.requestsOf("DELETE")).toHaveLength(1);

    const sent = h.server.requests.length;
    for (const call of [() => h.client.prompt(PROMPT), () => h.client.request("_ext/x"), () => h.client.cancel({ sessionId: "s1" })]) {
      const later = watch(call());
      await settle(1);
      expect(later.error).toBeInstanceOf(AcpConnectionClosedError);
      expect(later.error).toMatchObject({ reason: "disconnected" });
    }
    await expect(firstValueFrom(h.client.request$("_ext/x"))).rejects.toBeInstanceOf(AcpConnectionClosedError);
    await settle();
    expect(h.server.requests).toHaveLength(sent);
  });

  it("disconnect() gives up on a DELETE that hangs, after closeTimeoutMs", async () => {
    const h = createHarness({ closeTimeoutMs: 30 });
    await bootstrap(h);
    h.server.onDelete = () => never();
    const started = Date.now();
    await h.client.disconnect();
    expect(Date.now() - started).toBeLessThan(2000);
    const [deleteRequest] = h.server.requestsOf("DELETE");
    expect(deleteRequest?.signal.aborted).toBe(true);
  });

  it("disconnect() sends no DELETE when no POST ever succeeded", async () => {
    const h = createHarness();
    await h.client.disconnect();
    expect(h.server.requests).toEqual([]);
    expect(h.client.state).toBe("closed");
  });

  it("disconnect() delivers an inline response that was still waiting for its stream copy", async () => {
    const h = createHarness({ responseEcho: true });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, bodyOf(request).method === "initialize" ? { protocolVersion: 1 } : { stopReason: "end_turn" });
    const initialize = h.client.initialize();
    const stream = await h.server.stream(1);
    stream.send(1, result(1, { protocolVersion: 1 }));
    await initialize;
    const prompt = h.client.prompt(PROMPT);
    await h.server.request("POST", 2);
    await settle();
    await h.client.disconnect();
    await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
  });

  it("a 404 after bootstrap closes the connection and rejects every pending request with AcpConnectionClosedError", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    h.server.onPost = () => never();
    const pending = h.client.prompt(PROMPT);
    await h.server.request("POST", 2);
    h.server.onPost = () => problemResponse(404, NOT_FOUND);
    const refused = h.client.request("_ext/x");

    const [first, second] = await Promise.allSettled([pending, refused]);
    for (const [outcome, method] of [
      [first, "session/prompt"],
      [second, "_ext/x"],
    ] as const) {
      expect(outcome?.status).toBe("rejected");
      const reason = outcome?.status === "rejected" ? (outcome.reason as unknown) : undefined;
      expect(reason).toBeInstanceOf(AcpConnectionClosedError);
      expect(reason).toMatchObject({ reason: "connection-lost", method });
      expect((reason as Error).cause).toBeInstanceOf(AcpHttpError);
    }
    const info = await h.client.closed;
    expect(info.reason).toBe("connection-lost");
    expect(info.error).toBeInstanceOf(AcpConnectionClosedError);
    expect(h.client.state).toBe("closed");
    expect(stream.isOpen).toBe(false);
    // The server already forgot this connection: there is nothing to DELETE.
    expect(h.server.requestsOf("DELETE")).toHaveLength(0);
    await expect(h.client.prompt(PROMPT)).rejects.toMatchObject({ name: "AcpConnectionClosedError", reason: "connection-lost" });
  });

  it("a notification refused with 404 after bootstrap rejects as connection lost instead of resolving", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = () => problemResponse(404, NOT_FOUND);
    await expect(h.client.cancel({ sessionId: "s1" })).rejects.toMatchObject({ name: "AcpConnectionClosedError", reason: "connection-lost" });
    expect(h.client.state).toBe("closed");
  });

  it("a notification the server holds open is released by disconnect() and rejects", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = () => never();
    const held = h.client.cancel({ sessionId: "s1" });
    await h.server.request("POST", 2);
    await h.client.disconnect();
    await expect(held).rejects.toMatchObject({ name: "AcpConnectionClosedError", reason: "disconnected" });
  });

  it("a 404 on the very first POST fails that request with its HTTP error, not as a lost connection", async () => {
    const h = createHarness();
    h.server.onPost = () => problemResponse(404, { title: "Agent Not Installed", status: 404 });
    await expect(h.client.request("_vendor/probe")).rejects.toMatchObject({ name: "AcpHttpError", status: 404 });
    expect(h.client.state).not.toBe("closed");
  });
});

describe("AcpHttpClient event stream", () => {
  it.each<[string, (stream: FakeSseStream) => void]>([
    ["ends cleanly", (stream) => stream.end()],
    ["fails mid-read", (stream) => stream.error()],
  ])("reconnects with Last-Event-ID after the stream %s and drops the replayed frames", async (_name, drop) => {
    const h = createHarness();
    const stream = await bootstrap(h);
    for (const id of [1, 2, 3]) stream.send(id, notification(id));
    await settle();
    drop(stream);
    const second = await h.server.stream(2);
    expect(second.request.headers.get("last-event-id")).toBe("3");
    expect(second.request.headers.get("x-acp-connection-id")).toBe(CONNECTION_ID);
    for (const id of [2, 3, 4]) second.send(id, notification(id));
    await settle();
    expect(chunks(h)).toEqual(["chunk 1", "chunk 2", "chunk 3", "chunk 4"]);
    expect(h.client.lastEventId).toBe("4");
  });

  it("reopens at once from the last contiguous id when ids skip mid-stream", async () => {
    // A long backoff proves the reopen does not wait for it.
    const h = createHarness({ reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0 } });
    const stream = await bootstrap(h);
    const { states } = recordStates(h);
    const gaps: EventGap[] = [];
    h.client.gaps$.subscribe((gap) => gaps.push(gap));
    stream.send(1, notification(1));
    stream.send(2, notification(2));
    stream.send(5, notification(5));
    const second = await h.server.stream(2);
    expect(second.request.headers.get("last-event-id")).toBe("2");
    expect(stream.isOpen).toBe(false);
    for (const id of [3, 4, 5, 6]) second.send(id, notification(id));
    await settle();
    expect(chunks(h)).toEqual(["chunk 1", "chunk 2", "chunk 3", "chunk 4", "chunk 5", "chunk 6"]);
    expect(gaps).toEqual([]);
    expect(states).toEqual(["open"]);
  });

  it("reports on gaps$ a gap on the first frame after a reopen, and goes on from there", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    const gaps: EventGap[] = [];
    h.client.gaps$.subscribe((gap) => gaps.push(gap));
    stream.send(1, notification(1));
    stream.send(2, notification(2));
    stream.end();
    const second = await h.server.stream(2);
    expect(second.request.headers.get("last-event-id")).toBe("2");
    second.send(5, notification(5));
    second.send(6, notification(6));
    await settle();
    expect(gaps).toEqual([{ stream: "connection", firstMissing: 3, lastMissing: 4 }]);
    expect(chunks(h)).toEqual(["chunk 1", "chunk 2", "chunk 5", "chunk 6"]);
    expect(h.server.streams).toHaveLength(2);
    expect(h.client.lastEventId).toBe("6");
    expect(h.logs.some((line) => line.level === "warn" && line.details?.firstMissing === 3)).toBe(true);
  });

  it("reports a gap when the very first stream starts past id 1", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    const gaps: EventGap[] = [];
    h.client.gaps$.subscribe((gap) => gaps.push(gap));
    stream.send(4, notification(4));
    await settle();
    expect(gaps).toEqual([{ stream: "connection", firstMissing: 1, lastMissing: 3 }]);
    expect(chunks(h)).toEqual(["chunk 4"]);
  });

  it("resumes from the lastEventId option and drops what it had already seen", async () => {
    const h = createHarness({ lastEventId: "7" });
    const stream = await bootstrap(h);
    expect(stream.request.headers.get("last-event-id")).toBe("7");
    for (const id of [6, 7, 8]) stream.send(id, notification(id));
    await settle();
    expect(chunks(h)).toEqual(["chunk 8"]);
  });

  it("reports a frame that is not JSON-RPC once on parseErrors$, with its raw text, and the stream goes on", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    const errors: AcpParseError[] = [];
    h.client.parseErrors$.subscribe((error) => errors.push(error));
    stream.push("id: 1\ndata: {not json\n\n");
    stream.push("id: 2\ndata: [1]\n\n");
    stream.send(3, notification(3));
    await settle();
    expect(errors).toEqual([
      { source: "stream", stream: "connection", eventId: "1", raw: "{not json", error: expect.stringMatching(/^invalid JSON: /) as unknown },
      { source: "stream", stream: "connection", eventId: "2", raw: "[1]", error: "not a JSON-RPC object" },
    ]);
    expect(chunks(h)).toEqual(["chunk 3"]);
    expect(h.server.streams).toHaveLength(1);
    expect(h.client.state).toBe("open");
  });

  it("closes with retries-exhausted when every reconnect fails, rejecting what is pending", async () => {
    const h = createHarness({ reconnect: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetries: 2 } });
    const stream = await bootstrap(h);
    h.server.onPost = () => never();
    const pending = h.client.prompt(PROMPT);
    await h.server.request("POST", 2);
    let failures = 0;
    h.server.onGet = () => (++failures % 2 === 1 ? problemResponse(503, { title: "Service Unavailable", status: 503 }) : networkFailure());
    stream.end();

    const info = await h.client.closed;
    expect(info.reason).toBe("retries-exhausted");
    expect(info.error).toBeInstanceOf(AcpConnectionClosedError);
    await expect(pending).rejects.toMatchObject({ name: "AcpConnectionClosedError", reason: "retries-exhausted", method: "session/prompt" });
    // The first stream, then one GET per allowed retry.
    expect(h.server.requestsOf("GET")).toHaveLength(3);
    expect(h.client.state).toBe("closed");
  });

  it("starts counting retries afresh once a reconnected stream delivered data", async () => {
    const h = createHarness({ reconnect: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetries: 1 } });
    let stream = await bootstrap(h);
    for (let n = 1; n <= 4; n++) {
      stream.send(n, notification(n));
      await settle();
      stream.end();
      stream = await h.server.stream(n + 1);
    }
    await settle();
    expect(h.client.state).toBe("open");
    expect(chunks(h)).toEqual(["chunk 1", "chunk 2", "chunk 3", "chunk 4"]);
    // Without data in between, a second drop in a row exceeds the single retry.
    stream.end();
    await expect(h.client.closed).resolves.toMatchObject({ reason: "retries-exhausted" });
    expect(h.server.requestsOf("GET")).toHaveLength(5);
  });

  it.each([
    [401, "unauthorized"],
    [404, "connection-lost"],
    [400, "stream-rejected"],
  ] as const)("closes at once, without retrying, when the stream is refused with %i", async (status, reason) => {
    const h = createHarness();
    h.server.onGet = () => problemResponse(status, { title: "refused", status });
    await h.client.initialize();
    await expect(h.client.closed).resolves.toMatchObject({ reason });
    // A server that no longer knows the connection (or the caller) gets no DELETE; one that only refused the stream does.
    if (status === 400) await h.server.request("DELETE");
    await settle();
    expect(h.server.requestsOf("DELETE")).toHaveLength(status === 400 ? 1 : 0);
    expect(h.server.requestsOf("GET")).toHaveLength(1);
  });

  it("waits the server's retry: value, not its own backoff, before reconnecting", async () => {
    useFakeClock();
    const h = createHarness({ reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0 } });
    const stream = await bootstrap(h, advance);
    stream.push("retry: 250\n\n");
    stream.send(1, notification(1));
    await settle();
    stream.end();
    await settle();
    await jest.advanceTimersByTimeAsync(249);
    expect(h.server.requestsOf("GET")).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    const second = await h.server.stream(2);
    expect(second.request.headers.get("last-event-id")).toBe("1");
  });

  it("reconnects a stream that went silent past stallTimeoutMs; heartbeats keep it alive", async () => {
    useFakeClock();
    const h = createHarness({ reconnect: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0, stallTimeoutMs: 1000 } });
    const stream = await bootstrap(h, advance);
    stream.send(1, notification(1));
    for (let beat = 0; beat < 5; beat++) {
      await jest.advanceTimersByTimeAsync(900);
      stream.push(": heartbeat\n\n");
      await settle();
    }
    expect(h.server.requestsOf("GET")).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1001);
    const second = await h.server.stream(2);
    expect(stream.isOpen).toBe(false);
    expect(second.request.headers.get("last-event-id")).toBe("1");
  });

  it("settles a request whose response arrives on a reconnected stream", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    h.server.onPost = () => never();
    const prompt = h.client.prompt(PROMPT);
    const post = await h.server.request("POST", 2);
    stream.error();
    const second = await h.server.stream(2);
    second.send(1, notification(1));
    second.send(2, result(idOf(post), { stopReason: "end_turn" }));
    await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
  });
});

describe("AcpHttpClient failed initialize", () => {
  it.each<[string, (id: unknown) => Response]>([
    ["an HTTP 404", () => problemResponse(404, { title: "Agent Not Installed", status: 404 })],
    ["a JSON-RPC error", (id) => rpcError(id, { code: -32603, message: "agent failed to start" })],
  ])("leaves connecting for closed, completes state$ and settles closed after %s", async (_name, answer) => {
    const h = createHarness();
    const { states, completed } = recordStates(h);
    h.server.onPost = (request) => answer(bodyOf(request).id);
    const failure = await h.client.initialize().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(AcpConnectionClosedError);
    const info = await h.client.closed;
    expect(info.reason).toBe("initialize-failed");
    expect(info.error).toBeInstanceOf(AcpConnectionClosedError);
    expect(info.error?.cause).toBe(failure);
    expect(states).toEqual(["idle", "connecting", "closed"]);
    expect(completed()).toBe(true);
    const later = h.client.newSession({ cwd: "/", mcpServers: [] });
    await expect(later).rejects.toMatchObject({ reason: "initialize-failed" });
  });

  it("does not close an open connection when a repeated initialize fails", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = (request) => rpcError(bodyOf(request).id, { code: -32600, message: "already initialized" });
    await expect(h.client.initialize()).rejects.toMatchObject({ name: "AcpRpcError" });
    expect(h.client.state).toBe("open");
  });
});

function rpcError(id: unknown, error: { code: number; message: string }): Response {
  return jsonResponse({ jsonrpc: "2.0", id, error });
}
