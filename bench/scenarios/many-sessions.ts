// Scenario 13: many sessions on one client. One connection, `sessions` sessions, every one of them
// receiving updates at once (update i belongs to session i mod sessions) from an in-process server,
// so only the client is in the figure. Modes:
//   acp        AcpHttpClient, one subscriber on envelopes$ (the protocol client's own cost)
//   events     SandboxAgentClient, one subscriber on session(id).events$ per session
//   transcript SandboxAgentClient, one subscriber on session(id).transcript$ per session
// Heap per idle session: the views subscribed, nothing arriving yet, against the connected client
// before them (two full collections before each reading).
import type { Observable, Subscription } from "rxjs";
import { AcpHttpClient } from "../../lib/acp-http/index.js";
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
import { memoryAfterGc, sleep, Stopwatch, whenCount } from "../support/measure.js";

export type ManySessionsMode = "acp" | "events" | "transcript";

export interface ManySessionsResult {
  mode: ManySessionsMode;
  sessions: number;
  updates: number;
  cpuMs: number;
  wallMs: number;
  /** Heap added per session by its view and subscription, before any update (not for `acp`). */
  heapPerIdleSession: number;
}

const CHUNK = 64 * 1024;
const INITIALIZE_RESULT = { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] };

/** `updates` session/update frames spread round-robin over `sessions` sessions, in 64 KB chunks. */
export function sessionsBody(sessions: number, updates: number): Uint8Array[] {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let text = "";
  for (let i = 0; i < updates; i++) {
    const update = `{"content":{"text":"chunk ${i} of the answer, ","type":"text"},"sessionUpdate":"agent_message_chunk"}`;
    text += `event: message\nid: ${i + 1}\ndata: {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-${i % sessions}","update":${update}}}\n\n`;
    if (text.length >= CHUNK || i === updates - 1) {
      chunks.push(encoder.encode(text));
      text = "";
    }
  }
  return chunks;
}

/** An in-process sandbox-agent 0.4.2 for one connection: health, initialize, one GET to push into. */
function pushServer(): { fetch: typeof globalThis.fetch; push: (chunks: Uint8Array[]) => void; opened: () => boolean } {
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

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 1000) throw new Error(`many sessions: ${what} did not happen within 10 s`);
    await sleep(10);
  }
}

/** One run: connect, subscribe the views, measure their heap, push the body, clock its delivery. */
export async function manySessions(mode: ManySessionsMode, sessions: number, body: Uint8Array[], updates: number): Promise<ManySessionsResult> {
  const server = pushServer();
  let seen = 0;
  const counter = whenCount(() => seen, updates);
  let close: () => Promise<void>;
  let heapPerIdleSession = Number.NaN;
  if (mode === "acp") {
    const client = new AcpHttpClient({ baseUrl: "http://bench.invalid", path: "/v1/acp/many", fetch: server.fetch, closeTimeoutMs: 500 });
    await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    client.envelopes$.subscribe(() => {
      seen++;
      counter.notify();
    });
    close = () => client.disconnect();
  } else {
    const client = new SandboxAgentClient({ baseUrl: "http://bench.invalid", agent: "mock", fetch: server.fetch, autoConnect: false });
    await client.connect();
    const before = memoryAfterGc();
    const subscriptions: Subscription[] = [];
    for (let s = 0; s < sessions; s++) {
      const view = client.session(`s-${s}`);
      const source: Observable<unknown> = mode === "events" ? view.events$ : view.transcript$;
      subscriptions.push(
        source.subscribe(() => {
          seen++;
          counter.notify();
        }),
      );
    }
    heapPerIdleSession = (memoryAfterGc().heapUsed - before.heapUsed) / sessions;
    close = async () => {
      for (const subscription of subscriptions) subscription.unsubscribe();
      await client.disconnect();
    };
  }
  await until(server.opened, "the event stream's GET");
  // A transcript$ emits its first (empty) snapshot on subscription: those are not updates.
  seen = 0;
  const watch = new Stopwatch();
  server.push(body);
  await counter.done;
  const sample = watch.read();
  await close();
  return { mode, sessions, updates, cpuMs: sample.cpuMs, wallMs: sample.wallMs, heapPerIdleSession };
}
