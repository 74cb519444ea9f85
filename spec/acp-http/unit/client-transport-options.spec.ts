import { jest } from "@jest/globals";
import {
  AcpInterruptedError,
  AcpMessageTooLargeError,
  MemoryCookieStore,
  RFD_PROFILE,
  type AcpParseError,
  type AcpReconnectAttempt,
} from "../../../lib/acp-http/index.js";
import { resolveClientOptions } from "../../../lib/acp-http/client-options.js";
import { accepted, bodyOf, rpcResult, sseEvent } from "../../support/fake-acp-server.js";
import { CONNECTION_ID, bootstrap, createHarness, disconnectAll, settle, watch } from "./client-harness.js";

afterEach(async () => {
  jest.useRealTimers();
  await disconnectAll();
});

const answerInitialize = (extra: Record<string, string> = {}) => (request: Parameters<typeof bodyOf>[0]) => {
  const message = bodyOf(request);
  if (message.method === "initialize") {
    return rpcResult(message.id, { protocolVersion: 1, agentCapabilities: { loadSession: true } }, extra);
  }
  return accepted(extra);
};

describe("AcpHttpClient: defaults", () => {
  it("speaks the ACP transport RFD's endpoint and connection id header unless given others", async () => {
    const h = createHarness(
      { path: undefined, connectionIdHeader: undefined },
      { connectionId: CONNECTION_ID, connectionIdHeader: "Acp-Connection-Id" },
    );
    await bootstrap(h);
    const [post] = h.server.requestsOf("POST");
    const [get] = h.server.requestsOf("GET");
    expect(post?.url.pathname).toBe("/acp");
    expect(get?.url.pathname).toBe("/acp");
    expect(get?.headers.get("Acp-Connection-Id")).toBe(CONNECTION_ID);
    expect(h.client.connectionId).toBe(CONNECTION_ID);
  });

  it("recovers a lost connection only when asked, over either transport", () => {
    for (const transport of ["http", "websocket"] as const) {
      expect(resolveClientOptions({ baseUrl: "http://agent.test", transport }).recover).toBe(false);
      expect(resolveClientOptions({ baseUrl: "http://agent.test", transport, recover: true }).recover).toBe(true);
    }
  });
});

describe("AcpHttpClient: cookies", () => {
  it("returns a Set-Cookie on every later POST, GET and DELETE; the default store is cleared after the DELETE", async () => {
    const h = createHarness();
    h.server.onPost = answerInitialize({ "set-cookie": "lb=node-2; Path=/; HttpOnly" });
    await bootstrap(h);
    await h.client.notify("session/cancel", { sessionId: "s" });
    await h.client.disconnect();
    const [first, ...later] = h.server.requests;
    expect(first?.headers.get("cookie")).toBeNull();
    expect(later.map((r) => [r.method, r.headers.get("cookie")])).toEqual([
      ["GET", "lb=node-2"],
      ["POST", "lb=node-2"],
      ["DELETE", "lb=node-2"],
    ]);
  });

  it("a caller's store is used and kept (not cleared on close); cookies: false sends none", async () => {
    const cookies = new MemoryCookieStore();
    const h = createHarness({ cookies });
    h.server.onPost = answerInitialize({ "set-cookie": "lb=a" });
    await bootstrap(h);
    await h.client.disconnect();
    expect(cookies.size).toBe(1);
    const off = createHarness({ cookies: false });
    off.server.onPost = answerInitialize({ "set-cookie": "lb=a" });
    await bootstrap(off);
    await off.client.notify("session/cancel", { sessionId: "s" });
    expect(off.server.requests.map((r) => r.headers.get("cookie"))).toEqual([null, null, null]);
  });
});

describe("AcpHttpClient: RFD headers, cancellation and limits", () => {
  it("RFD_PROFILE: Acp-Protocol-Version on every request after initialize, not on initialize itself", async () => {
    const h = createHarness({ ...RFD_PROFILE }, { connectionId: CONNECTION_ID, connectionIdHeader: "Acp-Connection-Id" });
    h.server.onPost = answerInitialize();
    await bootstrap(h);
    await h.client.notify("session/cancel", { sessionId: "s" });
    expect(h.server.requests.map((r) => [r.method, r.headers.get("acp-protocol-version")])).toEqual([
      ["POST", null],
      ["GET", "1"],
      ["POST", "1"],
    ]);
  });

  it("an aborted request sends $/cancel_request with its id when cancelRequests is on, nothing when off", async () => {
    for (const cancelRequests of [true, false]) {
      const h = createHarness({ cancelRequests });
      h.server.onPost = answerInitialize();
      await bootstrap(h);
      const controller = new AbortController();
      const pending = h.client.request("_x/slow", {}, { signal: controller.signal });
      await h.server.request("POST", 2);
      controller.abort();
      await expect(pending).rejects.toThrow();
      await settle(10);
      const sent = h.server.requestsOf("POST").map((r) => bodyOf(r));
      const cancels = sent.filter((m) => m.method === "$/cancel_request");
      const slowId = sent.find((m) => m.method === "_x/slow")?.id;
      expect(cancels).toEqual(cancelRequests ? [{ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: slowId } }] : []);
    }
  });

  it("an SSE event over maxMessageBytes is a typed parse error; the events after it still arrive", async () => {
    const h = createHarness({ maxMessageBytes: 100 });
    const errors: AcpParseError[] = [];
    h.client.parseErrors$.subscribe((error) => errors.push(error));
    const stream = await bootstrap(h);
    const big = JSON.stringify({ jsonrpc: "2.0", method: "n/big", params: { text: "x".repeat(200) } });
    stream.push(sseEvent({ id: "1", data: big }) + sseEvent({ id: "2", data: '{"jsonrpc":"2.0","method":"n/small"}' }));
    await settle(10);
    const methods = h.envelopes.map((e) => (e as { method?: string }).method).filter(Boolean);
    expect(methods).toEqual(["n/small"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ source: "stream", stream: "connection" });
    expect(errors[0]?.tooLarge).toBeInstanceOf(AcpMessageTooLargeError);
    expect(errors[0]?.raw.length).toBeLessThanOrEqual(1024);
    expect(h.client.state).toBe("open");
  });

  it("an answer over maxMessageBytes on the stream fails its request at once (it would wait for ever)", async () => {
    const h = createHarness({ maxMessageBytes: 200 });
    const errors: AcpParseError[] = [];
    h.client.parseErrors$.subscribe((error) => errors.push(error));
    const stream = await bootstrap(h);
    const huge = watch(h.client.request("_x/huge", {}));
    const fine = watch(h.client.request("_x/fine", {}));
    await settle();
    const [hugeId, fineId] = h.server.requestsOf("POST").slice(1).map((request) => bodyOf(request).id);
    const answer = (id: unknown, blob: string) => JSON.stringify({ jsonrpc: "2.0", id, result: { blob } });
    stream.push(sseEvent({ id: "1", data: answer(hugeId, "y".repeat(500)) }));
    await settle(10);
    expect(huge.error).toBeInstanceOf(AcpMessageTooLargeError);
    expect(errors.map((error) => error.tooLarge)).toEqual([huge.error]);
    expect(fine.settled).toBe(false); // another request's answer is still to come, and comes
    stream.push(sseEvent({ id: "2", data: answer(fineId, "ok") }));
    await settle(10);
    expect(fine.value).toEqual({ blob: "ok" });
    expect(h.client.state).toBe("open");
  });

  it("a POST answer body over maxMessageBytes fails that request with AcpMessageTooLargeError only", async () => {
    const h = createHarness({ maxMessageBytes: 120 });
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "_x/huge") return rpcResult(message.id, { blob: "y".repeat(500) });
      return rpcResult(message.id, { protocolVersion: 1 });
    };
    await bootstrap(h);
    await expect(h.client.request("_x/huge", {})).rejects.toBeInstanceOf(AcpMessageTooLargeError);
    await expect(h.client.request("_x/fine", {})).resolves.toEqual({ protocolVersion: 1 });
  });
});

describe("AcpHttpClient: stream statuses and recovery", () => {
  it("405 on the connection GET means the server has no such stream: the client stays open", async () => {
    const h = createHarness();
    h.server.onGet = () => new Response(null, { status: 405 });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: 1 });
    await h.client.initialize();
    await settle(20);
    expect(h.client.state).toBe("open");
    expect(h.client.closeInfo).toBeUndefined();
    await expect(h.client.request("_x/ping", {})).resolves.toEqual({ protocolVersion: 1 });
  });

  it("recover: a 404 re-initializes (same params) and session/loads; the request that met the 404 is interrupted", async () => {
    const h = createHarness({ recover: true });
    let generation = 0;
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "initialize") {
        generation += 1;
        return rpcResult(message.id, { protocolVersion: 1, agentCapabilities: { loadSession: true } });
      }
      if (message.method === "session/new") return rpcResult(message.id, { sessionId: "s1" });
      if (message.method === "_x/lost" && generation === 1) return new Response(null, { status: 404 });
      return rpcResult(message.id, {});
    };
    await bootstrap(h);
    await h.client.newSession({ cwd: "/w", mcpServers: [] });
    await expect(h.client.request("_x/lost", {})).rejects.toBeInstanceOf(AcpInterruptedError);
    await expect(h.client.request("_x/after", {})).resolves.toEqual({});
    const methods = h.server.requestsOf("POST").map((r) => bodyOf(r));
    expect(methods.map((m) => m.method)).toEqual(["initialize", "session/new", "_x/lost", "initialize", "session/load", "_x/after"]);
    expect(methods[3]?.params).toEqual(methods[0]?.params);
    expect(methods[4]?.params).toEqual({ sessionId: "s1", cwd: "/w", mcpServers: [] });
  });

  it("recover: each attempt is on reconnecting$ (kind recovery), the lost connection's error as its cause", async () => {
    const h = createHarness({ recover: true, reconnect: { maxRetries: 2, initialDelayMs: 1, jitter: 0 } });
    const attempts: AcpReconnectAttempt[] = [];
    h.client.reconnecting$.subscribe((attempt) => attempts.push(attempt));
    let initializes = 0;
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "initialize") {
        initializes += 1;
        // The first re-initialize is refused: a second attempt follows.
        if (initializes === 2) return new Response(null, { status: 503 });
        return rpcResult(message.id, { protocolVersion: 1, agentCapabilities: {} });
      }
      if (message.method === "_x/lost" && initializes === 1) return new Response(null, { status: 404 });
      return rpcResult(message.id, {});
    };
    await bootstrap(h);
    await expect(h.client.request("_x/lost", {})).rejects.toBeInstanceOf(AcpInterruptedError);
    await expect(h.client.request("_x/after", {})).resolves.toEqual({});
    expect(attempts.map(({ attempt, maxAttempts, nextDelayMs, kind }) => [attempt, maxAttempts, nextDelayMs, kind]))
      .toEqual([
        [1, 3, 0, "recovery"],
        [2, 3, 1, "recovery"],
      ]);
    expect(attempts[0]?.cause).toMatchObject({ status: 404 });
    expect(attempts[1]?.cause).toMatchObject({ status: 503 });
  });
});
