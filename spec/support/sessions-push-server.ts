// An in-process sandbox-agent 0.4.2 for one connection whose event stream the caller feeds, and a
// body of session updates spread over many sessions: the client is all that runs (bench scenario
// 13, the many-sessions spec).

const CHUNK = 64 * 1024;
const INITIALIZE_RESULT = { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] };

/** `updates` session/update frames spread round-robin over `sessions` sessions, in 64 KB chunks. */
export function sessionsBody(sessions: number, updates: number): Uint8Array[] {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let text = "";
  for (let i = 0; i < updates; i++) {
    const content = `{"text":"chunk ${i} of the answer, ","type":"text"}`;
    const update = `{"content":${content},"sessionUpdate":"agent_message_chunk"}`;
    const params = `{"sessionId":"s-${i % sessions}","update":${update}}`;
    text += `event: message\nid: ${i + 1}\ndata: {"jsonrpc":"2.0","method":"session/update","params":${params}}\n\n`;
    if (text.length >= CHUNK || i === updates - 1) {
      chunks.push(encoder.encode(text));
      text = "";
    }
  }
  return chunks;
}

/** An in-process sandbox-agent 0.4.2 for one connection: health, initialize, one GET to push into. */
export interface PushServer {
  readonly fetch: typeof globalThis.fetch;
  /** Writes the chunks to the open event stream (nothing when none is open). */
  push(chunks: Uint8Array[]): void;
  /** Whether the client's event stream is open. */
  opened(): boolean;
}

export function pushServer(): PushServer {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.pathname === "/v1/health") return Response.json({ status: "ok" });
    if (request.method === "POST") {
      const message = JSON.parse(await request.text()) as { id?: unknown; method?: unknown };
      if (message.id === undefined) return new Response(null, { status: 202 });
      return Response.json({ id: message.id, jsonrpc: "2.0", result: INITIALIZE_RESULT });
    }
    if (request.method === "GET") {
      const signal = init?.signal ?? request.signal;
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
          signal?.addEventListener("abort", () => {
            controller = undefined;
            try {
              c.error(new DOMException("aborted", "AbortError"));
            } catch {
              // already closed
            }
          });
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    }
    return new Response(null, { status: 204 });
  };
  return {
    fetch: fetchImpl as typeof globalThis.fetch,
    push: (chunks) => {
      for (const chunk of chunks) controller?.enqueue(chunk);
    },
    opened: () => controller !== undefined,
  };
}

