import { AcpRpcError, isRequest, type AcpClientHandlers, type HandlerContext, type RequestPermissionParams } from "../../../lib/acp-http/index.js";
import { Deferred, bodyOf, jsonResponse } from "../../support/fake-acp-server.js";
import { CONNECTION_ID, bootstrap, createHarness, disconnectAll, settle } from "./client-harness.js";

afterEach(disconnectAll);

const PERMISSION_PARAMS = {
  sessionId: "s1",
  toolCall: { toolCallId: "call-1", title: "rm -rf build" },
  options: [
    { optionId: "allow", name: "Allow", kind: "allow_once" },
    { optionId: "deny", name: "Deny", kind: "reject_once" },
  ],
};

function agentRequest(id: string | number, method: string, params: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method, params };
}

/** Starts a bootstrapped client with these handlers; returns it with its stream and the answers it POSTs. */
async function withHandlers(handlers?: AcpClientHandlers) {
  const h = createHarness(handlers ? { handlers } : {});
  const stream = await bootstrap(h);
  const answers = () => h.server.requestsOf("POST").slice(1);
  return { ...h, stream, answers };
}

describe("AcpHttpClient agent requests", () => {
  it("answers a permission request with the handler's choice, on the same connection", async () => {
    const calls: { params: RequestPermissionParams; context: HandlerContext }[] = [];
    const h = await withHandlers({
      requestPermission: (params, context) => {
        calls.push({ params, context });
        return { outcome: { outcome: "selected", optionId: "allow" } };
      },
    });
    h.stream.send(1, agentRequest("agent-req-1", "session/request_permission", PERMISSION_PARAMS));
    const answer = await h.server.request("POST", 2);
    expect(bodyOf(answer)).toEqual({ jsonrpc: "2.0", id: "agent-req-1", result: { outcome: { outcome: "selected", optionId: "allow" } } });
    expect(answer.headers.get("x-acp-connection-id")).toBe(CONNECTION_ID);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.params).toEqual(PERMISSION_PARAMS);
    expect(calls[0]?.context).toMatchObject({ id: "agent-req-1", method: "session/request_permission" });
    expect(calls[0]?.context.signal.aborted).toBe(false);
    // The request is also on envelopes$ for anyone watching.
    expect(h.envelopes.some((envelope) => isRequest(envelope) && envelope.method === "session/request_permission")).toBe(true);
  });

  it("answers a permission request with cancelled when no handler is given", async () => {
    const h = await withHandlers();
    h.stream.send(1, agentRequest(5, "session/request_permission", PERMISSION_PARAMS));
    expect(bodyOf(await h.server.request("POST", 2))).toEqual({ jsonrpc: "2.0", id: 5, result: { outcome: { outcome: "cancelled" } } });
  });

  it("answers -32601 to a method it does not know", async () => {
    const h = await withHandlers({ requestPermission: () => ({ outcome: { outcome: "cancelled" } }) });
    h.stream.send(1, agentRequest("r1", "_vendor/unknown", { x: 1 }));
    h.stream.send(2, agentRequest("r2", "fs/read_text_file", { sessionId: "s1", path: "/etc/hosts" }));
    await h.server.request("POST", 3);
    expect(h.answers().map(bodyOf)).toEqual([
      { jsonrpc: "2.0", id: "r1", error: { code: -32601, message: "Method not found: _vendor/unknown" } },
      { jsonrpc: "2.0", id: "r2", error: { code: -32601, message: "Method not found: fs/read_text_file" } },
    ]);
  });

  it("answers -32603 with the message when a handler throws", async () => {
    const h = await withHandlers({
      readTextFile: () => {
        throw new Error("disk on fire");
      },
    });
    h.stream.send(1, agentRequest(9, "fs/read_text_file", { sessionId: "s1", path: "/a.txt" }));
    expect(bodyOf(await h.server.request("POST", 2))).toEqual({ jsonrpc: "2.0", id: 9, error: { code: -32603, message: "disk on fire" } });
  });

  it("answers the code and data of an AcpRpcError a handler throws", async () => {
    const h = await withHandlers({
      readTextFile: async () => {
        throw new AcpRpcError("fs/read_text_file", { code: -32002, message: "Resource not found", data: { path: "/a.txt" } });
      },
    });
    h.stream.send(1, agentRequest(9, "fs/read_text_file", { sessionId: "s1", path: "/a.txt" }));
    const answer = bodyOf(await h.server.request("POST", 2));
    expect(answer).toMatchObject({ id: 9, error: { code: -32002, data: { path: "/a.txt" } } });
  });

  it("answers -32602 when the params do not fit the method", async () => {
    const h = await withHandlers({ requestPermission: () => ({ outcome: { outcome: "cancelled" } }) });
    h.stream.send(1, agentRequest(3, "session/request_permission", { sessionId: "s1" }));
    expect(bodyOf(await h.server.request("POST", 2))).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it("hands other methods to extMethod, with array params kept as an array", async () => {
    const seen: unknown[] = [];
    const h = await withHandlers({
      extMethod: (method, params) => {
        seen.push({ method, params });
        return method === "_vendor/sum" ? { total: 6 } : undefined;
      },
    });
    h.stream.send(1, agentRequest(1, "_vendor/sum", [1, 2, 3]));
    h.stream.send(2, agentRequest(2, "_vendor/other", {}));
    await h.server.request("POST", 3);
    expect(seen).toEqual([
      { method: "_vendor/sum", params: [1, 2, 3] },
      { method: "_vendor/other", params: {} },
    ]);
    expect(h.answers().map(bodyOf)).toEqual([
      { jsonrpc: "2.0", id: 1, result: { total: 6 } },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found: _vendor/other" } },
    ]);
  });

  it("answers a request once even when the server delivers it again", async () => {
    const reply = new Deferred<{ outcome: { outcome: "selected"; optionId: string } }>();
    let calls = 0;
    const h = await withHandlers({
      requestPermission: () => {
        calls++;
        return reply.promise;
      },
    });
    const request = agentRequest("agent-req-1", "session/request_permission", PERMISSION_PARAMS);
    h.stream.send(1, request);
    // Redelivered under new event ids (a server that replays), while the first answer is still being decided.
    h.stream.send(2, request);
    await settle();
    reply.resolve({ outcome: { outcome: "selected", optionId: "deny" } });
    await h.server.request("POST", 2);
    // And once more after the answer went out: a reconnected stream replaying it under its original event id.
    h.stream.end();
    const second = await h.server.stream(2);
    second.send(1, request);
    await settle();
    expect(calls).toBe(1);
    expect(h.answers().map(bodyOf)).toEqual([{ jsonrpc: "2.0", id: "agent-req-1", result: { outcome: { outcome: "selected", optionId: "deny" } } }]);
  });

  it("tells a slow handler the connection closed, and posts no answer after it", async () => {
    let signal: AbortSignal | undefined;
    const reply = new Deferred<{ outcome: { outcome: "cancelled" } }>();
    const h = await withHandlers({
      requestPermission: (_params, context) => {
        signal = context.signal;
        return reply.promise;
      },
    });
    h.stream.send(1, agentRequest(1, "session/request_permission", PERMISSION_PARAMS));
    await settle();
    expect(signal?.aborted).toBe(false);
    await h.client.disconnect();
    expect(signal?.aborted).toBe(true);
    reply.resolve({ outcome: { outcome: "cancelled" } });
    await settle();
    expect(h.answers()).toHaveLength(0);
  });

  it("advertises the file and terminal capabilities it has handlers for", async () => {
    const h = createHarness({ handlers: { readTextFile: () => ({ content: "" }), createTerminal: () => ({ terminalId: "t1" }) } });
    await h.client.initialize();
    expect(bodyOf(await h.server.request("POST"))).toMatchObject({
      params: { clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: true } },
    });
  });
});

const PLAN = { sessionUpdate: "plan" };

describe("AcpHttpClient agent requests: id reuse and batches", () => {
  it("answers again when the agent reuses an id it used before, once that id was answered", async () => {
    const seen: string[] = [];
    const h = await withHandlers({
      requestPermission: (params) => {
        seen.push(params.toolCall.toolCallId);
        return { outcome: { outcome: "selected", optionId: "allow" } };
      },
    });
    h.stream.send(1, agentRequest(0, "session/request_permission", PERMISSION_PARAMS));
    await h.server.request("POST", 2);
    const again = { ...PERMISSION_PARAMS, toolCall: { toolCallId: "call-2", title: "rm -rf dist" } };
    h.stream.send(2, agentRequest(0, "session/request_permission", again));
    await h.server.request("POST", 3);
    await settle();
    expect(seen).toEqual(["call-1", "call-2"]);
    expect(h.answers().map((answer) => bodyOf(answer).id)).toEqual([0, 0]);
  });

  it("processes a batch frame member by member: each request answered once, the rest delivered", async () => {
    const h = await withHandlers({ readTextFile: (params) => ({ content: `text of ${params.path}` }) });
    const pending = h.client.request("_vendor/slow", {});
    const requestId = bodyOf(await h.server.request("POST", 2)).id;
    const update = { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: PLAN } };
    h.stream.send(1, [
      agentRequest("a", "fs/read_text_file", { sessionId: "s1", path: "/a" }),
      update,
      { jsonrpc: "2.0", id: requestId, result: { done: true } },
      agentRequest("b", "fs/read_text_file", { sessionId: "s1", path: "/b" }),
    ]);
    await expect(pending).resolves.toEqual({ done: true });
    await h.server.request("POST", 4);
    await settle();
    const answers = h.answers().slice(1).map(bodyOf);
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: "a", result: { content: "text of /a" } },
      { jsonrpc: "2.0", id: "b", result: { content: "text of /b" } },
    ]);
    expect(h.envelopes.some((envelope) => "method" in envelope && envelope.method === "session/update")).toBe(true);
  });

  it("reports a bad member of a batch as a parse error and still handles the good ones", async () => {
    const h = await withHandlers({ readTextFile: () => ({ content: "ok" }) });
    const errors: string[] = [];
    h.client.parseErrors$.subscribe((error) => errors.push(error.raw));
    const good = agentRequest("c", "fs/read_text_file", { sessionId: "s1", path: "/c" });
    h.stream.send(1, [{ jsonrpc: "1.0", nonsense: true }, good]);
    expect(bodyOf(await h.server.request("POST", 2))).toEqual({ jsonrpc: "2.0", id: "c", result: { content: "ok" } });
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0] ?? "null")).toEqual({ jsonrpc: "1.0", nonsense: true });
  });

  it("takes a batch POST body member by member: the answer inside settles its request", async () => {
    const h = await withHandlers();
    const update = { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: PLAN } };
    h.server.onPost = (request) =>
      jsonResponse([update, { jsonrpc: "2.0", id: bodyOf(request).id, result: { ok: 1 } }]);
    await expect(h.client.request("_vendor/batched", {})).resolves.toEqual({ ok: 1 });
    expect(h.envelopes.some((envelope) => "method" in envelope && envelope.method === "session/update")).toBe(true);
  });
});
