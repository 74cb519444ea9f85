import type { AcpClientHandlers, RequestPermissionResult } from "../../../lib/acp-http/index.js";
import { Deferred, accepted, bodyOf } from "../../support/fake-acp-server.js";
import { bootstrap, createHarness, disconnectAll, settle } from "./client-harness.js";

afterEach(disconnectAll);

// A handler learns when its request stopped mattering.

function permissionRequest(id: string, sessionId: string): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "session/request_permission",
    params: {
      sessionId,
      toolCall: { toolCallId: `call-${id}`, title: "edit file" },
      options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
    },
  };
}

/** A client whose permission handler waits for the test; records each call's signal. */
async function withPendingDialogs() {
  const signals = new Map<string, AbortSignal>();
  const replies = new Map<string, Deferred<RequestPermissionResult>>();
  const handlers: AcpClientHandlers = {
    requestPermission: (params, context) => {
      const reply = new Deferred<RequestPermissionResult>();
      signals.set(params.toolCall.toolCallId, context.signal);
      replies.set(params.toolCall.toolCallId, reply);
      return reply.promise;
    },
  };
  const h = createHarness({ handlers });
  const stream = await bootstrap(h);
  const posts = () => h.server.requestsOf("POST").slice(1).map(bodyOf);
  return { ...h, stream, signals, replies, posts };
}

const SELECTED: RequestPermissionResult = { outcome: { outcome: "selected", optionId: "allow" } };

describe("AcpHttpClient handler cancellation", () => {
  it("aborts a cancelled turn's handlers, answers permission cancelled, drops the late answer", async () => {
    const h = await withPendingDialogs();
    h.stream.send(1, permissionRequest("p1", "s1"));
    h.stream.send(2, permissionRequest("p2", "s2"));
    await settle();
    expect(h.signals.get("call-p1")?.aborted).toBe(false);

    await h.client.cancel({ sessionId: "s1" });
    await settle();
    expect(h.signals.get("call-p1")?.aborted).toBe(true);
    expect(h.signals.get("call-p2")?.aborted).toBe(false);
    h.replies.get("call-p1")?.resolve(SELECTED);
    await settle();

    const answers = h.posts().filter((post) => post.id === "p1");
    expect(answers).toEqual([{ jsonrpc: "2.0", id: "p1", result: { outcome: { outcome: "cancelled" } } }]);
    expect(h.posts().some((post) => post.method === "session/cancel")).toBe(true);
    // The other session's dialog is untouched and still answered normally.
    h.replies.get("call-p2")?.resolve(SELECTED);
    await h.server.until(() => h.posts().find((post) => post.id === "p2"));
    expect(h.posts().find((post) => post.id === "p2")).toEqual({ jsonrpc: "2.0", id: "p2", result: SELECTED });
  });

  it("answers a cancelled turn's permission only once the server has the cancel, so the agent reads it first", async () => {
    const h = await withPendingDialogs();
    h.stream.send(1, permissionRequest("p1", "s1"));
    await settle();
    const cancelHeld = new Deferred<Response>();
    h.server.onPost = (request) => (bodyOf(request).method === "session/cancel" ? cancelHeld.promise : accepted());
    const cancelled = h.client.cancel({ sessionId: "s1" });
    await h.server.until(() => h.posts().find((post) => post.method === "session/cancel"));
    await settle();
    // The handler stops at once; its answer waits behind the cancel.
    expect(h.signals.get("call-p1")?.aborted).toBe(true);
    expect(h.posts().filter((post) => post.id === "p1")).toEqual([]);
    cancelHeld.resolve(accepted());
    await cancelled;
    const answer = await h.server.until(() => h.posts().find((post) => post.id === "p1"));
    expect(answer).toEqual({ jsonrpc: "2.0", id: "p1", result: { outcome: { outcome: "cancelled" } } });
    const order = h.posts().map((post) => post.method ?? post.id);
    expect(order.indexOf("session/cancel")).toBeLessThan(order.indexOf("p1"));
  });

  it("takes over a request an earlier client received: answered by the handler, or cancelled with its turn", async () => {
    const h = await withPendingDialogs();
    h.client.adoptAgentRequest(permissionRequest("p7", "s1") as never);
    h.client.adoptAgentRequest(permissionRequest("p8", "s2") as never);
    // Taken once: the same request again (a replayed stream) is the one already waiting.
    h.client.adoptAgentRequest(permissionRequest("p7", "s1") as never);
    // Not a request: ignored.
    h.client.adoptAgentRequest({ jsonrpc: "2.0", method: "session/request_permission" } as never);
    await settle();
    expect([...h.signals.keys()]).toEqual(["call-p7", "call-p8"]);
    h.replies.get("call-p8")?.resolve(SELECTED);
    expect(await h.server.until(() => h.posts().find((post) => post.id === "p8"))).toEqual({
      jsonrpc: "2.0",
      id: "p8",
      result: SELECTED,
    });
    await h.client.cancel({ sessionId: "s1" });
    expect(await h.server.until(() => h.posts().find((post) => post.id === "p7"))).toEqual({
      jsonrpc: "2.0",
      id: "p7",
      result: { outcome: { outcome: "cancelled" } },
    });
  });

  it("does not take over a request already received or adopted here, even once it is answered", async () => {
    const h = await withPendingDialogs();
    // The stream brought it (a replay), and its answer went out before the stored copy is adopted.
    h.stream.send(1, permissionRequest("p1", "s1"));
    await settle();
    h.replies.get("call-p1")?.resolve(SELECTED);
    await h.server.until(() => h.posts().find((post) => post.id === "p1"));
    h.client.adoptAgentRequest(permissionRequest("p1", "s1") as never);
    // Adopted and answered, then adopted again.
    h.client.adoptAgentRequest(permissionRequest("p2", "s1") as never);
    await settle();
    h.replies.get("call-p2")?.resolve(SELECTED);
    await h.server.until(() => h.posts().find((post) => post.id === "p2"));
    h.replies.clear();
    h.client.adoptAgentRequest(permissionRequest("p2", "s1") as never);
    await settle();
    expect([...h.replies.keys()]).toEqual([]);
    expect(h.posts().filter((post) => post.id === "p1" || post.id === "p2")).toEqual([
      { jsonrpc: "2.0", id: "p1", result: SELECTED },
      { jsonrpc: "2.0", id: "p2", result: SELECTED },
    ]);
  });

  it("aborts the handler on $/cancel_request, answers -32800, and sends no late answer", async () => {
    const h = await withPendingDialogs();
    h.stream.send(1, permissionRequest("p1", "s1"));
    await settle();
    h.stream.send(2, { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "p1" } });
    await settle();
    expect(h.signals.get("call-p1")?.aborted).toBe(true);
    h.replies.get("call-p1")?.resolve(SELECTED);
    await settle();
    // The protocol still wants one response per request: the cancellation error, never the late choice.
    const answers = h.posts().filter((post) => post.id === "p1");
    expect(answers).toEqual([{ jsonrpc: "2.0", id: "p1", error: { code: -32800, message: "Request cancelled" } }]);
  });

  it("ignores a $/cancel_request for an id that is not pending", async () => {
    const h = await withPendingDialogs();
    h.stream.send(1, permissionRequest("p1", "s1"));
    await settle();
    h.stream.send(2, { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "other" } });
    await settle();
    expect(h.signals.get("call-p1")?.aborted).toBe(false);
    h.replies.get("call-p1")?.resolve(SELECTED);
    await h.server.until(() => h.posts().find((post) => post.id === "p1"));
    expect(h.posts().filter((post) => post.id === "p1")).toEqual([{ jsonrpc: "2.0", id: "p1", result: SELECTED }]);
  });

  it("aborts pending handlers when the connection closes", async () => {
    const h = await withPendingDialogs();
    h.stream.send(1, permissionRequest("p1", "s1"));
    await settle();
    await h.client.disconnect();
    expect(h.signals.get("call-p1")?.aborted).toBe(true);
  });

  it("lets a file handler of a cancelled turn answer for itself: giving up on its signal answers -32800", async () => {
    const h = createHarness({
      handlers: {
        readTextFile: (_params, context) =>
          new Promise((_resolve, reject) => {
            context.signal.addEventListener("abort", () => reject(new DOMException("gave up", "AbortError")));
          }),
      },
    });
    const stream = await bootstrap(h);
    stream.send(1, { jsonrpc: "2.0", id: 4, method: "fs/read_text_file", params: { sessionId: "s1", path: "/a" } });
    await settle();
    await h.client.cancel({ sessionId: "s1" });
    const answer = await h.server.until(() => h.server.requestsOf("POST").map(bodyOf).find((post) => post.id === 4));
    expect(answer).toEqual({ jsonrpc: "2.0", id: 4, error: { code: -32800, message: "Request cancelled" } });
  });

  it("answers -32800 too when a handler of a cancelled turn stops with throwIfAborted()", async () => {
    const h = createHarness({
      handlers: {
        readTextFile: async (_params, context) => {
          await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
          context.signal.throwIfAborted();
          return { content: "never" };
        },
      },
    });
    const stream = await bootstrap(h);
    stream.send(1, { jsonrpc: "2.0", id: 5, method: "fs/read_text_file", params: { sessionId: "s1", path: "/a" } });
    await settle();
    await h.client.cancel({ sessionId: "s1" });
    const answer = await h.server.until(() => h.server.requestsOf("POST").map(bodyOf).find((post) => post.id === 5));
    expect(answer).toEqual({ jsonrpc: "2.0", id: 5, error: { code: -32800, message: "Request cancelled" } });
  });
});
