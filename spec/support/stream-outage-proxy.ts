/**
 * A loopback HTTP proxy for tests that simulates an outage of the event stream: `drop()` cuts the
 * open SSE responses and holds every new event-stream GET until `restore()` forwards them, so a
 * client stays in its reconnecting state for as long as the test wants. Other requests pass.
 */
import type { IncomingMessage } from "node:http";
import { startLoopbackProxy } from "./loopback-proxy.js";

export interface StreamOutageProxy {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  /** SSE responses currently open through the proxy. */
  openStreams(): number;
  /** Event-stream GETs waiting for `restore()`. */
  heldRequests(): number;
  /** Cuts the open event streams (a reset, not a clean end) and holds new ones. Returns how many were cut. */
  drop(): number;
  /** Ends the outage: held GETs are forwarded, new ones pass. */
  restore(): void;
  stop(): Promise<void>;
}

const wantsEventStream = (req: IncomingMessage): boolean =>
  req.method === "GET" && /text\/event-stream/i.test(String(req.headers.accept ?? ""));

export async function startStreamOutageProxy(target: string): Promise<StreamOutageProxy> {
  let down = false;
  let held: Array<() => void> = [];
  const proxy = await startLoopbackProxy(target, {
    onRequest: (req, forward) => {
      if (down && wantsEventStream(req)) held.push(forward);
      else forward();
    },
  });
  const restore = (): void => {
    down = false;
    const waiting = held;
    held = [];
    for (const forward of waiting) forward();
  };
  return {
    baseUrl: proxy.baseUrl,
    openStreams: () => proxy.streams.size,
    heldRequests: () => held.length,
    drop: () => {
      down = true;
      let cut = 0;
      for (const stream of [...proxy.streams]) if (proxy.cut(stream)) cut++;
      return cut;
    },
    restore,
    stop: async () => {
      held = [];
      await proxy.stop();
    },
  };
}
