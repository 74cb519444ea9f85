// Scenario 14: one big message in small network chunks. A single `session/update` envelope of about
// 50 MB (one agent_message_chunk, ASCII text with a two-byte character every 1,000, so UTF-8
// sequences are cut by chunk edges) delivered to an AcpHttpClient
//   sse   as one SSE event on the connection's GET stream
//   post  as the body of a POST's answer (the envelope is then a response carrying the text)
//   ws    as one WebSocket text frame from a loopback server that writes the frame's bytes itself,
//         received by `ws`; ws-undici the same received by undici's WebSocket (Node 22's global one);
//         ws-fragments the same message sent as 1 MiB fragments (continuation frames), received by `ws`
//   socket the WebSocket frame's bytes over a plain loopback socket, joined once, decoded and parsed:
//         the floor the segments themselves cost, with no WebSocket client
// each in 1 KiB network chunks against the same bytes in one chunk. A parser that joins its buffer
// again on every chunk is quadratic here; a linear one takes about the same time either way.
// Plus the transcript: one agent message of 1,000,000 chunks against one of 100,000.
import { createHash } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { Subject } from "rxjs";
import { WebSocket as UndiciWebSocket } from "undici";
import WebSocket from "ws";
import { AcpHttpClient, isResponse, type AcpEnvelope } from "../../lib/acp-http/index.js";
import { toTranscript, type SandboxEvent, type Transcript } from "../../lib/sandbox/index.js";
import { SANDBOX_AGENT_HEADER } from "../../spec/support/sandbox-agent-transport.js";
import { envelopeToEvent } from "../../lib/sandbox/events/events.js";
import { collect, Stopwatch, sleep, type Sample } from "../support/measure.js";

export type BigPath = "sse" | "post" | "ws" | "ws-undici" | "ws-fragments" | "socket";
const FRAGMENT_BYTES = 1024 * 1024;
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const INITIALIZE_RESULT = { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] };

/** About `bytes` of text, with "é" (2 bytes in UTF-8) every 1,000 characters. */
export function bigText(bytes: number): string {
  const block = `${"abcdefghij".repeat(99)}é ${"x".repeat(7)}`;
  return block.repeat(Math.max(1, Math.round(bytes / 1001)));
}

const updateJson = (text: string): string =>
  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"content":{"text":"${text}","type":"text"},"sessionUpdate":"agent_message_chunk"}}}`;

/** `bytes` cut in pieces of `chunk` bytes (subarrays, no copies); chunk 0: one piece. */
function pieces(bytes: Uint8Array, chunk: number): Uint8Array[] {
  if (chunk <= 0 || chunk >= bytes.length) return [bytes];
  const out: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunk) out.push(bytes.subarray(offset, offset + chunk));
  return out;
}

/** A stream serving `parts` one per pull (each its own read on the client's side), then open. */
function partsStream(parts: Uint8Array[], stayOpen: boolean, signal?: AbortSignal | null): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (index < parts.length) return controller.enqueue(parts[index++] as Uint8Array);
        if (!stayOpen) return controller.close();
        return new Promise<void>((resolve) => {
          const end = () => {
            controller.error(new DOMException("aborted", "AbortError"));
            resolve();
          };
          if (signal?.aborted) end();
          else signal?.addEventListener("abort", end, { once: true });
        });
      },
    },
    { highWaterMark: 0 },
  );
}

export interface BigResult {
  path: BigPath;
  chunk: number;
  bytes: number;
  sample: Sample;
}

/** One delivery of the big message by `path` in `chunk`-byte pieces (0: one piece). */
export async function bigMessage(path: BigPath, text: string, chunk: number): Promise<BigResult> {
  if (path === "socket") return bigOverSocket(text, chunk);
  if (path === "ws" || path === "ws-undici" || path === "ws-fragments") return bigOverWebSocket(path, text, chunk);
  const encoder = new TextEncoder();
  let gate: (() => void) | undefined;
  const opened = new Promise<void>((resolve) => (gate = resolve));
  let release!: () => void;
  const go = new Promise<void>((resolve) => (release = resolve));
  const frame = path === "sse" ? encoder.encode(`event: message\nid: 1\ndata: ${updateJson(text)}\n\n`) : undefined;
  let bytes = frame?.length ?? 0;
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.method === "GET") {
      gate?.();
      // The stream's first bytes wait for the clock to start.
      if (!frame) return new Response(partsStream([], true, init?.signal), { headers: { "content-type": "text/event-stream" } });
      await go;
      return new Response(partsStream(pieces(frame, chunk), true, init?.signal), { headers: { "content-type": "text/event-stream" } });
    }
    if (request.method === "POST") {
      const message = JSON.parse(await request.text()) as { id?: unknown; method?: string };
      if (message.id === undefined) return new Response(null, { status: 202 });
      if (message.method === "initialize") return Response.json({ id: message.id, jsonrpc: "2.0", result: INITIALIZE_RESULT });
      const body = encoder.encode(`{"id":${JSON.stringify(message.id)},"jsonrpc":"2.0","result":{"text":"${text}"}}`);
      bytes = body.length;
      return new Response(partsStream(pieces(body, chunk), false), { headers: { "content-type": "application/json" } });
    }
    return new Response(null, { status: 204 });
  };
  const client = new AcpHttpClient({
    baseUrl: "http://bench.invalid",
    path: "/v1/acp/big",
    ...SANDBOX_AGENT_HEADER,
    fetch: fetchImpl as typeof fetch,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    closeTimeoutMs: 500,
  });
  try {
    await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await opened;
    collect();
    let sample: Sample;
    if (path === "sse") {
      const arrived = new Promise<AcpEnvelope>((resolve) => {
        const subscription = client.envelopes$.subscribe((envelope) => {
          subscription.unsubscribe();
          resolve(envelope);
        });
      });
      const watch = new Stopwatch();
      release();
      const envelope = await arrived;
      sample = watch.read();
      const got = (envelope as unknown as { params: { update: { content: { text: string } } } }).params.update.content.text;
      if (got.length !== text.length) throw new Error(`sse: ${got.length} characters of ${text.length}`);
    } else {
      const watch = new Stopwatch();
      const result = (await client.request("big/answer", {})) as { text: string };
      sample = watch.read();
      if (result.text.length !== text.length) throw new Error(`post: ${result.text.length} characters of ${text.length}`);
    }
    return { path, chunk, bytes, sample };
  } finally {
    release();
    await client.disconnect();
  }
}

/** The WebSocket frames of one text message: one frame, or fragments of `fragment` bytes (0: one frame). */
function textFrames(payload: Buffer, fragment: number): Buffer {
  const frames: Buffer[] = [];
  for (let at = 0; ; at += fragment) {
    const part = payload.subarray(at, fragment ? at + fragment : payload.length);
    const fin = at + part.length >= payload.length;
    const header = Buffer.alloc(10);
    header[0] = (fin ? 0x80 : 0) | (at === 0 ? 0x1 : 0x0); // text, then continuation frames
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(part.length), 2);
    frames.push(header, part);
    if (fin) break;
  }
  return Buffer.concat(frames);
}

/**
 * The receivers' assembly alone, without a socket: `segments` 1 KiB buffers in a list, taken off its
 * front with `shift()` and copied into one buffer, as `ws`'s `Receiver.consume` and undici's
 * `ByteParser.consume` take the segments of a frame. CPU ms.
 */
export function shiftAssembly(segments: number): number {
  const list: Buffer[] = [];
  for (let i = 0; i < segments; i++) list.push(Buffer.alloc(1024, i & 255));
  const watch = new Stopwatch();
  const out = Buffer.allocUnsafe(segments * 1024);
  let offset = 0;
  while (list.length > 0) {
    const next = list.shift()!;
    out.set(next, offset);
    offset += next.length;
  }
  return watch.read().cpuMs;
}

/** The floor: one frame's bytes written as the WebSocket server writes them, read by a bare socket. */
async function bigOverSocket(text: string, chunk: number): Promise<BigResult> {
  const frame = textFrames(Buffer.from(updateJson(text)), 0);
  let accepted!: (socket: Socket) => void;
  const serverSide = new Promise<Socket>((resolve) => (accepted = resolve));
  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on("error", () => undefined);
    accepted(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = connect((server.address() as { port: number }).port, "127.0.0.1");
  try {
    const socket = await serverSide;
    collect();
    const buffers: Buffer[] = [];
    let received = 0;
    const arrived = new Promise<string>((resolve) => {
      client.on("data", (data: Buffer) => {
        buffers.push(data);
        received += data.length;
        if (received < frame.length) return;
        const parsed = JSON.parse(Buffer.concat(buffers, received).subarray(10).toString()) as BigEnvelope;
        resolve(parsed.params.update.content.text);
      });
    });
    const watch = new Stopwatch();
    await writeParts(socket, pieces(frame, chunk));
    const got = await arrived;
    const sample = watch.read();
    if (got.length !== text.length) throw new Error(`socket: ${got.length} characters of ${text.length}`);
    return { path: "socket", chunk, bytes: frame.length, sample };
  } finally {
    client.destroy();
    server.close();
  }
}

type BigEnvelope = { params: { update: { content: { text: string } } } };

/** `parts` written one per event-loop turn, so that they leave as separate segments. */
async function writeParts(socket: Socket, parts: Uint8Array[]): Promise<void> {
  for (const part of parts) {
    if (!socket.write(part)) await new Promise((resolve) => socket.once("drain", resolve));
    else if (parts.length > 1) await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A loopback WebSocket server written on `net`: the upgrade by hand (RFC 6455 accept key), then
 * the initialize answer as a frame, then on the client's second message the big message's bytes in
 * `chunk`-byte writes, one per event-loop turn, so they leave as separate segments.
 */
async function bigOverWebSocket(path: "ws" | "ws-undici" | "ws-fragments", text: string, chunk: number): Promise<BigResult> {
  const frame = textFrames(Buffer.from(updateJson(text)), path === "ws-fragments" ? FRAGMENT_BYTES : 0);
  const small = (json: string): Buffer => {
    const body = Buffer.from(json);
    const head = body.length < 126 ? Buffer.from([0x81, body.length]) : Buffer.from([0x81, 126, body.length >> 8, body.length & 255]);
    return Buffer.concat([head, body]);
  };
  let startWrites!: (socket: Socket) => void;
  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    let handshake = "";
    let upgraded = false;
    let answered = false;
    socket.on("data", (data: Buffer) => {
      if (upgraded) {
        // The client's frames are masked; only its first request (initialize) gets an answer, with its id.
        if (answered || (data[0]! & 0x0f) !== 1) return;
        answered = true;
        const length = data[1]! & 0x7f;
        const at = length === 126 ? 4 : 2;
        const size = length === 126 ? data.readUInt16BE(2) : length;
        const mask = data.subarray(at, at + 4);
        const body = Buffer.from(data.subarray(at + 4, at + 4 + size).map((byte, i) => byte ^ mask[i % 4]!));
        const { id } = JSON.parse(body.toString()) as { id: unknown };
        socket.write(small(JSON.stringify({ id, jsonrpc: "2.0", result: INITIALIZE_RESULT })));
        return;
      }
      handshake += data.toString("latin1");
      if (!handshake.includes("\r\n\r\n")) return;
      upgraded = true;
      const key = /sec-websocket-key: *(.+)\r\n/i.exec(handshake)?.[1]?.trim() ?? "";
      const accept = createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
      startWrites(socket);
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const socketReady = new Promise<Socket>((resolve) => (startWrites = resolve));
  const client = new AcpHttpClient({
    baseUrl: `http://127.0.0.1:${port}`,
    path: "/v1/acp/big",
    ...SANDBOX_AGENT_HEADER,
    transport: "websocket",
    WebSocket: (path === "ws-undici" ? UndiciWebSocket : WebSocket) as never,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    closeTimeoutMs: 500,
  } as ConstructorParameters<typeof AcpHttpClient>[0]);
  try {
    const initialized = client.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const socket = await socketReady;
    await initialized;
    collect();
    const arrived = new Promise<AcpEnvelope>((resolve) => {
      const subscription = client.envelopes$.subscribe((envelope) => {
        if (isResponse(envelope)) return;
        subscription.unsubscribe();
        resolve(envelope);
      });
    });
    const watch = new Stopwatch();
    await writeParts(socket, pieces(frame, chunk));
    const envelope = await arrived;
    const sample = watch.read();
    const got = (envelope as unknown as BigEnvelope).params.update.content.text;
    if (got.length !== text.length) throw new Error(`${path}: ${got.length} characters of ${text.length}`);
    socket.destroy();
    return { path, chunk, bytes: frame.length, sample };
  } finally {
    await Promise.race([client.disconnect(), sleep(1000)]);
    server.close();
  }
}

/** One agent message of `chunks` chunks through events$ → toTranscript(), as scenario 12 delivers. */
export function longMessage(chunks: number): { sample: Sample; entries: number } {
  const lines: string[] = [];
  for (let i = 0; i < chunks; i++) {
    lines.push(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"content":{"text":"w${i % 10} ","type":"text"},"messageId":"m-1","sessionUpdate":"agent_message_chunk"}}}`);
  }
  const events = new Subject<SandboxEvent>();
  let last: Transcript | undefined;
  let seen = 0;
  const subscription = events.pipe(toTranscript()).subscribe((t) => {
    last = t;
    seen++;
  });
  collect();
  const watch = new Stopwatch();
  for (const line of lines) {
    const event = envelopeToEvent(JSON.parse(line) as Parameters<typeof envelopeToEvent>[0]);
    if (event) events.next(event);
  }
  const sample = watch.read();
  subscription.unsubscribe();
  if (seen < chunks || !last) throw new Error(`transcript: ${seen} snapshots of ${chunks}`);
  return { sample, entries: last.size };
}
