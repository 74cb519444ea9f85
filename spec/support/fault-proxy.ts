/**
 * A loopback HTTP proxy for tests: forwards every request to `target` unchanged and can cut the
 * event-stream (SSE) responses that are currently flowing through it, mid-stream, on demand.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  /** SSE responses currently open through the proxy. */
  openStreams(): number;
  /** How many SSE responses have been opened through the proxy so far. */
  streamsOpened(): number;
  /** `Last-Event-ID` headers of the GETs seen so far, in order (`undefined` when absent). */
  lastEventIds(): (string | undefined)[];
  /** Abruptly destroys every open SSE response (the client sees a reset, not a clean end). Returns how many. */
  cutStreams(): number;
  stop(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const streams = new Set<{ res: ServerResponse; upstream: IncomingMessage }>();
  const lastEventIds: (string | undefined)[] = [];
  let opened = 0;

  const server = createServer((req, res) => {
    if (req.method === "GET") {
      const header = req.headers["last-event-id"];
      lastEventIds.push(Array.isArray(header) ? header[0] : header);
    }
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const isStream = /text\/event-stream/i.test(String(answer.headers["content-type"] ?? ""));
        if (isStream) {
          opened++;
          const entry = { res, upstream: answer };
          streams.add(entry);
          const forget = () => streams.delete(entry);
          res.once("close", () => {
            forget();
            answer.destroy();
          });
          answer.once("end", forget);
        }
        answer.pipe(res);
      },
    );
    forward.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // A client that goes away takes its upstream request with it (the server reacts to that).
    res.once("close", () => {
      if (!res.writableFinished) forward.destroy();
    });
    req.pipe(forward);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    openStreams: () => streams.size,
    streamsOpened: () => opened,
    lastEventIds: () => [...lastEventIds],
    cutStreams: () => {
      const cut = [...streams];
      streams.clear();
      for (const entry of cut) {
        entry.upstream.destroy();
        entry.res.destroy();
      }
      return cut.length;
    },
    stop: async () => {
      for (const entry of streams) entry.res.destroy();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
