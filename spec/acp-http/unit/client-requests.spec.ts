import { jest } from "@jest/globals";
import { firstValueFrom, toArray } from "rxjs";
import {
  AcpAbortError,
  AcpConnectionClosedError,
  AcpHttpError,
  AcpNetworkError,
  AcpProtocolError,
  AcpRpcError,
  AcpTimeoutError,
  isResponse,
  type AcpParseError,
} from "../../../lib/acp-http/index.js";
import {
  Deferred,
  accepted,
  bodyOf,
  jsonResponse,
  networkFailure,
  never,
  problemResponse,
  rpcResult,
  textResponse,
} from "../../support/fake-acp-server.js";
import { BASE_URL, CONNECTION_ID, PROMPT, bootstrap, createHarness, disconnectAll, idOf, notification, responsesWithId, result, settle, watch, advance, useFakeClock } from "./client-harness.js";

afterEach(async () => {
  jest.useRealTimers();
  await disconnectAll();
});


describe("AcpHttpClient requests", () => {
  it("resolves a request answered inline with 200, and sends one JSON-RPC request", async () => {
    const h = createHarness();
    const answer = await h.client.initialize({ clientInfo: { name: "spec", version: "1.0.0" } });
    expect(answer).toEqual({ protocolVersion: 1 });
    const post = await h.server.request("POST");
    expect(post.url.toString()).toBe(`${BASE_URL}/v2/rpc`);
    expect(post.headers.get("content-type")).toBe("application/json");
    // Only JSON: a POST answered with an event stream is not something this client reads.
    expect(post.headers.get("accept")).toBe("application/json");
    expect(bodyOf(post)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "spec", version: "1.0.0" },
      },
    });
    expect(h.envelopes).toEqual([{ jsonrpc: "2.0", id: 1, result: { protocolVersion: 1 } }]);
  });

  it("resolves a request answered 202 once its response arrives on the stream", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    const prompt = h.client.prompt(PROMPT);
    const state = watch(prompt);
    const post = await h.server.request("POST", 2);
    await settle();
    expect(state.settled).toBe(false);
    stream.send(1, result(idOf(post), { stopReason: "end_turn" }));
    await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
  });

  it("opens the event stream only after the first POST succeeded, with the connection id it learned", async () => {
    const h = createHarness({ bootstrapQuery: { agent: "mock" } });
    const answer = new Deferred<Response>();
    h.server.onPost = () => answer.promise;
    const initialize = h.client.initialize();
    const first = await h.server.request("POST");
    await settle();
    expect(h.server.requestsOf("GET")).toHaveLength(0);
    expect(first.url.searchParams.get("agent")).toBe("mock");
    expect(first.headers.has("x-acp-connection-id")).toBe(false);

    answer.resolve(rpcResult(1, { protocolVersion: 1 }));
    await initialize;
    const get = await h.server.request("GET");
    expect(h.client.connectionId).toBe(CONNECTION_ID);
    expect(get.headers.get("x-acp-connection-id")).toBe(CONNECTION_ID);
    expect(get.headers.get("accept")).toBe("text/event-stream");
    expect(get.headers.has("last-event-id")).toBe(false);
    expect(get.url.toString()).toBe(`${BASE_URL}/v2/rpc`);

    h.server.onPost = () => accepted();
    await h.client.cancel({ sessionId: "s1" });
    const second = await h.server.request("POST", 2);
    expect(second.url.search).toBe("");
    expect(second.headers.get("x-acp-connection-id")).toBe(CONNECTION_ID);
    expect(h.server.requestsOf("GET")).toHaveLength(1);
  });

  it("keeps the bootstrap query and opens no stream while the first POSTs fail", async () => {
    const h = createHarness({ bootstrapQuery: { agent: "mock" } });
    h.server.onPost = () => problemResponse(502, { title: "Stream Error", status: 502, detail: "failed to start agent process" });
    // A failed first initialize closes the client; other failed POSTs leave it usable.
    await expect(h.client.request("_vendor/probe")).rejects.toBeInstanceOf(AcpHttpError);
    await settle();
    expect(h.server.requestsOf("GET")).toHaveLength(0);
    expect(h.client.state).toBe("connecting");

    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: 1 });
    await h.client.initialize();
    const [failed, succeeded] = h.server.requestsOf("POST");
    expect(failed?.url.searchParams.get("agent")).toBe("mock");
    expect(succeeded?.url.searchParams.get("agent")).toBe("mock");
    await h.server.request("GET");
  });

  it("sends the connection id it was given to resume, from the first POST on", async () => {
    const h = createHarness({ connectionId: "acp_conn_9", bootstrapQuery: { agent: "mock" } }, {});
    await h.client.initialize();
    const post = await h.server.request("POST");
    expect(post.headers.get("x-acp-connection-id")).toBe("acp_conn_9");
    const get = await h.server.request("GET");
    expect(get.headers.get("x-acp-connection-id")).toBe("acp_conn_9");
  });

  it("delivers a response once on envelopes$ when its stream copy follows the POST body", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    stream.send(1, result(1, { protocolVersion: 1 }));
    stream.send(2, notification(1));
    await settle();
    expect(responsesWithId(h.envelopes, 1)).toHaveLength(1);
    expect(h.envelopes).toHaveLength(2);
  });

  it("delivers a response once on envelopes$ when the POST body follows its stream copy", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    const body = new Deferred<Response>();
    h.server.onPost = () => body.promise;
    const prompt = h.client.prompt(PROMPT);
    const post = await h.server.request("POST", 2);
    stream.send(1, result(idOf(post), { stopReason: "end_turn" }));
    await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
    body.resolve(rpcResult(idOf(post), { stopReason: "end_turn" }));
    await settle();
    expect(responsesWithId(h.envelopes, idOf(post))).toHaveLength(1);
  });

  it("with responseEcho: true, holds an inline response until its stream copy, so every notification before it is seen first", async () => {
    useFakeClock();
    const h = createHarness({ responseEcho: true });
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "initialize") return rpcResult(message.id, { protocolVersion: 1 });
      if (message.method === "session/prompt") return rpcResult(message.id, { stopReason: "end_turn" });
      return accepted();
    };
    const initialize = h.client.initialize();
    const stream = await h.server.stream(1);
    stream.send(1, result(1, { protocolVersion: 1 }));
    await initialize;

    const seen: string[] = [];
    h.client.envelopes$.subscribe((envelope) => seen.push(isResponse(envelope) ? `response ${String(envelope.id)}` : envelope.method));
    let seenWhenResolved: string[] | undefined;
    const prompt = h.client.prompt(PROMPT).then((answer) => {
      seenWhenResolved = [...seen];
      return answer;
    });
    // The POST body is already back, ahead of the updates the agent wrote before it.
    await h.server.request("POST", 2);
    await advance(1000);
    expect(seenWhenResolved).toBeUndefined();
    expect(seen).toEqual([]);

    stream.send(2, notification(1));
    stream.send(3, notification(2));
    stream.send(4, notification(3));
    await settle();
    expect(seenWhenResolved).toBeUndefined();
    stream.send(5, result(2, { stopReason: "end_turn" }));
    await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
    expect(seenWhenResolved).toEqual(["session/update", "session/update", "session/update", "response 2"]);
    expect(responsesWithId(h.envelopes, 2)).toHaveLength(1);
  });

  it("with responseEcho: true, delivers an inline response whose stream copy never comes at the 30 s maximum hold", async () => {
    useFakeClock();
    const h = createHarness({ responseEcho: true });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, bodyOf(request).method === "initialize" ? { protocolVersion: 1 } : { stopReason: "end_turn" });
    const initialize = h.client.initialize();
    const stream = await h.server.stream(1);
    stream.send(1, result(1, { protocolVersion: 1 }));
    await initialize;

    const prompt = h.client.prompt(PROMPT);
    const state = watch(prompt);
    await h.server.request("POST", 2);
    // While frames keep coming the copy is probably on its way: keep waiting.
    for (let n = 2; n <= 4; n++) {
      await jest.advanceTimersByTimeAsync(1000);
      stream.send(n, notification(n));
      await settle();
    }
    expect(state.settled).toBe(false);
    await jest.advanceTimersByTimeAsync(30_000);
    await settle();
    expect(state.value).toEqual({ stopReason: "end_turn" });
    expect(responsesWithId(h.envelopes, 2)).toHaveLength(1);
  });

  it('with responseEcho: "auto", starts holding inline responses for their copy once it has seen the server echo one', async () => {
    useFakeClock();
    const h = createHarness();
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "initialize") return rpcResult(message.id, { protocolVersion: 1 });
      return rpcResult(message.id, { stopReason: "end_turn" });
    };
    // Nothing echoed yet: the first inline response needs only a quiet stream, no copy.
    const stream = await bootstrap(h, advance);
    expect(responsesWithId(h.envelopes, 1)).toHaveLength(1);
    stream.send(1, result(1, { protocolVersion: 1 }));
    await settle();

    const prompt = h.client.prompt(PROMPT);
    const state = watch(prompt);
    await h.server.request("POST", 2);
    // Far longer than a quiet stream needs: this one waits for its copy.
    await advance(1000);
    expect(state.settled).toBe(false);
    stream.send(2, notification(1));
    stream.send(3, result(2, { stopReason: "end_turn" }));
    await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
    expect(h.envelopes.map((envelope) => (isResponse(envelope) ? envelope.id : envelope.method))).toEqual([1, "session/update", 2]);
  });

  it("with responseEcho: false, delivers an inline response once the stream is quiet, after the updates still in flight", async () => {
    useFakeClock();
    const h = createHarness({ responseEcho: false });
    const stream = await bootstrap(h, advance);
    const body = new Deferred<Response>();
    h.server.onPost = () => body.promise;
    const prompt = h.client.prompt(PROMPT);
    const state = watch(prompt);
    const post = await h.server.request("POST", 2);
    stream.send(1, notification(1));
    await advance(5);
    // The body overtakes the last updates of the turn, which are still on their way.
    body.resolve(rpcResult(idOf(post), { stopReason: "end_turn" }));
    await settle();
    for (let n = 2; n <= 3; n++) {
      await advance(10);
      stream.send(n, notification(n));
    }
    await settle();
    expect(state.settled).toBe(false);
    await advance(100);
    expect(state.value).toEqual({ stopReason: "end_turn" });
    expect(h.envelopes.map((envelope) => (isResponse(envelope) ? envelope.id : envelope.method))).toEqual([
      1,
      "session/update",
      "session/update",
      "session/update",
      2,
    ]);
  });

  it("with responseEcho: false, delays an inline response by at most 2 s on a stream that never goes quiet", async () => {
    useFakeClock();
    const h = createHarness({ responseEcho: false });
    const stream = await bootstrap(h, advance);
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { stopReason: "end_turn" });
    stream.send(1, notification(1));
    const busy = watch(h.client.prompt(PROMPT));
    await h.server.request("POST", 2);
    await settle();
    const started = Date.now();
    for (let n = 2; n <= 400 && !busy.settled; n++) {
      await advance(10);
      stream.send(n, notification(n));
    }
    expect(busy.value).toEqual({ stopReason: "end_turn" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(Date.now() - started).toBeLessThanOrEqual(2100);
  });

  it("resolves from the stream copy when the POST never returns, then lets that POST go", async () => {
    useFakeClock();
    const h = createHarness();
    const stream = await bootstrap(h, advance);
    h.server.onPost = () => never();
    const prompt = h.client.prompt(PROMPT);
    const post = await h.server.request("POST", 2);
    stream.send(1, result(idOf(post), { stopReason: "end_turn" }));
    await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
    expect(post.signal.aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1000);
    expect(post.signal.aborted).toBe(true);
    await settle();
    expect(h.client.state).toBe("open");
  });

  it.each([
    {
      name: "500 problem+json",
      reply: () =>
        problemResponse(500, {
          type: "urn:sandbox-agent:error:agent_process_exited",
          title: "Agent Process Exited",
          status: 500,
          detail: "agent process exited: mock",
        }),
      status: 500,
      problem: { type: "urn:sandbox-agent:error:agent_process_exited", title: "Agent Process Exited", status: 500, detail: "agent process exited: mock" },
      bodyText: undefined,
      message: "session/prompt failed with HTTP 500: agent process exited: mock",
    },
    {
      name: "400 HTML",
      reply: () => textResponse(400, "<html><body><h1>400 Bad Request</h1></body></html>", "text/html"),
      status: 400,
      problem: undefined,
      bodyText: "<html><body><h1>400 Bad Request</h1></body></html>",
      message: "session/prompt failed with HTTP 400: <html><body><h1>400 Bad Request</h1></body></html>",
    },
    {
      name: "502 with an empty body",
      reply: () => new Response(null, { status: 502 }),
      status: 502,
      problem: undefined,
      bodyText: undefined,
      message: "session/prompt failed with HTTP 502",
    },
  ])("rejects only its own request on a $name answer; other requests and the stream go on", async ({ reply, status, problem, bodyText, message }) => {
    const h = createHarness();
    const stream = await bootstrap(h);
    h.server.onPost = () => never();
    const other = h.client.request("_ext/slow", { n: 1 });
    const otherPost = await h.server.request("POST", 2);

    h.server.onPost = reply;
    const error = await h.client.prompt(PROMPT).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(AcpHttpError);
    const httpError = error as AcpHttpError;
    expect(httpError.status).toBe(status);
    expect(httpError.problem).toEqual(problem);
    expect(httpError.bodyText).toBe(bodyText);
    expect(httpError.message).toBe(message);

    stream.send(1, notification(1));
    stream.send(2, result(idOf(otherPost), { ok: true }));
    await expect(other).resolves.toEqual({ ok: true });
    expect(h.client.state).toBe("open");
    expect(h.server.streams).toHaveLength(1);
    expect(stream.isOpen).toBe(true);
  });

  it("rejects with AcpNetworkError when the POST cannot reach the server, and the connection stays open", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = () => networkFailure("fetch failed");
    const error = await h.client.prompt(PROMPT).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(AcpNetworkError);
    expect((error as AcpNetworkError).operation).toBe("session/prompt");
    expect((error as AcpNetworkError).cause).toBeInstanceOf(TypeError);
    expect(h.client.state).toBe("open");

    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { stopReason: "end_turn" });
    await expect(h.client.prompt(PROMPT)).resolves.toEqual({ stopReason: "end_turn" });
  });

  it("rejects with AcpRpcError when the answer is a JSON-RPC error", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = (request) => jsonResponse({ jsonrpc: "2.0", id: bodyOf(request).id, error: { code: -32602, message: "Invalid params", data: { field: "cwd" } } });
    const error = await h.client.newSession({ cwd: "/", mcpServers: [] }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(AcpRpcError);
    expect(error).toMatchObject({ method: "session/new", code: -32602, data: { field: "cwd" } });
  });

  it("rejects with AcpProtocolError when a result does not have the shape its method promises", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { noSessionId: true });
    await expect(h.client.newSession({ cwd: "/", mcpServers: [] })).rejects.toBeInstanceOf(AcpProtocolError);
  });

  it("reports a POST body that is not JSON-RPC on parseErrors$ and rejects that request", async () => {
    const h = createHarness();
    await bootstrap(h);
    const errors: AcpParseError[] = [];
    h.client.parseErrors$.subscribe((error) => errors.push(error));
    h.server.onPost = () => jsonResponse({ hello: "world" });
    await expect(h.client.prompt(PROMPT)).rejects.toBeInstanceOf(AcpProtocolError);
    expect(errors).toEqual([{ source: "response-body", raw: '{"hello":"world"}', error: "not a JSON-RPC request, notification or response" }]);
    expect(h.client.state).toBe("open");
  });

  it("rejects with AcpAbortError when the caller aborts, aborts the POST and sends nothing else", async () => {
    const h = createHarness();
    const stream = await bootstrap(h);
    h.server.onPost = () => never();
    const controller = new AbortController();
    const prompt = h.client.prompt(PROMPT, { signal: controller.signal });
    const post = await h.server.request("POST", 2);
    const before = h.server.requests.length;
    controller.abort(new Error("user pressed stop"));
    const error = await prompt.catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(AcpAbortError);
    expect(error).toMatchObject({ name: "AbortError", method: "session/prompt" });
    expect(post.signal.aborted).toBe(true);
    await settle();
    expect(h.server.requests).toHaveLength(before);
    // A late answer for the aborted id changes nothing, and the connection goes on.
    stream.send(1, result(idOf(post), { stopReason: "cancelled" }));
    await settle();
    expect(h.client.state).toBe("open");
  });

  it("rejects at once with AcpAbortError and sends nothing when the signal is already aborted", async () => {
    const h = createHarness();
    await bootstrap(h);
    const before = h.server.requests.length;
    await expect(h.client.prompt(PROMPT, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AcpAbortError);
    await settle();
    expect(h.server.requests).toHaveLength(before);
  });

  it("rejects with AcpTimeoutError at timeoutMs, not before, and aborts the POST", async () => {
    useFakeClock();
    const h = createHarness();
    await bootstrap(h, advance);
    h.server.onPost = () => never();
    const prompt = h.client.prompt(PROMPT, { timeoutMs: 5000 });
    const state = watch(prompt);
    const post = await h.server.request("POST", 2);
    await jest.advanceTimersByTimeAsync(4999);
    expect(state.settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await settle();
    expect(state.error).toBeInstanceOf(AcpTimeoutError);
    expect(state.error).toMatchObject({ method: "session/prompt", timeoutMs: 5000 });
    expect(post.signal.aborted).toBe(true);
    expect(h.server.requestsOf("POST")).toHaveLength(2);
  });

  it("has no default timeout: a request stays pending for an hour, then resolves", async () => {
    useFakeClock();
    const h = createHarness();
    const stream = await bootstrap(h, advance);
    h.server.onPost = () => never();
    const prompt = h.client.prompt(PROMPT);
    const state = watch(prompt);
    const post = await h.server.request("POST", 2);
    for (let minute = 0; minute < 60; minute++) await jest.advanceTimersByTimeAsync(60_000);
    expect(state.settled).toBe(false);
    expect(post.signal.aborted).toBe(false);
    expect(stream.isOpen).toBe(true);
    stream.send(1, result(idOf(post), { stopReason: "end_turn" }));
    await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
  });

  it("request$ sends on subscribe, emits the result once and completes", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { value: 42 });
    const request$ = h.client.request$("_ext/answer", { q: 1 });
    await settle();
    expect(h.server.requestsOf("POST")).toHaveLength(1);
    await expect(firstValueFrom(request$.pipe(toArray()))).resolves.toEqual([{ value: 42 }]);
    expect(bodyOf(await h.server.request("POST", 2))).toMatchObject({ method: "_ext/answer", params: { q: 1 } });
  });

  it("request$ aborts its request when unsubscribed", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = () => never();
    const events: string[] = [];
    const subscription = h.client.request$("session/prompt", PROMPT).subscribe({
      next: () => events.push("next"),
      error: () => events.push("error"),
      complete: () => events.push("complete"),
    });
    const post = await h.server.request("POST", 2);
    expect(post.signal.aborted).toBe(false);
    subscription.unsubscribe();
    await settle();
    expect(post.signal.aborted).toBe(true);
    expect(events).toEqual([]);
    expect(h.server.requestsOf("POST")).toHaveLength(2);
  });

  it("sends a notification without an id and resolves once the server accepted it", async () => {
    const h = createHarness();
    await bootstrap(h);
    await h.client.extNotification("_ext/tick", { n: 1 });
    expect(bodyOf(await h.server.request("POST", 2))).toEqual({ jsonrpc: "2.0", method: "_ext/tick", params: { n: 1 } });
  });

  it("rejects a notification the server refused", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = () => problemResponse(400, { title: "Bad Request", status: 400, detail: "invalid request" });
    await expect(h.client.cancel({ sessionId: "s1" })).rejects.toMatchObject({ name: "AcpHttpError", status: 400 });
    expect(h.client.state).toBe("open");
  });

  it("gives each request its own id, in order", async () => {
    const h = createHarness();
    await bootstrap(h);
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { id: bodyOf(request).id });
    const answers = await Promise.all([h.client.request("a"), h.client.request("b"), h.client.request("c")]);
    expect(answers).toEqual([{ id: 2 }, { id: 3 }, { id: 4 }]);
  });

  it("treats a closed connection as closed for every later call", async () => {
    const h = createHarness();
    await bootstrap(h);
    await h.client.disconnect();
    await expect(h.client.prompt(PROMPT)).rejects.toBeInstanceOf(AcpConnectionClosedError);
  });
});
