/**
 * AcpHttpClient against the real sandbox-agent 0.4.2 server (`/v1/acp/{serverId}`) with the
 * scripted agent as its `mock` agent: the request/notification paths and the connection lifecycle.
 */
import { filter, firstValueFrom, toArray } from "rxjs";
import {
  AcpConnectionClosedError,
  AcpHttpClient,
  AcpRpcError,
  isResponse,
  type AcpConnectionState,
  type AcpEnvelope,
  type RequestPermissionParams,
} from "../../../lib/acp-http/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { SANDBOX_AGENT_HEADER } from "../../support/sandbox-agent-transport.js";
import {
  chunkTexts,
  isNotificationNamed,
  messageChunk,
  newSessionParams,
  range,
  record,
  sandboxClient,
  settle,
  textPrompt,
  uniqueServerId,
} from "./helpers.js";

let server: SandboxAgentServer;
const clients: AcpHttpClient[] = [];

function client(label: string, extra: Parameters<typeof sandboxClient>[2] = {}): AcpHttpClient {
  const created = sandboxClient(server.baseUrl, label, extra);
  clients.push(created);
  return created;
}

async function listedServerIds(): Promise<string[]> {
  const response = await fetch(`${server.baseUrl}/v1/acp`);
  const body = (await response.json()) as { servers: { serverId: string }[] };
  return body.servers.map((entry) => entry.serverId);
}

beforeAll(async () => {
  server = await startSandboxAgent();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.disconnect()));
});

afterAll(async () => {
  await server?.stop();
});

describe("AcpHttpClient against sandbox-agent 0.4.2", () => {
  it("initialize → newSession → prompt streams the updates in order on envelopes$, then the response", async () => {
    const acp = client("flow");
    const seen = record(acp);

    const init = await acp.initialize();
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await acp.newSession(newSessionParams());
    expect(sessionId).toMatch(/^sess-/);

    const result = await acp.prompt(textPrompt(sessionId, "chunks 5"));
    expect(result.stopReason).toBe("end_turn");

    expect(chunkTexts(seen.envelopes, sessionId)).toEqual(range(5, "c"));
    const seqs = seen.envelopes.flatMap((envelope) => {
      const meta = messageChunk(envelope) ? (envelope as { params?: { _meta?: { seq?: number } } }).params?._meta : undefined;
      return meta?.seq === undefined ? [] : [meta.seq];
    });
    expect(seqs).toEqual([0, 1, 2, 3, 4]);

    // The prompt's response comes after its updates, and each response exactly once
    // although the server sends it twice (POST body and stream).
    const promptResponses = seen.envelopes.filter(
      (envelope) => isResponse(envelope) && "result" in envelope && (envelope.result as { stopReason?: unknown } | null)?.stopReason === "end_turn",
    );
    expect(promptResponses).toHaveLength(1);
    const lastChunkAt = seen.envelopes.findIndex((envelope) => messageChunk(envelope)?.text === "c4");
    expect(seen.envelopes.indexOf(promptResponses[0] as AcpEnvelope)).toBeGreaterThan(lastChunkAt);
    const responseIds = seen.envelopes.filter(isResponse).map((envelope) => JSON.stringify(envelope.id));
    expect(new Set(responseIds).size).toBe(responseIds.length);
    expect(responseIds).toHaveLength(3);
    seen.stop();
  });

  it("the transcript is complete at the moment prompt resolves", async () => {
    const acp = client("transcript");
    const seen = record(acp);
    await acp.initialize();
    const { sessionId } = await acp.newSession(newSessionParams());

    for (let turn = 0; turn < 5; turn++) {
      const before = chunkTexts(seen.envelopes, sessionId).length;
      const atResolve = await acp.prompt(textPrompt(sessionId, "chunks 5")).then(() => chunkTexts(seen.envelopes, sessionId).slice(before));
      expect(atResolve).toEqual(range(5, "c"));
    }
    seen.stop();
  });

  it("answers session/request_permission through handlers.requestPermission", async () => {
    const asked: RequestPermissionParams[] = [];
    const acp = client("permission", {
      handlers: {
        requestPermission: (params) => {
          asked.push(params);
          const allow = params.options.find((option) => option.kind === "allow_once");
          return { outcome: { outcome: "selected", optionId: allow?.optionId ?? "none" } };
        },
      },
    });
    const seen = record(acp);
    await acp.initialize();
    const { sessionId } = await acp.newSession(newSessionParams());

    const result = await acp.prompt(textPrompt(sessionId, "permission"));

    expect(asked).toHaveLength(1);
    expect(asked[0]?.sessionId).toBe(sessionId);
    expect(asked[0]?.options.map((option) => option.optionId)).toEqual(["allow", "deny"]);
    expect(result._meta?.permissionAnswer).toEqual({ outcome: { outcome: "selected", optionId: "allow" } });
    // The agent also reports what it received in a chunk (the server re-serializes JSON, keys sorted).
    const reported = chunkTexts(seen.envelopes, sessionId).map((text): unknown => JSON.parse(text));
    expect(reported).toEqual([{ outcome: { outcome: "selected", optionId: "allow" } }]);
    expect(seen.envelopes.some((envelope) => "method" in envelope && envelope.method === "session/request_permission")).toBe(true);
    seen.stop();
  });

  it("a JSON-RPC error answer rejects with AcpRpcError carrying code, message and data", async () => {
    const acp = client("rpc-error");
    await acp.initialize();
    const { sessionId } = await acp.newSession(newSessionParams());

    const promptFailure = await settle(acp.prompt(textPrompt(sessionId, "error -32042 boom")));
    expect(promptFailure.ok).toBe(false);
    const promptError = promptFailure.ok ? undefined : promptFailure.error;
    expect(promptError).toBeInstanceOf(AcpRpcError);
    expect(promptError).toMatchObject({ code: -32042, method: "session/prompt", data: { scripted: true } });
    expect((promptError as AcpRpcError).message).toContain("boom");

    const extFailure = await settle(acp.extMethod("_probe/error", { code: -32099, message: "probe says no", data: { n: 1 } }));
    const extError = extFailure.ok ? undefined : extFailure.error;
    expect(extError).toBeInstanceOf(AcpRpcError);
    expect(extError).toMatchObject({ code: -32099, method: "_probe/error", data: { n: 1 } });
    expect((extError as AcpRpcError).message).toContain("probe says no");

    // The connection survives a JSON-RPC error.
    expect(acp.state).toBe("open");
    await expect(acp.prompt(textPrompt(sessionId, "chunks 1"))).resolves.toMatchObject({ stopReason: "end_turn" });
  });

  it("round-trips an ext method and an ext notification", async () => {
    const acp = client("ext");
    await acp.initialize();

    const params = { text: "héllo", nested: { list: [1, 2, 3] }, flag: true };
    await expect(acp.extMethod("_probe/echo", params)).resolves.toEqual(params);

    const pong = firstValueFrom(acp.envelopes$.pipe(filter((envelope) => isNotificationNamed(envelope, "_probe/pong"))));
    await acp.extNotification("_probe/ping", { x: 1 });
    await expect(pong).resolves.toMatchObject({ method: "_probe/pong", params: { x: 1 } });
  });

  it("disconnect sends DELETE, completes envelopes$ and state$, and later calls reject with AcpConnectionClosedError", async () => {
    const requests: { method: string; url: string }[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      const method = input instanceof Request ? input.method : (init?.method ?? "GET");
      const url = input instanceof Request ? input.url : String(input);
      requests.push({ method, url });
      return fetch(input, init);
    };
    const serverId = uniqueServerId("disconnect");
    const acp = new AcpHttpClient({
      baseUrl: server.baseUrl,
      path: `/v1/acp/${serverId}`,
      ...SANDBOX_AGENT_HEADER,
      bootstrapQuery: { agent: "mock" },
      responseEcho: true,
      closeTimeoutMs: 500,
      fetch: recordingFetch,
    });
    clients.push(acp);
    const envelopes = firstValueFrom(acp.envelopes$.pipe(toArray()));
    const states = firstValueFrom(acp.state$.pipe(toArray()));
    await acp.initialize();
    const { sessionId } = await acp.newSession(newSessionParams());
    await acp.prompt(textPrompt(sessionId, "chunks 2"));
    expect(await listedServerIds()).toContain(serverId);

    await acp.disconnect();

    const deletes = requests.filter((entry) => entry.method === "DELETE");
    expect(deletes).toHaveLength(1);
    expect(new URL(deletes[0]?.url ?? "").pathname).toBe(`/v1/acp/${serverId}`);
    expect(await listedServerIds()).not.toContain(serverId);

    // Both observables complete (toArray would never emit otherwise).
    expect(chunkTexts(await envelopes, sessionId)).toEqual(["c0", "c1"]);
    const stateHistory: AcpConnectionState[] = await states;
    expect(stateHistory.at(-1)).toBe("closed");
    expect(stateHistory).toContain("open");
    expect(acp.state).toBe("closed");
    await expect(acp.closed).resolves.toEqual({ reason: "disconnected" });

    await expect(acp.prompt(textPrompt(sessionId, "chunks 1"))).rejects.toBeInstanceOf(AcpConnectionClosedError);
    await expect(acp.extNotification("_probe/ping", {})).rejects.toMatchObject({ name: "AcpConnectionClosedError", reason: "disconnected" });
    await expect(acp.disconnect()).resolves.toBeUndefined();
    expect(requests.filter((entry) => entry.method === "DELETE")).toHaveLength(1);
  });

  it("disconnect rejects a request that is still pending with AcpConnectionClosedError", async () => {
    const acp = client("pending");
    await acp.initialize();
    const { sessionId } = await acp.newSession(newSessionParams());
    const pending = settle(acp.prompt(textPrompt(sessionId, "wait")));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await acp.disconnect();
    const outcome = await pending;
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(AcpConnectionClosedError);
  });
});
