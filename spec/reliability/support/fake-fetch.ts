/**
 * An injected `fetch` for the client: records every request, answers POSTs through a handler,
 * and serves the event stream GET from a stream the test writes raw bytes into.
 */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface StreamHandle {
  push(bytes: Uint8Array | string): void;
  end(): void;
}

export interface FakeFetch {
  fetch: typeof globalThis.fetch;
  requests: SeenRequest[];
  /** Streams opened so far, in order. */
  streams: StreamHandle[];
  /** Bodies of the POSTs sent so far, parsed. */
  posted(): Record<string, unknown>[];
  onPost: (body: Record<string, unknown>, request: SeenRequest) => Response | Promise<Response>;
  onGet: ((request: SeenRequest) => Response | undefined) | undefined;
}

export const CONNECTION_ID = "conn-1";
const encoder = new TextEncoder();

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "x-acp-connection-id": CONNECTION_ID, ...headers } });
}

export const accepted = (): Response => new Response(null, { status: 202, headers: { "x-acp-connection-id": CONNECTION_ID } });

export function createFakeFetch(): FakeFetch {
  const fake: FakeFetch = {
    requests: [],
    streams: [],
    posted: () => fake.requests.filter((request) => request.method === "POST").map((request) => JSON.parse(request.body) as Record<string, unknown>),
    onPost: (body) => ("id" in body && body.method === "initialize" ? jsonResponse({ jsonrpc: "2.0", id: body.id, result: { protocolVersion: 1 } }) : accepted()),
    onGet: undefined,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, key) => (headers[key] = value));
      const seen: SeenRequest = { method: request.method, url: request.url, headers, body: request.method === "POST" ? await request.text() : "" };
      fake.requests.push(seen);
      if (request.method === "DELETE") return new Response(null, { status: 204 });
      if (request.method === "GET") {
        const custom = fake.onGet?.(seen);
        if (custom) return custom;
        let controller!: ReadableStreamDefaultController<Uint8Array>;
        let open = true;
        const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: () => void (open = false) });
        request.signal.addEventListener("abort", () => {
          if (!open) return;
          open = false;
          controller.error(new DOMException("aborted", "AbortError"));
        });
        fake.streams.push({
          push: (bytes) => open && controller.enqueue(typeof bytes === "string" ? encoder.encode(bytes) : bytes),
          end: () => {
            if (!open) return;
            open = false;
            controller.close();
          },
        });
        return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
      }
      return fake.onPost(JSON.parse(seen.body) as Record<string, unknown>, seen);
    },
  };
  return fake;
}
