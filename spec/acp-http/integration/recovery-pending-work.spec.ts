// What is under way when a lost connection is rebuilt (`recover: true`), against the official SDK's
// `AcpServer` (spec/support/acp-sdk-server.ts; `restart()` forgets every connection id, `stop()`
// takes the server away): the old agent's pending requests, calls and notifications made during the
// rebuild, and `reattach()`'s fallback against a server that never answers.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import {
  AcpAbortError,
  AcpHttpClient,
  AcpInterruptedError,
  AcpTimeoutError,
  RFD_PROFILE,
  type AcpHttpClientOptions,
  type AcpRecovery,
  type WebSocketConstructor,
} from "../../../lib/acp-http/index.js";
import { reattach } from "../../../lib/acp-http/reattach.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../support/acp-sdk-server.js";
import { waitFor } from "../../support/acp-http-helpers.js";

const CWD = "/tmp";
const clients: AcpHttpClient[] = [];
const servers: AcpSdkServer[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.disconnect()));
  await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
});

async function connect(
  transport: "http" | "websocket",
  extra: Partial<AcpHttpClientOptions> = {},
): Promise<{ server: AcpSdkServer; client: AcpHttpClient; sessionId: string }> {
  const server = await startAcpSdkServer();
  servers.push(server);
  const client = new AcpHttpClient({
    ...RFD_PROFILE,
    baseUrl: server.baseUrl,
    closeTimeoutMs: 1000,
    recover: true,
    reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
    ...(transport === "websocket"
      ? { transport: "websocket" as const, WebSocket: WebSocket as unknown as WebSocketConstructor }
      : {}),
    ...extra,
  });
  clients.push(client);
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await client.newSession({ cwd: CWD, mcpServers: [] });
  return { server, client, sessionId };
}

interface Asked {
  id: unknown;
  signal: AbortSignal;
  choose(optionId: string): void;
}

describe.each(["http", "websocket"] as const)("a rebuild over %s and the old agent's pending requests", (transport) => {
  it("aborts their handlers; the rebuilt agent's request (its ids start afresh) is handled and answered", async () => {
    const asked: Asked[] = [];
    const { server, client, sessionId } = await connect(transport, {
      handlers: {
        requestPermission: (_params, context) =>
          new Promise((resolve) => {
            const choose = (optionId: string) => resolve({ outcome: { outcome: "selected", optionId } });
            asked.push({ id: context.id, signal: context.signal, choose });
          }),
      },
    });
    const chunks: string[] = [];
    client.envelopes$.subscribe((e) => {
      const text = (e as { params?: { update?: { content?: { text?: string } } } }).params?.update?.content?.text;
      if (text?.startsWith("permission:")) chunks.push(text);
    });
    const prompt = [{ type: "text" as const, text: "PERMISSION" }];
    const first = client.prompt({ sessionId, prompt }).catch((error: unknown) => error);
    await waitFor(() => asked.length === 1, 10_000, "the first permission request");

    const recovered = new Promise<AcpRecovery>((resolve) => client.recoveries$.subscribe(resolve));
    await server.restart();
    expect((await recovered).loaded).toEqual([sessionId]);
    expect(await first).toBeInstanceOf(AcpInterruptedError);
    expect(asked[0]?.signal.aborted).toBe(true);

    const second = client.prompt({ sessionId, prompt }, { timeoutMs: 10_000 });
    await waitFor(() => asked.length === 2, 10_000, "the rebuilt agent's permission request");
    expect(asked[1]?.signal.aborted).toBe(false);
    asked[1]?.choose("deny");
    expect((await second).stopReason).toBe("end_turn");
    // The user's late answer to the old dialog goes nowhere: the rebuilt agent heard only its own.
    asked[0]?.choose("allow");
    const after = await client.request("_test/ping", { n: 1 });
    expect(after).toEqual({ echoed: { n: 1 } });
    expect(chunks).toEqual(["permission:deny"]);
  });
});

describe("a call made during a rebuild (WebSocket, the server gone)", () => {
  async function rebuilding() {
    const { server, client } = await connect("websocket", {
      reconnect: { initialDelayMs: 1000, maxDelayMs: 4000, maxRetries: 3, jitter: 0 },
    });
    const started = new Promise<void>((resolve) =>
      client.reconnecting$.subscribe((attempt) => attempt.kind === "recovery" && resolve()),
    );
    await server.stop();
    await started;
    return client;
  }

  it("fails at its timeoutMs while the rebuild is still under way", async () => {
    const client = await rebuilding();
    const failure = await client.request("_test/ping", {}, { timeoutMs: 200 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AcpTimeoutError);
    expect(client.closeInfo).toBeUndefined();
    expect(client.state).toBe("reconnecting");
  });

  it("fails when its signal aborts while the rebuild is still under way", async () => {
    const client = await rebuilding();
    const controller = new AbortController();
    const call = client.request("_test/ping", {}, { signal: controller.signal }).catch((error: unknown) => error);
    controller.abort();
    expect(await call).toBeInstanceOf(AcpAbortError);
    expect(client.closeInfo).toBeUndefined();
    expect(client.state).toBe("reconnecting");
  });
});

describe("a notification sent during a rebuild (HTTP)", () => {
  it("waits for the new connection and goes out on it", async () => {
    const { server, client, sessionId } = await connect("http");
    let cancelled: Promise<unknown> | undefined;
    client.reconnecting$.subscribe((attempt) => {
      if (attempt.kind !== "recovery" || cancelled) return;
      cancelled = client.cancel({ sessionId }).then(
        () => "sent",
        (error: unknown) => error,
      );
    });
    const recovered = new Promise<AcpRecovery>((resolve) => client.recoveries$.subscribe(resolve));
    await server.restart();
    // Over HTTP the loss is found by the next POST (the server no longer knows the connection).
    void client.request("_test/ping", {}).catch(() => undefined);
    await recovered;
    await waitFor(() => cancelled !== undefined, 5000, "the cancel sent during the rebuild");
    expect(await cancelled).toBe("sent");
    // Only the two `initialize`s (the first connection's and the rebuild's) go out without a connection id.
    expect(server.requests.filter((r) => r.kind === "POST" && !r.headers["acp-connection-id"])).toHaveLength(2);
    await waitFor(() => server.log.sessionCancels.includes(sessionId), 5000, "the agent's session/cancel");
  });
});

describe("reattach() when the stored connection is gone and the server never answers", () => {
  let http: Server | undefined;
  afterEach(async () => {
    http?.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
    http = undefined;
  });

  it("each fallback request is bounded: reattach rejects instead of hanging", async () => {
    let posts = 0;
    http = createServer((req, res) => {
      if (req.method === "GET") return void res.writeHead(404).end();
      if (req.method === "POST") return void posts++; // never answered
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as AddressInfo;
    const options = { ...RFD_PROFILE, baseUrl: `http://127.0.0.1:${port}`, closeTimeoutMs: 500 };
    const stored = { connectionId: "gone", sessions: [{ sessionId: "s1", cwd: CWD }] };
    const made: AcpHttpClient[] = [];
    const outcome = reattach(
      { ...options, reconnect: { initialDelayMs: 50, maxDelayMs: 50, maxRetries: 1 } },
      stored,
      (client) => made.push(client),
      { timeoutMs: 300 },
    ).catch((error: unknown) => error);
    const bounded = new Promise((resolve) => setTimeout(() => resolve("still pending"), 10_000).unref());
    expect(await Promise.race([outcome, bounded])).toBeInstanceOf(AcpTimeoutError);
    expect(posts).toBe(2); // one initialize per attempt
    clients.push(...made);
  });
});
