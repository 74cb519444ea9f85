/**
 * Bad answers to POSTs (HTTP errors with problem+json, HTML and empty bodies) and odd
 * JSON-RPC traffic (unknown ids, duplicates, missing params, unknown agent requests,
 * handler exceptions), through an injected fetch.
 */
import { describe, expect, it } from "@jest/globals";
import {
  AcpConnectionClosedError,
  AcpHttpClient,
  AcpHttpError,
  type AcpClientHandlers,
  type AcpEnvelope,
} from "../../lib/acp-http/index.js";
import { createFakeFetch, jsonResponse, type FakeFetch } from "./support/fake-fetch.js";
import { outcome, report, sleep, waitFor } from "./support/helpers.js";
import { SANDBOX_AGENT_V2 } from "../support/sandbox-agent-transport.js";

const STATUSES = [400, 401, 403, 404, 406, 409, 415, 500, 502, 504] as const;
const BODIES = ["problem+json", "html", "empty"] as const;
type BodyKind = (typeof BODIES)[number];

function errorResponse(status: number, kind: BodyKind): Response {
  if (kind === "problem+json") {
    return new Response(JSON.stringify({ type: `urn:test:${status}`, title: "Failure", status, detail: `detail ${status}` }), { status, headers: { "content-type": "application/problem+json" } });
  }
  if (kind === "html") return new Response(`<html><body><h1>${status} from a proxy</h1></body></html>`, { status, headers: { "content-type": "text/html" } });
  return new Response(null, { status });
}

const frame = (id: number, envelope: unknown): string => `id: ${id}\ndata: ${JSON.stringify(envelope)}\n\n`;

async function connected(handlers?: AcpClientHandlers): Promise<{ fake: FakeFetch; client: AcpHttpClient; envelopes: AcpEnvelope[] }> {
  const fake = createFakeFetch();
  const client = new AcpHttpClient({ baseUrl: "http://faults.test", ...SANDBOX_AGENT_V2, fetch: fake.fetch, reconnect: { maxRetries: 0 }, ...(handlers ? { handlers } : {}) });
  const envelopes: AcpEnvelope[] = [];
  client.envelopes$.subscribe((envelope) => envelopes.push(envelope));
  await client.initialize();
  await waitFor(() => fake.streams.length === 1, 2000, "the event stream");
  return { fake, client, envelopes };
}

describe("HTTP errors on POST", () => {
  const cases = STATUSES.flatMap((status) => BODIES.map((kind) => ({ status, kind })));
  it.each(cases)("$status with $kind body: that request rejects typed; the others and the stream are unaffected (404: connection lost; 401/403: unauthorized)", async ({ status, kind }) => {
    const { fake, client, envelopes } = await connected();
    const slowIds: unknown[] = [];
    fake.onPost = (body) => {
      if (body.method === "fail/me") return errorResponse(status, kind);
      if (body.method === "slow/ok") {
        slowIds.push(body.id);
        return new Response(null, { status: 202, headers: { "x-acp-connection-id": "conn-1" } });
      }
      return jsonResponse({ jsonrpc: "2.0", id: body.id, result: { ok: true } });
    };
    const slow = outcome(client.request("slow/ok", {}));
    await waitFor(() => slowIds.length === 1, 2000, "the slow request");
    const failed = await outcome(client.request("fail/me", {}));
    expect(failed.ok).toBe(false);
    if (failed.ok) return;
    if (status === 404 || status === 401 || status === 403) {
      // After bootstrap a 404 means the server no longer knows the connection; a 401/403 (with a
      // static token) that it refuses our credentials: either way the connection is over.
      const reason = status === 404 ? "connection-lost" : "unauthorized";
      expect(failed.error).toBeInstanceOf(AcpConnectionClosedError);
      expect((failed.error as AcpConnectionClosedError).reason).toBe(reason);
      const closed = await client.closed;
      expect(closed.reason).toBe(reason);
      expect((closed.error?.cause as AcpHttpError).status).toBe(status);
      const other = await slow;
      expect(other.ok).toBe(false);
      if (!other.ok) expect(other.error).toBeInstanceOf(AcpConnectionClosedError);
      expect(client.state).toBe("closed");
      return;
    }
    const error = failed.error as AcpHttpError;
    expect(error).toBeInstanceOf(AcpHttpError);
    expect(error.status).toBe(status);
    if (kind === "problem+json") {
      expect(error.problem).toMatchObject({ status, detail: `detail ${status}` });
      expect(error.message).toContain(`detail ${status}`);
    } else if (kind === "html") {
      expect(error.problem).toBeUndefined();
      expect(error.bodyText).toContain(`${status} from a proxy`);
    } else {
      expect(error.problem).toBeUndefined();
      expect(error.bodyText).toBeUndefined();
    }
    expect(error.message).toContain(`HTTP ${status}`);
    // The slow request is still pending and is answered on the stream; the stream carries on.
    const stream = fake.streams[0];
    stream?.push(frame(1, { jsonrpc: "2.0", method: "still/alive" }));
    stream?.push(frame(2, { jsonrpc: "2.0", id: slowIds[0], result: { late: true } }));
    const other = await slow;
    expect(other).toMatchObject({ ok: true, value: { late: true } });
    expect(envelopes.some((envelope) => "method" in envelope && envelope.method === "still/alive")).toBe(true);
    expect(client.state).toBe("open");
    expect(await client.request("next/one", {})).toEqual({ ok: true });
    expect(fake.requests.filter((request) => request.method === "GET")).toHaveLength(1);
    await client.disconnect();
  });
});

describe("odd JSON-RPC traffic", () => {
  it("responses for unknown ids and duplicate responses are delivered once and settle nothing twice", async () => {
    const { fake, client, envelopes } = await connected();
    let pendingId: unknown;
    fake.onPost = (body) => {
      pendingId = body.id;
      return new Response(null, { status: 202, headers: { "x-acp-connection-id": "conn-1" } });
    };
    const pending = client.request("some/method", {});
    await waitFor(() => pendingId !== undefined, 2000, "the POST");
    const stream = fake.streams[0];
    stream?.push(frame(1, { jsonrpc: "2.0", id: 9999, result: { stray: true } }));
    stream?.push(frame(2, { jsonrpc: "2.0", id: "nobody", error: { code: -1, message: "stray" } }));
    stream?.push(frame(3, { jsonrpc: "2.0", id: pendingId, result: { first: true } }));
    stream?.push(frame(4, { jsonrpc: "2.0", id: pendingId, result: { second: true } }));
    stream?.push(frame(5, { jsonrpc: "2.0", method: "after/duplicates" }));
    await expect(pending).resolves.toEqual({ first: true });
    await waitFor(() => envelopes.some((envelope) => "method" in envelope && envelope.method === "after/duplicates"), 2000, "the marker");
    const responses = envelopes.filter((envelope) => !("method" in envelope));
    // initialize, two stray ones, the first copy; the duplicate is dropped.
    expect(responses.map((response) => response.id)).toEqual([1, 9999, "nobody", pendingId]);
    expect(client.state).toBe("open");
    await client.disconnect();
  });

  it("notifications with missing params are delivered as they are", async () => {
    const { fake, client, envelopes } = await connected();
    fake.streams[0]?.push(frame(1, { jsonrpc: "2.0", method: "session/update" }));
    fake.streams[0]?.push(frame(2, { jsonrpc: "2.0", method: "_vendor/ping" }));
    await waitFor(() => envelopes.length === 3, 2000, "both notifications");
    expect(envelopes.slice(1)).toEqual([
      { jsonrpc: "2.0", method: "session/update" },
      { jsonrpc: "2.0", method: "_vendor/ping" },
    ]);
    await client.disconnect();
  });

  it("agent requests for unknown methods are answered -32601; a throwing handler is answered -32603; the stream lives on", async () => {
    const { fake, client } = await connected({
      readTextFile: () => {
        throw new Error("disk on fire");
      },
      extMethod: (method) => {
        if (method === "_vendor/throws") throw new TypeError("handler bug");
        return undefined;
      },
    });
    const stream = fake.streams[0];
    stream?.push(frame(1, { jsonrpc: "2.0", id: "a1", method: "no/such/method", params: {} }));
    stream?.push(frame(2, { jsonrpc: "2.0", id: "a2", method: "fs/read_text_file", params: { sessionId: "s", path: "/x" } }));
    stream?.push(frame(3, { jsonrpc: "2.0", id: "a3", method: "_vendor/throws", params: {} }));
    stream?.push(frame(4, { jsonrpc: "2.0", id: "a4", method: "fs/read_text_file", params: { wrong: true } }));
    // The same frame again under its own event id (a replay): answered once only. (An agent may
    // reuse an answered id in a new frame; that is a new request, answered again: see the unit specs.)
    stream?.push(frame(1, { jsonrpc: "2.0", id: "a1", method: "no/such/method", params: {} }));
    const answers = () => fake.posted().filter((body) => typeof body.id === "string" && !("method" in body));
    await waitFor(() => answers().length >= 4, 2000, "four answers");
    await sleep(50);
    const byId = Object.fromEntries(answers().map((body) => [String(body.id), body]));
    report("agent requests", { answers: answers().length });
    expect(answers()).toHaveLength(4);
    expect(byId.a1).toMatchObject({ jsonrpc: "2.0", error: { code: -32601 } });
    expect(byId.a2).toMatchObject({ jsonrpc: "2.0", error: { code: -32603, message: "disk on fire" } });
    expect(byId.a3).toMatchObject({ jsonrpc: "2.0", error: { code: -32603, message: "handler bug" } });
    expect(byId.a4).toMatchObject({ jsonrpc: "2.0", error: { code: -32602 } });
    expect(client.state).toBe("open");
    await client.disconnect();
  });
});
