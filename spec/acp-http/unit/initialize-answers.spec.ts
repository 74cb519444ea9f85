/**
 * What `initialize` does with answers it cannot use, and with a `disconnect()` while it is in
 * flight (the official ACP SDK client's transport tests pin the same cases): nothing is taken for
 * an answer that is not one, nothing stays pending, and whatever the server may have created for
 * the connection gets its DELETE.
 */
import { AcpConnectionClosedError, AcpProtocolError } from "../../../lib/acp-http/index.js";
import { bodyOf, jsonResponse, never, rpcResult, textResponse, type RecordedRequest } from "../../support/fake-acp-server.js";
import { CONNECTION_ID, bootstrap, createHarness, disconnectAll, watch, type Harness } from "./client-harness.js";

afterEach(disconnectAll);

/** Every wait in this file is bounded: a hang fails the test instead of stalling the run. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

const BOUND_MS = 2000;

/** The harness with `initialize` answered by `answer` (every other POST 202). */
function harnessAnsweringInitialize(answer: (request: RecordedRequest) => Response | Promise<Response>): Harness {
  const h = createHarness({ closeTimeoutMs: 100 });
  h.server.onPost = (request) => (bodyOf(request).method === "initialize" ? answer(request) : new Response(null, { status: 202 }));
  return h;
}

/** `initialize` fails with a protocol error, the client closes as `initialize-failed` and DELETEs the connection. */
async function expectRejectedAndDeleted(h: Harness): Promise<void> {
  const error = await within(h.client.initialize().then(() => undefined, (caught: unknown) => caught), BOUND_MS, "initialize outcome");
  expect(error).toBeInstanceOf(AcpProtocolError);
  expect((error as AcpProtocolError).method).toBe("initialize");
  const closed = await within(h.client.closed, BOUND_MS, "close");
  expect(closed.reason).toBe("initialize-failed");
  expect(closed.error?.cause).toBe(error);
  const deleted = await within(h.server.request("DELETE"), BOUND_MS, "DELETE");
  expect(deleted.headers.get("x-acp-connection-id")).toBe(CONNECTION_ID);
  // No event stream for a connection that never came up.
  expect(h.server.requestsOf("GET")).toEqual([]);
}

describe("initialize answers that are not the answer", () => {
  it("a result whose id differs from the request's is refused with AcpProtocolError, and the connection is deleted", async () => {
    const h = harnessAnsweringInitialize((request) => rpcResult(Number(bodyOf(request).id) + 41, { protocolVersion: 1 }));
    await expectRejectedAndDeleted(h);
  });

  it("a result whose id is the request's id as a string is refused too (JSON-RPC ids keep their type)", async () => {
    const h = harnessAnsweringInitialize((request) => rpcResult(String(bodyOf(request).id), { protocolVersion: 1 }));
    await expectRejectedAndDeleted(h);
  });

  it("a body holding only a notification fails initialize instead of leaving it pending, and the connection is deleted", async () => {
    const h = harnessAnsweringInitialize(() =>
      jsonResponse({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: {} } }),
    );
    await expectRejectedAndDeleted(h);
  });

  it("a batch without the request's response fails initialize, and the connection is deleted", async () => {
    const h = harnessAnsweringInitialize((request) =>
      jsonResponse([
        { jsonrpc: "2.0", method: "_note", params: {} },
        { jsonrpc: "2.0", id: Number(bodyOf(request).id) + 7, result: {} },
      ]),
    );
    await expectRejectedAndDeleted(h);
  });

  it("a body that is not JSON-RPC at all fails initialize, and the connection is deleted", async () => {
    const h = harnessAnsweringInitialize(() => textResponse(200, "<html>gateway says hello</html>", "text/html"));
    await expectRejectedAndDeleted(h);
  });

  it("the matching answer still opens the connection (the id checks refuse only what is wrong)", async () => {
    const h = createHarness();
    await within(bootstrap(h), BOUND_MS, "bootstrap");
    expect(h.client.state).toBe("open");
  });
});

describe("answers to later requests that are not the answer", () => {
  it("fail only that request with AcpProtocolError; the connection stays open", async () => {
    const h = createHarness();
    await within(bootstrap(h), BOUND_MS, "bootstrap");
    h.server.onPost = (request) => rpcResult(Number(bodyOf(request).id) + 1000, { stolen: true });
    const mismatched = await within(h.client.request("_ext/one").catch((caught: unknown) => caught), BOUND_MS, "a failure");
    expect(mismatched).toBeInstanceOf(AcpProtocolError);
    h.server.onPost = () => jsonResponse({ jsonrpc: "2.0", method: "_note", params: {} });
    const notAnswer = await within(h.client.request("_ext/two").catch((caught: unknown) => caught), BOUND_MS, "a failure");
    expect(notAnswer).toBeInstanceOf(AcpProtocolError);
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { fine: true });
    await expect(within(h.client.request("_ext/three"), BOUND_MS, "an answer")).resolves.toEqual({ fine: true });
    expect(h.client.state).toBe("open");
  });
});

describe("disconnect() while initialize is in flight", () => {
  /** Resolves once `signal` has aborted. */
  const aborted = (signal: AbortSignal) =>
    new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve())));

  it("aborts the initialize POST at once (not after closeTimeoutMs), DELETEs, and initialize fails as closed", async () => {
    // A minute of closeTimeoutMs: only an abort that does not wait for it passes the bound below.
    const h = createHarness({ closeTimeoutMs: 60_000 });
    h.server.onPost = () => never();
    const initialize = h.client.initialize();
    const outcome = watch(initialize);
    const post = await within(h.server.request("POST"), BOUND_MS, "initialize POST");
    const disconnected = h.client.disconnect();
    await within(aborted(post.signal), BOUND_MS, "abort of the initialize POST");
    await within(disconnected, BOUND_MS, "disconnect");
    await within(h.server.request("DELETE"), BOUND_MS, "DELETE");
    await within(initialize.catch(() => undefined), BOUND_MS, "initialize outcome");
    expect(outcome.error).toBeInstanceOf(AcpConnectionClosedError);
    expect((await h.client.closed).reason).toBe("disconnected");
  });

  it("a connection id that arrives anyway, with the aborted POST's answer, is the one the DELETE names", async () => {
    let server: Harness["server"] | undefined;
    let posted!: () => void;
    const initializePosted = new Promise<void>((resolve) => (posted = resolve));
    // A fetch whose answer was already on its way when the abort came: it still resolves, with an id.
    const fetch: typeof globalThis.fetch = (input, init) => {
      const body = typeof init?.body === "string" ? init.body : "";
      if (init?.method !== "POST" || !body.includes('"initialize"')) return server!.fetch(input, init);
      const signal = init.signal as AbortSignal;
      posted();
      return aborted(signal).then(() =>
        rpcResultWithId(JSON.parse(body).id as number, "acp_conn_late"),
      );
    };
    const h = createHarness({ closeTimeoutMs: 60_000, fetch }, {});
    server = h.server;
    const initialize = h.client.initialize().catch((caught: unknown) => caught);
    await within(initializePosted, BOUND_MS, "initialize POST");
    await within(h.client.disconnect(), BOUND_MS, "disconnect");
    const deleted = await within(h.server.request("DELETE"), BOUND_MS, "DELETE");
    expect(deleted.headers.get("x-acp-connection-id")).toBe("acp_conn_late");
    expect(await within(initialize, BOUND_MS, "initialize outcome")).toBeInstanceOf(AcpConnectionClosedError);
  });
});

function rpcResultWithId(id: number, connectionId: string): Response {
  return jsonResponse({ jsonrpc: "2.0", id, result: { protocolVersion: 1 } }, { headers: { "x-acp-connection-id": connectionId } });
}
