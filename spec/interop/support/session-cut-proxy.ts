/**
 * A loopback HTTP proxy for interop tests. It forwards every request unchanged and keeps a
 * log of the event streams (GETs answered with `text/event-stream`): which session header
 * they carried, which `Last-Event-ID` they asked for, and the SSE ids that went through.
 * It can cut the streams of one session mid-flight (a reset, not a clean end), leaving the
 * connection-scoped stream alone.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ProxiedStream {
  /** Value of the session header, or undefined for a connection-scoped stream. */
  readonly session: string | undefined;
  /** The `Last-Event-ID` header the GET carried. */
  readonly lastEventId: string | undefined;
  /** SSE `id:` values forwarded to the client on this stream, in order. */
  readonly ids: string[];
  open: boolean;
  cut: boolean;
}

export interface SessionCutProxy {
  readonly baseUrl: string;
  /** Every event stream opened through the proxy, oldest first. */
  streams(): readonly ProxiedStream[];
  /** Destroys the open streams of `session` (every session stream when omitted). Returns how many. */
  cutSessionStreams(session?: string): number;
  stop(): Promise<void>;
}

interface Live {
  record: ProxiedStream;
  res: ServerResponse;
  upstream: IncomingMessage;
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

export async function startSessionCutProxy(target: string, sessionHeader: string): Promise<SessionCutProxy> {
  const upstreamUrl = new URL(target);
  const sessionKey = sessionHeader.toLowerCase();
  const records: ProxiedStream[] = [];
  const live = new Set<Live>();
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const forward = request(
      { host: upstreamUrl.hostname, port: upstreamUrl.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstreamUrl.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (req.method === "GET" && /text\/event-stream/i.test(String(answer.headers["content-type"] ?? ""))) {
          const record: ProxiedStream = {
            session: header(req.headers[sessionKey]),
            lastEventId: header(req.headers["last-event-id"]),
            ids: [],
            open: true,
            cut: false,
          };
          records.push(record);
          const entry: Live = { record, res, upstream: answer };
          live.add(entry);
          let pending = "";
          answer.on("data", (chunk: Buffer) => {
            pending += chunk.toString("utf8");
            const lines = pending.split("\n");
            pending = lines.pop() ?? "";
            for (const line of lines) if (line.startsWith("id:")) record.ids.push(line.slice(3).trim());
          });
          const done = () => {
            record.open = false;
            live.delete(entry);
          };
          answer.once("end", done);
          res.once("close", () => {
            done();
            answer.destroy();
          });
        }
        answer.pipe(res);
      },
    );
    forward.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.once("close", () => {
      if (!res.writableFinished) forward.destroy();
    });
    req.pipe(forward);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    streams: () => [...records],
    cutSessionStreams: (session) => {
      const victims = [...live].filter((entry) => entry.record.session !== undefined && (session === undefined || entry.record.session === session));
      for (const entry of victims) {
        entry.record.cut = true;
        entry.record.open = false;
        live.delete(entry);
        entry.upstream.destroy();
        entry.res.destroy();
      }
      return victims.length;
    },
    stop: async () => {
      for (const entry of live) entry.res.destroy();
      live.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
