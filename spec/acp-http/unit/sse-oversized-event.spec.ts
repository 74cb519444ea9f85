/**
 * An SSE event over the limit is reported and skipped; the stream reads on. The reader on its own
 * (cut into chunks at every awkward place), then a client against a loopback SSE server (a fake:
 * no real server sends an event over 64 Mi characters on purpose) that replays from `Last-Event-ID`.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AcpHttpClient, type AcpParseError } from "../../../lib/acp-http/index.js";
import { readSseBody, type OversizedSseEvent, type SseFrame } from "../../../lib/internal/sse.js";

function streamOf(parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < parts.length) controller.enqueue(encoder.encode(parts[index++]));
      else controller.close();
    },
  });
}

async function read(parts: string[], limit: number, report = true) {
  const frames: SseFrame[] = [];
  const oversized: OversizedSseEvent[] = [];
  const callbacks = report
    ? { onFrame: (frame: SseFrame) => void frames.push(frame), onTooLarge: (e: OversizedSseEvent) => void oversized.push(e) }
    : { onFrame: (frame: SseFrame) => void frames.push(frame) };
  await readSseBody(streamOf(parts), callbacks, limit);
  return { data: frames.map((frame) => frame.data), ids: frames.map((frame) => frame.id), oversized };
}

describe("readSseBody with an event over its limit", () => {
  const big = `{"jsonrpc":"2.0","id":7,"result":{"pad":"${"x".repeat(500)}"}}`;
  const text = `id: 1\ndata: {"a":1}\n\nid: 2\ndata: ${big}\ndata: more\n\nid: 3\ndata: {"b":2}\n\n`;

  const cut = (size: number): string[] => {
    const parts: string[] = [];
    for (let at = 0; at < text.length; at += size) parts.push(text.slice(at, at + size));
    return parts;
  };

  it.each([1, 7, 64, 100])("reports it with its id and head and reads on (chunks of %i characters)", async (size) => {
    const { data, ids, oversized } = await read(cut(size), 200);
    expect(data).toEqual(['{"a":1}', '{"b":2}']);
    expect(ids).toEqual(["1", "3"]);
    expect(oversized).toHaveLength(1);
    expect(oversized[0]).toMatchObject({ id: "2", event: undefined });
    expect(oversized[0]?.head.startsWith('{"jsonrpc":"2.0","id":7,')).toBe(true);
    expect(oversized[0]?.chars).toBeGreaterThan(200);
  });

  it.each([1, 7, 64, 100])(
    "reports it with an id: line that follows its data (the last id wins; chunks of %i characters)",
    async (size) => {
      const late = `id: 1\ndata: {"a":1}\n\ndata: ${big}\ndata: more\nid: 2\n\nid: 3\ndata: {"b":2}\n\n`;
      const parts: string[] = [];
      for (let at = 0; at < late.length; at += size) parts.push(late.slice(at, at + size));
      const { data, ids, oversized } = await read(parts, 200);
      expect(data).toEqual(['{"a":1}', '{"b":2}']);
      expect(ids).toEqual(["1", "3"]);
      expect(oversized).toHaveLength(1);
      expect(oversized[0]).toMatchObject({ id: "2", event: undefined });
    },
  );

  it("hands on an event that arrived whole in one chunk (the sink's byte rule judges it)", async () => {
    const { ids, oversized } = await read([text], 200);
    expect(ids).toEqual(["1", "2", "3"]);
    expect(oversized).toEqual([]);
  });

  it("skips an oversized named event without reporting it", async () => {
    const named = `event: other\ndata: ${big}\n\ndata: {"b":2}\n\n`;
    const { data, oversized } = await read([named.slice(0, 100), named.slice(100)], 200);
    expect(data).toEqual(['{"b":2}']);
    expect(oversized).toEqual([]);
  });

  it("without onTooLarge an oversized event still fails the read", async () => {
    await expect(read(cut(64), 200, false)).rejects.toThrow(/max buffer size/);
  });
});

const note = (text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
  });

/**
 * A client against a loopback server that answers `initialize` and serves the event stream through
 * `writeEvents(res, lastEventId)`; resolves once two texts came (or 30 s passed) with what it saw.
 */
async function watchStream(
  writeEvents: (res: ServerResponse, after: number) => void,
  options: { maxMessageBytes?: number } = {},
): Promise<{ texts: string[]; parseErrors: AcpParseError[]; gets: number }> {
  let gets = 0;
  const server = createServer((req, res) => {
    if (req.method === "POST") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const message = JSON.parse(body) as { id: number };
        const result = { protocolVersion: 1, agentCapabilities: {} };
        res.writeHead(200, { "content-type": "application/json", "acp-connection-id": "c1" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      });
      return;
    }
    if (req.method !== "GET") return void res.writeHead(200).end();
    gets++;
    res.writeHead(200, { "content-type": "text/event-stream" });
    writeEvents(res, Number(req.headers["last-event-id"] ?? 0));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const client = new AcpHttpClient({
    baseUrl: `http://127.0.0.1:${port}`,
    ...options,
    reconnect: { initialDelayMs: 50, maxDelayMs: 100, maxRetries: 2 },
  });
  const texts: string[] = [];
  const parseErrors: AcpParseError[] = [];
  client.envelopes$.subscribe((envelope) => {
    const text = (envelope as { params?: { update?: { content?: { text?: string } } } }).params?.update?.content?.text;
    if (text) texts.push(text);
  });
  client.parseErrors$.subscribe((event) => parseErrors.push(event));
  try {
    await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
    const deadline = Date.now() + 30_000;
    while (texts.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return { texts, parseErrors, gets };
  } finally {
    await client.disconnect();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe("a client whose event stream carries an event over maxMessageBytes", () => {
  it("reports it on parseErrors$, delivers the events around it, and keeps the stream without reconnecting", async () => {
    // Over the SSE reader's fixed bound of 64 Mi characters, which used to fail the stream on every replay.
    const huge = note("x".repeat(65 * 1024 * 1024));
    const { texts, parseErrors, gets } = await watchStream((res, after) => {
      if (after < 1) res.write(`id: 1\ndata: ${note("before")}\n\n`);
      if (after < 2) res.write(`id: 2\ndata: ${huge}\n\n`);
      if (after < 3) res.write(`id: 3\ndata: ${note("after")}\n\n`);
    });
    expect(texts).toEqual(["before", "after"]);
    expect(parseErrors).toHaveLength(1);
    expect(parseErrors[0]?.tooLarge).toMatchObject({ source: "stream", limit: 32 * 1024 * 1024 });
    expect(parseErrors[0]?.raw.startsWith('{"jsonrpc":"2.0","method":"session/update"')).toBe(true);
    expect(gets).toBe(1);
  }, 60_000);

  it("moves past one whose id: line follows its data, without a replay loop", async () => {
    // Over maxMessageBytes (8 KiB here), written in two parts so that it spans reads, its id last.
    const oversized = `data: ${note("x".repeat(64 * 1024))}\nid: 2\n\n`;
    const { texts, parseErrors, gets } = await watchStream(
      (res, after) => {
        if (after < 1) res.write(`id: 1\ndata: ${note("before")}\n\n`);
        if (after < 2) {
          res.write(oversized.slice(0, 40_000));
          setImmediate(() => res.write(oversized.slice(40_000)));
        }
        setImmediate(() => setImmediate(() => res.write(`id: 3\ndata: ${note("after")}\n\n`)));
      },
      { maxMessageBytes: 8 * 1024 },
    );
    expect(texts).toEqual(["before", "after"]);
    expect(parseErrors).toHaveLength(1);
    expect(gets).toBe(1);
  }, 30_000);
});
