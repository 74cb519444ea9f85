// A synthetic event stream and an in-process `fetch` that serves it, so the client-side cost of an
// inbound envelope can be measured without a network or a server in the way.

export const CHUNK_BYTES = 64 * 1024;

/**
 * The kinds of `session/update` a coding agent streams most. Keys are in the order the 0.4.2 server
 * writes them (it re-serializes every line with sorted keys); every variant passes the ACP schema,
 * so a validating client accepts all of them.
 */
function envelopeJson(i: number): string {
  const session = "sess-7f3a9c2e";
  const seq = `"_meta":{"seq":${i}}`;
  switch (i % 4) {
    case 0:
    case 1:
      return `{"jsonrpc":"2.0","method":"session/update","params":{${seq},"sessionId":"${session}","update":{"content":{"text":"Chunk ${i} of the answer: the function reads the config, validates it and returns the parsed value","type":"text"},"sessionUpdate":"agent_message_chunk"}}}`;
    case 2:
      return `{"jsonrpc":"2.0","method":"session/update","params":{${seq},"sessionId":"${session}","update":{"content":{"text":"Thinking about step ${i}: check the tests first, then edit src/config.ts — keep the API","type":"text"},"sessionUpdate":"agent_thought_chunk"}}}`;
    default:
      return `{"jsonrpc":"2.0","method":"session/update","params":{${seq},"sessionId":"${session}","update":{"content":[{"content":{"text":"npm test: ${i} passed","type":"text"},"type":"content"}],"status":"in_progress","toolCallId":"call_${i}","sessionUpdate":"tool_call_update"}}}`;
  }
}

export interface SyntheticBody {
  readonly bytes: Uint8Array;
  readonly envelopes: number;
}

/** `count` frames `event: message\nid: N\ndata: {...}\n\n`, ids 1..count, encoded once. */
export function buildBody(count: number): SyntheticBody {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let total = 0;
  // Encode in slices: one giant string would need as much memory again as the bytes themselves.
  const batch = 10_000;
  for (let start = 0; start < count; start += batch) {
    let text = "";
    for (let i = start; i < Math.min(count, start + batch); i++) text += `event: message\nid: ${i + 1}\ndata: ${envelopeJson(i)}\n\n`;
    const encoded = encoder.encode(text);
    parts.push(encoded);
    total += encoded.length;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return { bytes, envelopes: count };
}

/** An open GET: the synthetic body first, then whatever is pushed, until the request is aborted. */
interface LiveStream {
  readonly stream: ReadableStream<Uint8Array>;
  push(bytes: Uint8Array): void;
}

/**
 * The body as a live stream: 64 KB subarrays (no copies), then open, as a live event stream is,
 * until the request is aborted. A stream that ended would make a reconnecting client ask again
 * and read everything twice.
 */
function liveStream(bytes: Uint8Array, signal: AbortSignal | null, onClose: () => void): LiveStream {
  let offset = 0;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        if (offset < bytes.length) {
          controller.enqueue(bytes.subarray(offset, offset + CHUNK_BYTES));
          offset += CHUNK_BYTES;
          return;
        }
        return new Promise<void>((resolve) => {
          const end = () => {
            closed = true;
            onClose();
            controller.error(signal?.reason ?? new DOMException("aborted", "AbortError"));
            resolve();
          };
          if (signal?.aborted) end();
          else signal?.addEventListener("abort", end, { once: true });
        });
      },
    },
    { highWaterMark: 0 },
  );
  return {
    stream,
    push(chunk) {
      if (!closed && offset >= bytes.length) controller.enqueue(chunk);
    },
  };
}

const INITIALIZE_RESULT = { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] };

export interface FakeServer {
  readonly fetch: typeof globalThis.fetch;
  /** GET streams opened so far. */
  readonly streamsOpened: number;
}

export interface FakeServerOptions {
  /**
   * Behave like the 0.4.2 server with its echo mock: a request also puts a `mock/echo` notification
   * and a copy of its response on the open event streams (ids 1, 2, ... as the server numbers them).
   */
  echo?: boolean;
}

/**
 * A `fetch` that behaves like the 0.4.2 server for one connection: a request POST is answered with
 * its id (an initialize-shaped result), anything else POSTed gets 202, every GET gets `body` (empty:
 * a stream that stays open and silent), DELETE gets 204. Accepts both call styles, `fetch(Request)`
 * and `fetch(url, init)`.
 */
export function fakeServer(body: Uint8Array = new Uint8Array(0), options: FakeServerOptions = {}): FakeServer {
  let streamsOpened = 0;
  const open = new Set<LiveStream>();
  const encoder = new TextEncoder();
  // Echoes are for request scenarios, whose stream has no synthetic body: ids start at 1.
  if (options.echo && body.length > 0) throw new Error("echo needs an empty body");
  let nextEventId = 1;
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.method === "POST") {
      const text = await request.text();
      const message = JSON.parse(text) as { id?: unknown; method?: unknown };
      if (message.id === undefined || typeof message.method !== "string") return new Response(null, { status: 202 });
      const answer = JSON.stringify({ id: message.id, jsonrpc: "2.0", result: INITIALIZE_RESULT });
      if (options.echo && open.size > 0) {
        const echo = `{"jsonrpc":"2.0","method":"mock/echo","params":{"message":${text}}}`;
        const frames = encoder.encode(`event: message\nid: ${nextEventId++}\ndata: ${echo}\n\nevent: message\nid: ${nextEventId++}\ndata: ${answer}\n\n`);
        for (const live of open) live.push(frames);
      }
      return new Response(answer, { headers: { "content-type": "application/json" } });
    }
    if (request.method === "GET") {
      streamsOpened++;
      // The caller's own signal, not the copy inside `request`: undici links that copy weakly.
      const signal = init?.signal ?? (input instanceof Request ? input.signal : request.signal);
      const live = liveStream(body, signal, () => open.delete(live));
      open.add(live);
      return new Response(live.stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    }
    return new Response(null, { status: 204 });
  };
  return {
    fetch: fetchImpl as typeof globalThis.fetch,
    get streamsOpened() {
      return streamsOpened;
    },
  };
}
