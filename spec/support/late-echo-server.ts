// A loopback ACP-over-HTTP server that answers every request in its POST body at once and puts the
// stream side of a prompt turn (its updates, then the copy of its response) on the event stream only
// later, after a quiet period: the order a server that echoes responses promises, with the stream
// lagging as it does when the machine is busy. Events are numbered 1, 2, 3, ... and kept, so a GET
// replays what came after its `Last-Event-ID`, as the 0.4.2 server does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface LateEchoServerOptions {
  /** How long the stream stays silent after a prompt's POST was answered. */
  lagMs: number;
  /** `session/update` notifications written ahead of the prompt's response copy. */
  updates: number;
  /**
   * What happens to the event stream instead of the late turn: `"copy"` (the default) writes it;
   * `"end-and-refuse"` ends the stream once the lag is over and answers every later GET with 403.
   */
  stream?: "copy" | "end-and-refuse";
}

export interface LateEchoServer {
  readonly baseUrl: string;
  readonly path: string;
  /** GET event streams opened so far. */
  readonly streamsOpened: number;
  stop(): Promise<void>;
}

const PATH = "/acp/late";
const CONNECTION_HEADER = "x-acp-connection-id";
const SESSION_ID = "late-session";

interface Rpc {
  id?: string | number | null;
  method?: string;
}

export async function startLateEchoServer(options: LateEchoServerOptions): Promise<LateEchoServer> {
  const streams = new Set<ServerResponse>();
  const history: string[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let nextEventId = 1;
  let streamsOpened = 0;
  let refusing = false;

  const write = (message: unknown) => {
    const frame = `event: message\nid: ${nextEventId++}\ndata: ${JSON.stringify(message)}\n\n`;
    history.push(frame);
    for (const stream of streams) stream.write(frame);
  };
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const onPost = (body: string, response: ServerResponse) => {
    const rpc = JSON.parse(body) as Rpc;
    const headers = { "content-type": "application/json", [CONNECTION_HEADER]: "late-1" };
    if (rpc.id === undefined || rpc.method === undefined) return void response.writeHead(202, headers).end();
    const answer = { jsonrpc: "2.0", id: rpc.id, result: resultFor(rpc.method) };
    response.writeHead(200, headers).end(JSON.stringify(answer));
    if (rpc.method !== "session/prompt") return write(answer);
    later(options.lagMs, () => {
      if (options.stream === "end-and-refuse") {
        refusing = true;
        for (const stream of streams) stream.end();
        return;
      }
      for (let n = 0; n < options.updates; n++) write(update(n));
      write(answer);
    });
  };

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (new URL(request.url ?? "/", "http://127.0.0.1").pathname !== PATH) return void response.writeHead(404).end();
    if (request.method === "GET") {
      if (refusing) return void response.writeHead(403).end();
      streamsOpened++;
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const after = Number(request.headers["last-event-id"] ?? 0);
      response.write(history.slice(Number.isInteger(after) && after > 0 ? after : 0).join("") || ": open\n\n");
      streams.add(response);
      request.on("close", () => streams.delete(response));
      return;
    }
    if (request.method === "DELETE") return void response.writeHead(204).end();
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => onPost(body, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    path: PATH,
    get streamsOpened() {
      return streamsOpened;
    },
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      for (const stream of streams) stream.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function resultFor(method: string): unknown {
  if (method === "initialize") return { protocolVersion: 1, agentCapabilities: {}, authMethods: [] };
  if (method === "session/new") return { sessionId: SESSION_ID };
  if (method === "session/prompt") return { stopReason: "end_turn" };
  return {};
}

/** Update `n` of the late turn; its text is `u<n>`. */
function update(n: number): unknown {
  return {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION_ID,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `u${n}` } },
    },
  };
}
