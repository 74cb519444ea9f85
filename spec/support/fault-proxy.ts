/**
 * A loopback HTTP proxy for tests: forwards every request to `target` unchanged and can cut the
 * event-stream (SSE) responses that are currently flowing through it, mid-stream, on demand.
 */
import { startLoopbackProxy } from "./loopback-proxy.js";

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
  const lastEventIds: (string | undefined)[] = [];
  let opened = 0;

  const proxy = await startLoopbackProxy(target, {
    onRequest: (req, forward) => {
      if (req.method === "GET") {
        const header = req.headers["last-event-id"];
        lastEventIds.push(Array.isArray(header) ? header[0] : header);
      }
      forward();
    },
    relay: (stream) => {
      opened++;
      stream.upstream.pipe(stream.res);
    },
  });

  return {
    baseUrl: proxy.baseUrl,
    openStreams: () => proxy.streams.size,
    streamsOpened: () => opened,
    lastEventIds: () => [...lastEventIds],
    cutStreams: () => {
      let cut = 0;
      for (const stream of [...proxy.streams]) if (proxy.cut(stream)) cut++;
      return cut;
    },
    stop: () => proxy.stop(),
  };
}
