/**
 * A 401 or 403 on a request of a live connection: the credentials are no good any more, so the
 * connection is over (as in the official ACP client and the MCP SDK), unless a token function can
 * give a fresh token, which is asked once, with one re-POST.
 */
import { AcpConnectionClosedError, AcpHttpError } from "../../../lib/acp-http/index.js";
import { bodyOf, never, problemResponse, rpcResult, type RecordedRequest } from "../../support/fake-acp-server.js";
import { bootstrap, createHarness, disconnectAll, settle, watch, type Harness } from "./client-harness.js";

afterEach(disconnectAll);

const BOUND_MS = 2000;

/** Every wait in this file is bounded: a hang fails the test instead of stalling the run. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return within(
    promise.then(() => new Error("expected a failure"), (error: unknown) => error),
    BOUND_MS,
    "failure",
  );
}

const refused = (status: number) => problemResponse(status, { title: "Token Invalid", status });

function postsOf(h: Harness, method: string): RecordedRequest[] {
  return h.server.requestsOf("POST").filter((request) => bodyOf(request).method === method);
}

/**
 * Bootstraps, then makes the server refuse every POST with `status` except `_ext/hang`, which it
 * never answers; returns that call, pending, once its POST has arrived.
 */
async function refusingWithCallPending(h: Harness, status: number) {
  await within(bootstrap(h), BOUND_MS, "bootstrap");
  h.server.onPost = (request) => (bodyOf(request).method === "_ext/hang" ? never() : refused(status));
  const pending = h.client.request("_ext/hang");
  const pendingOutcome = watch(pending);
  await within(h.server.until(() => postsOf(h, "_ext/hang")[0]), BOUND_MS, "the pending call's POST");
  return { pending, pendingOutcome };
}

describe("a 401/403 on a request of a live connection", () => {
  it.each([401, 403])("with a static token, %d closes the connection as unauthorized and fails what is pending", async (status) => {
    const h = createHarness({ token: "static-token", closeTimeoutMs: 100 });
    const { pending, pendingOutcome } = await refusingWithCallPending(h, status);

    const refusedCall = await failureOf(h.client.request("_ext/refused"));
    expect(refusedCall).toBeInstanceOf(AcpConnectionClosedError);
    expect((refusedCall as AcpConnectionClosedError).reason).toBe("unauthorized");
    expect(((refusedCall as Error).cause as AcpHttpError).status).toBe(status);
    // A static token cannot change: no second try.
    expect(postsOf(h, "_ext/refused")).toHaveLength(1);

    const closed = await within(h.client.closed, BOUND_MS, "close");
    expect(closed.reason).toBe("unauthorized");
    await within(pending.catch(() => undefined), BOUND_MS, "the pending call's failure");
    expect(pendingOutcome.error).toBeInstanceOf(AcpConnectionClosedError);
    expect((pendingOutcome.error as AcpConnectionClosedError).reason).toBe("unauthorized");
    expect(h.client.state).toBe("closed");
    // Later calls fail at once; the server that refused our credentials gets no DELETE.
    const later = await failureOf(h.client.request("_ext/later"));
    expect((later as AcpConnectionClosedError).reason).toBe("unauthorized");
    await settle();
    expect(h.server.requestsOf("DELETE")).toEqual([]);
  });

  it("with a token function, asks it once more and re-POSTs once: the call succeeds and the connection stays open", async () => {
    let next = "first";
    const asked: string[] = [];
    const h = createHarness({
      token: () => {
        asked.push(next);
        return next;
      },
    });
    await within(bootstrap(h), BOUND_MS, "bootstrap");
    // The token expires: the server refuses it, and the token function's next answer is a fresh one.
    next = "expired";
    h.server.onPost = (request) => {
      if (request.headers.get("authorization") === "Bearer expired") {
        next = "fresh";
        return refused(401);
      }
      return rpcResult(bodyOf(request).id, { ok: true });
    };
    await expect(within(h.client.request("_ext/call"), BOUND_MS, "an answer")).resolves.toEqual({ ok: true });
    expect(postsOf(h, "_ext/call").map((request) => request.headers.get("authorization"))).toEqual(["Bearer expired", "Bearer fresh"]);
    expect(asked.slice(-2)).toEqual(["expired", "fresh"]);
    expect(h.client.state).toBe("open");
    expect(h.client.closeInfo).toBeUndefined();
  });

  it("with a token function whose fresh token is refused too, closes as unauthorized after exactly one retry", async () => {
    const h = createHarness({ token: () => "always-refused", closeTimeoutMs: 100 });
    const { pending, pendingOutcome } = await refusingWithCallPending(h, 401);

    const failure = await failureOf(h.client.request("_ext/refused"));
    expect(failure).toBeInstanceOf(AcpConnectionClosedError);
    expect((failure as AcpConnectionClosedError).reason).toBe("unauthorized");
    expect(postsOf(h, "_ext/refused")).toHaveLength(2);
    expect((await within(h.client.closed, BOUND_MS, "close")).reason).toBe("unauthorized");
    await within(pending.catch(() => undefined), BOUND_MS, "the pending call's failure");
    expect(pendingOutcome.error).toBeInstanceOf(AcpConnectionClosedError);
  });

  it("a notification refused with 401 closes the connection too, and notify() rejects", async () => {
    const h = createHarness({ token: "static-token", closeTimeoutMs: 100 });
    await within(bootstrap(h), BOUND_MS, "bootstrap");
    h.server.onPost = () => refused(401);
    const failure = await failureOf(h.client.notify("_ext/note", {}));
    expect(failure).toBeInstanceOf(AcpConnectionClosedError);
    expect((await within(h.client.closed, BOUND_MS, "close")).reason).toBe("unauthorized");
  });
});

describe("a 401/403 before the connection is up, or on its event stream", () => {
  /** A token function whose answer the test sets, recording each time it is asked. */
  function rotatingToken(first: string) {
    const state = { next: first, asked: [] as string[] };
    const token = () => {
      state.asked.push(state.next);
      return state.next;
    };
    return { state, token };
  }

  it.each([401, 403])("initialize refused with %d: a token function is asked once more and initialize re-POSTed once", async (status) => {
    const { state, token } = rotatingToken("expired");
    const h = createHarness({ token });
    h.server.onPost = (request) => {
      if (request.headers.get("authorization") === "Bearer expired") {
        state.next = "fresh";
        return refused(status);
      }
      return rpcResult(bodyOf(request).id, { protocolVersion: 1 });
    };
    await within(h.client.initialize(), BOUND_MS, "initialize");
    expect(postsOf(h, "initialize").map((request) => request.headers.get("authorization"))).toEqual([
      "Bearer expired",
      "Bearer fresh",
    ]);
    await within(h.server.stream(1), BOUND_MS, "the connection stream");
    await settle();
    expect(h.client.state).toBe("open");
  });

  it("initialize refused again after the one retry fails as unauthorized, with exactly two POSTs", async () => {
    const h = createHarness({ token: () => "always-refused", closeTimeoutMs: 100 });
    h.server.onPost = () => refused(401);
    const failure = await failureOf(h.client.initialize());
    expect(failure).toBeInstanceOf(AcpHttpError);
    expect((failure as AcpHttpError).status).toBe(401);
    expect(postsOf(h, "initialize")).toHaveLength(2);
    expect((await within(h.client.closed, BOUND_MS, "close")).reason).toBe("unauthorized");
  });

  it("a static token refused at initialize gets no second POST", async () => {
    const h = createHarness({ token: "static-token", closeTimeoutMs: 100 });
    h.server.onPost = () => refused(401);
    await failureOf(h.client.initialize());
    expect(postsOf(h, "initialize")).toHaveLength(1);
  });

  it("the event stream's GET refused with 401: a token function is asked once more, the stream opens, the connection stays open", async () => {
    const { state, token } = rotatingToken("good");
    const h = createHarness({ token });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: 1 });
    // The token expires between initialize and the stream's GET.
    h.server.onGet = (request) => {
      if (request.headers.get("authorization") === "Bearer expired") {
        state.next = "fresh";
        return refused(401);
      }
      return h.server.openStream(request).response;
    };
    const initialize = h.client.initialize();
    await within(h.server.until(() => postsOf(h, "initialize")[0]), BOUND_MS, "initialize POST");
    state.next = "expired";
    await within(initialize, BOUND_MS, "initialize");
    const stream = await within(h.server.stream(1), BOUND_MS, "the stream open");
    expect(stream.request.headers.get("authorization")).toBe("Bearer fresh");
    expect(h.server.requestsOf("GET").map((request) => request.headers.get("authorization"))).toEqual([
      "Bearer expired",
      "Bearer fresh",
    ]);
    await settle();
    expect(h.client.state).toBe("open");
    expect(h.client.closeInfo).toBeUndefined();
  });

  it("the event stream's GET refused again after the one retry closes the connection as unauthorized", async () => {
    const h = createHarness({ token: () => "refused-on-get", closeTimeoutMs: 100 });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: 1 });
    h.server.onGet = () => refused(401);
    await within(h.client.initialize(), BOUND_MS, "initialize");
    expect((await within(h.client.closed, BOUND_MS, "close")).reason).toBe("unauthorized");
    expect(h.server.requestsOf("GET")).toHaveLength(2);
  });
});
