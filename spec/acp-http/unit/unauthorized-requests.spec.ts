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
