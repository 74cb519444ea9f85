// Scenario 9: the official ACP SDK 2.4.0 client (`createHttpStream` / `createWebSocketStream` under
// its `client()` app, the 2.x successor of ClientSideConnection) as a contender beside ours and raw.
//   9a  inbound cost per envelope, injected fetch (as scenario 1), RFD shape (connection id header)
//   9b  round trips through the SDK's own AcpServer on loopback, HTTP and WebSocket, sequential
//       and 64 in flight; `_test/ping` answers its params at once (spec/support/acp-sdk-agent.ts)
import { client as clientApp, type ClientConnection } from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { createParser } from "eventsource-parser";
import WebSocket from "ws";
import { AcpHttpClient, RFD_PROFILE, isNotification, type AcpHttpClientOptions } from "../../lib/acp-http/index.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../spec/support/acp-sdk-server.js";
import { raw } from "../contenders/raw.js";
import { collect, Stopwatch, whenCount, type Sample } from "../support/measure.js";
import { fakeServer, type SyntheticBody } from "../support/synthetic.js";

export type OfficialContender = "ours" | "official" | "raw";
export type Transport = "http" | "websocket";

interface Peer {
  call(method: string, params: unknown): Promise<unknown>;
  close(): Promise<void>;
}

const INIT = { protocolVersion: 1, clientCapabilities: {} };
const CONNECTION_ID = "bench-connection";

/** Scenario 1's fake server, plus the RFD connection id header on its answers. */
function rfdFake(bytes: Uint8Array): typeof fetch {
  const base = fakeServer(bytes).fetch;
  return async (input, init) => {
    const response = await base(input, init);
    if ((init?.method ?? "GET") !== "POST") return response;
    const headers = new Headers(response.headers);
    headers.set("acp-connection-id", CONNECTION_ID);
    return new Response(response.body, { status: response.status, headers });
  };
}

function official(connect: () => ReturnType<typeof createHttpStream>, onUpdate?: () => void): Peer & { connection: ClientConnection } {
  const app = clientApp();
  if (onUpdate) app.onNotification("session/update", () => onUpdate());
  const connection = app.connect(connect());
  return {
    connection,
    call: (method, params) => connection.agent.request(method, params),
    close: async () => connection.close(),
  };
}

function ours(options: Partial<AcpHttpClientOptions> & { baseUrl: string }, onUpdate?: () => void): Peer {
  const client = new AcpHttpClient({ ...RFD_PROFILE, closeTimeoutMs: 2000, ...options });
  if (onUpdate) {
    client.envelopes$.subscribe((envelope) => {
      if (isNotification(envelope) && envelope.method === "session/update") onUpdate();
    });
  }
  return { call: (method, params) => client.request(method, params), close: () => client.disconnect() };
}

/** 7a: one contender consumes `body` (every envelope a `session/update`) through its public API. */
export async function inboundRfd(name: OfficialContender, body: SyntheticBody): Promise<Sample & { envelopes: number }> {
  const fetchImpl = rfdFake(body.bytes);
  let seen = 0;
  const progress = whenCount(() => seen, body.envelopes);
  const onUpdate = () => {
    if (++seen >= body.envelopes) progress.notify();
  };
  collect();
  const watch = new Stopwatch();
  const baseUrl = "http://bench.invalid";
  let peer: Peer;
  if (name === "official") peer = official(() => createHttpStream(`${baseUrl}/acp`, { fetch: fetchImpl }), onUpdate);
  else if (name === "ours") peer = ours({ baseUrl, fetch: fetchImpl }, onUpdate);
  else {
    const connection = raw.connect({ baseUrl, path: "/acp", fetch: fetchImpl, listeners: [onUpdate] });
    peer = { call: (method, params) => connection.call(method, params as Record<string, unknown>), close: () => connection.close() };
  }
  await peer.call("initialize", INIT);
  await progress.done;
  const sample = watch.read();
  await peer.close();
  return { ...sample, envelopes: body.envelopes };
}

/** Raw HTTP: POST (202), one connection GET read with eventsource-parser, answers matched by id. */
async function rawHttp(server: AcpSdkServer): Promise<Peer> {
  const url = `${server.baseUrl}/acp`;
  const first = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: INIT }),
  });
  await first.text();
  const connectionId = first.headers.get("acp-connection-id") ?? "";
  const waiting = new Map<number, (result: unknown) => void>();
  const stream = new AbortController();
  const get = await fetch(url, { headers: { accept: "text/event-stream", "acp-connection-id": connectionId }, signal: stream.signal });
  const parser = createParser({
    onEvent: (event) => {
      const message = JSON.parse(event.data) as { id?: number; result?: unknown };
      if (typeof message.id === "number") waiting.get(message.id)?.(message.result);
      waiting.delete(message.id as number);
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    const reader = get.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  let nextId = 1;
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "acp-connection-id": connectionId };
  return {
    call: async (method, params) => {
      const id = nextId++;
      const answer = new Promise((resolve) => waiting.set(id, resolve));
      const response = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
      await response.arrayBuffer();
      return answer;
    },
    close: async () => {
      stream.abort();
      await fetch(url, { method: "DELETE", headers: { "acp-connection-id": connectionId } }).then((r) => r.arrayBuffer(), () => undefined);
    },
  };
}

/** Raw WebSocket: one `ws` socket, JSON text frames, answers matched by id. */
async function rawWs(server: AcpSdkServer): Promise<Peer> {
  const socket = new WebSocket(server.wsUrl);
  await new Promise((resolve, reject) => (socket.once("open", resolve), socket.once("error", reject)));
  const waiting = new Map<number, (result: unknown) => void>();
  socket.on("message", (data, isBinary) => {
    if (isBinary) return;
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (typeof message.id !== "number") return;
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  });
  let nextId = 0;
  const call = (method: string, params: unknown) => {
    const id = nextId++;
    const answer = new Promise((resolve) => waiting.set(id, resolve));
    socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return answer;
  };
  await call("initialize", INIT);
  return { call, close: async () => socket.close() };
}

/** A warmed-up peer of `name` on `transport` against `server`. */
export async function openPeer(name: OfficialContender, transport: Transport, server: AcpSdkServer): Promise<Peer> {
  let peer: Peer;
  if (name === "raw") peer = transport === "http" ? await rawHttp(server) : await rawWs(server);
  else if (name === "official") {
    const url = transport === "http" ? `${server.baseUrl}/acp` : server.wsUrl;
    const connect = () =>
      transport === "http" ? createHttpStream(url) : createWebSocketStream(url, { WebSocket: WebSocket as never });
    peer = official(connect);
    await peer.call("initialize", INIT);
  } else {
    peer = ours({ baseUrl: server.baseUrl, ...(transport === "websocket" ? { transport, WebSocket } : {}) });
    await peer.call("initialize", INIT);
  }
  for (let i = 0; i < 300; i++) await peer.call("_test/ping", { warmup: i });
  return peer;
}

export async function roundTrips(peer: Peer, count: number, inFlight: number): Promise<Sample & { requests: number }> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await peer.call("_test/ping", { seq: next++ });
  };
  collect();
  const watch = new Stopwatch();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { ...watch.read(), requests: count };
}

export { startAcpSdkServer };
