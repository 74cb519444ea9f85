/**
 * AcpHttpClient against the v2 contract server (/work/shared/contract/v2-acp-http.md §1):
 * header-issued connection ids, the one-stream-per-connection rule and unknown connections.
 */
import {
  AcpConnectionClosedError,
  AcpHttpClient,
  AcpHttpError,
  type AcpHttpClientOptions,
} from "../../../lib/acp-http/index.js";
import { startV2ContractServer, type V2ContractServer } from "../../support/v2-contract-server.js";
import { SANDBOX_AGENT_V2 } from "../../support/sandbox-agent-transport.js";
import { chunkTexts, newSessionParams, record, settle, textPrompt } from "./helpers.js";

const CONNECTION_HEADER = "x-acp-connection-id";
const agentMeta = { "sandboxagent.dev": { agent: "mock" } };

interface SeenRequest {
  method: string;
  connectionId: string | null;
  lastEventId: string | null;
  status?: number;
}

let server: V2ContractServer;
const clients: AcpHttpClient[] = [];
const cleanups: (() => void)[] = [];

function requestsOf(input: RequestInfo | URL, init: RequestInit | undefined): { method: string; headers: Headers } {
  if (input instanceof Request) return { method: input.method, headers: input.headers };
  return { method: init?.method ?? "GET", headers: new Headers(init?.headers) };
}

/** A fetch that records method, connection id header and status of every request the client makes. */
function recordingFetch(seen: SeenRequest[]): typeof fetch {
  return async (input, init) => {
    const { method, headers } = requestsOf(input, init);
    const entry: SeenRequest = { method, connectionId: headers.get(CONNECTION_HEADER), lastEventId: headers.get("last-event-id") };
    seen.push(entry);
    const response = await fetch(input, init);
    entry.status = response.status;
    return response;
  };
}

function client(options: Partial<AcpHttpClientOptions> = {}): AcpHttpClient {
  const created = new AcpHttpClient({ baseUrl: server.baseUrl, ...SANDBOX_AGENT_V2, closeTimeoutMs: 1000, ...options });
  clients.push(created);
  return created;
}

beforeAll(async () => {
  server = await startV2ContractServer({ mockChunkDelayMs: 0 });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.disconnect()));
  for (const cleanup of cleanups.splice(0)) cleanup();
});

afterAll(async () => {
  await server?.stop();
});

describe("AcpHttpClient against the v2 contract server", () => {
  it("learns the connection id from the first response and sends it on POST, GET and DELETE", async () => {
    const seen: SeenRequest[] = [];
    const acp = client({ fetch: recordingFetch(seen) });
    expect(acp.connectionId).toBeUndefined();

    await acp.initialize({ _meta: agentMeta });
    const connectionId = acp.connectionId;
    expect(connectionId).toMatch(/^acp_conn_\d+$/);
    expect(server.connections()).toContain(connectionId);

    const { sessionId } = await acp.newSession(newSessionParams({ _meta: agentMeta }));
    await acp.prompt(textPrompt(sessionId, "hello there"));
    await acp.disconnect();

    expect(server.connections()).not.toContain(connectionId);
    const [bootstrap, ...rest] = seen;
    expect(bootstrap).toMatchObject({ method: "POST", connectionId: null, status: 200 });
    const byMethod = (method: string) => rest.filter((entry) => entry.method === method);
    expect(byMethod("POST").length).toBeGreaterThanOrEqual(2);
    expect(byMethod("GET").length).toBeGreaterThanOrEqual(1);
    expect(byMethod("DELETE")).toHaveLength(1);
    for (const entry of rest) expect(entry.connectionId).toBe(connectionId);
    expect(byMethod("DELETE")[0]?.status).toBe(204);
  });

  it("prompt streaming: every chunk is delivered before the prompt resolves", async () => {
    const acp = client();
    const seen = record(acp);
    await acp.initialize({ _meta: agentMeta });
    const { sessionId } = await acp.newSession(newSessionParams({ _meta: agentMeta }));
    const words = Array.from({ length: 50 }, (_, i) => `w${i}`);
    const expected = ["mock: ", ...words.map((word, i) => (i < words.length - 1 ? `${word} ` : word))];

    for (let turn = 0; turn < 3; turn++) {
      const before = chunkTexts(seen.envelopes, sessionId).length;
      const atResolve = await acp
        .prompt(textPrompt(sessionId, words.join(" ")))
        .then((result) => ({ result, chunks: chunkTexts(seen.envelopes, sessionId).slice(before) }));
      expect(atResolve.result.stopReason).toBe("end_turn");
      expect(atResolve.chunks).toEqual(expected);
    }
    seen.stop();
  });

  it("a second GET on the connection (409) ends the connection with a typed error once the retry budget is spent", async () => {
    const held: AbortController[] = [];
    let hijacked = false;
    // Before the client's own first GET goes out, another reader takes the connection's one stream slot.
    const hijackingFetch: typeof fetch = async (input, init) => {
      const { method, headers } = requestsOf(input, init);
      if (method === "GET" && !hijacked) {
        hijacked = true;
        const controller = new AbortController();
        held.push(controller);
        const other = await fetch(`${server.baseUrl}/v2/rpc`, {
          headers: { accept: "text/event-stream", [CONNECTION_HEADER]: headers.get(CONNECTION_HEADER) ?? "" },
          signal: controller.signal,
        });
        expect(other.status).toBe(200);
      }
      return fetch(input, init);
    };
    cleanups.push(() => held.forEach((controller) => controller.abort()));
    const acp = client({ fetch: hijackingFetch, reconnect: { maxRetries: 2, initialDelayMs: 10, maxDelayMs: 20 } });
    await acp.initialize({ _meta: agentMeta });

    const started = Date.now();
    const info = await acp.closed;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(info.reason).toBe("retries-exhausted");
    expect(info.error).toBeInstanceOf(AcpConnectionClosedError);
    const cause = info.error?.cause;
    expect(cause).toBeInstanceOf(AcpHttpError);
    expect(cause).toMatchObject({ status: 409, problem: { detail: expect.stringContaining("active SSE stream") } });
    expect(acp.state).toBe("closed");

    const later = await settle(acp.extMethod("_probe/echo", {}));
    const laterError = later.ok ? undefined : later.error;
    expect(laterError).toBeInstanceOf(AcpConnectionClosedError);
    expect((laterError as AcpConnectionClosedError).cause).toBe(cause);
  });

  it("an unknown connection id (404) rejects with a typed AcpHttpError", async () => {
    const seen: SeenRequest[] = [];
    const acp = client({ connectionId: "acp_conn_999", fetch: recordingFetch(seen) });
    const outcome = await settle(acp.initialize({ _meta: agentMeta }));
    expect(outcome.ok).toBe(false);
    const error = outcome.ok ? undefined : outcome.error;
    expect(error).toBeInstanceOf(AcpHttpError);
    expect(error).toMatchObject({ status: 404, problem: { type: "urn:sandbox-agent:error:client_not_found" } });
    expect(seen).toEqual([expect.objectContaining({ method: "POST", connectionId: "acp_conn_999", status: 404 })]);
    // No stream was opened for a connection the server does not know.
    expect(seen.some((entry) => entry.method === "GET")).toBe(false);
  });

  it("a connection id that disappears after it was in use closes the connection: typed, with the 404 as cause", async () => {
    const acp = client({ reconnect: { maxRetries: 1, initialDelayMs: 10 } });
    await acp.initialize({ _meta: agentMeta });
    const connectionId = acp.connectionId ?? "";
    // Someone else ends the connection behind the client's back.
    const deleted = await fetch(`${server.baseUrl}/v2/rpc`, { method: "DELETE", headers: { [CONNECTION_HEADER]: connectionId } });
    expect(deleted.status).toBe(204);

    const outcome = await settle(acp.extMethod("_probe/echo", {}));
    const error = outcome.ok ? undefined : outcome.error;
    expect(error).toBeInstanceOf(AcpConnectionClosedError);
    const info = await acp.closed;
    expect(info.reason).toBe("connection-lost");
    expect(info.error?.cause).toBeInstanceOf(AcpHttpError);
    expect((info.error?.cause as AcpHttpError).status).toBe(404);
  });
});
