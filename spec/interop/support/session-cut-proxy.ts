/**
 * A loopback HTTP proxy for interop tests. It forwards every request unchanged and keeps a
 * log of the event streams (GETs answered with `text/event-stream`): which session header
 * they carried, which `Last-Event-ID` they asked for, and the SSE ids that went through.
 * It can cut the streams of one session mid-flight (a reset, not a clean end), leaving the
 * connection-scoped stream alone.
 */
import { startLoopbackProxy } from "../../support/loopback-proxy.js";

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

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

export async function startSessionCutProxy(target: string, sessionHeader: string): Promise<SessionCutProxy> {
  const sessionKey = sessionHeader.toLowerCase();
  const records: ProxiedStream[] = [];

  const proxy = await startLoopbackProxy<ProxiedStream>(target, {
    track: (req) => {
      if (req.method !== "GET") return undefined;
      const record: ProxiedStream = {
        session: header(req.headers[sessionKey]),
        lastEventId: header(req.headers["last-event-id"]),
        ids: [],
        open: true,
        cut: false,
      };
      records.push(record);
      return record;
    },
    relay: ({ upstream, res, data: record }) => {
      let pending = "";
      upstream.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8");
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) if (line.startsWith("id:")) record.ids.push(line.slice(3).trim());
      });
      upstream.pipe(res);
    },
    onDone: ({ data: record }) => {
      record.open = false;
    },
  });

  return {
    baseUrl: proxy.baseUrl,
    streams: () => [...records],
    cutSessionStreams: (session) => {
      const victims = [...proxy.streams].filter(({ data }) => data.session !== undefined && (session === undefined || data.session === session));
      for (const victim of victims) {
        victim.data.cut = true;
        victim.data.open = false;
        proxy.cut(victim);
      }
      return victims.length;
    },
    stop: () => proxy.stop().catch(() => undefined),
  };
}
