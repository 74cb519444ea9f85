/**
 * The core of the tests' loopback HTTP proxies: forwards every request to `target` unchanged and
 * keeps track of the event-stream (SSE) responses that are open through it, so that a proxy built
 * on it can observe, hold back, throttle or cut them.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One event-stream response flowing through the proxy, with what the layer on top keeps about it. */
export interface OpenStream<T> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly upstream: IncomingMessage;
  readonly data: T;
}

export interface LoopbackProxyOptions<T> {
  /** Sees every request first; it is forwarded when this calls `forward` (at once by default). */
  onRequest?(req: IncomingMessage, forward: () => void): void;
  /**
   * For an event-stream answer: the layer's data for it, or `undefined` to relay it untracked.
   * Every event stream is tracked (with `undefined` data) without this.
   */
  track?(req: IncomingMessage, upstream: IncomingMessage): T | undefined;
  /**
   * Relays a tracked stream once its headers are written; pipes it by default. A relay that does
   * not pipe ends `res` in `onEnd`.
   */
  relay?(stream: OpenStream<T>): void;
  /** The upstream of a stream ended while the stream was still open. */
  onEnd?(stream: OpenStream<T>): void;
  /** The stream ended or its client went away (may be called more than once). */
  onDone?(stream: OpenStream<T>): void;
  /** Any other answer, once its headers are written (it is piped afterwards). */
  onResponse?(res: ServerResponse, upstream: IncomingMessage): void;
}

export interface LoopbackProxy<T> {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  /** The tracked event streams currently open. */
  readonly streams: ReadonlySet<OpenStream<T>>;
  /** Abruptly destroys one open stream (the client sees a reset, not a clean end); false if it was not open. */
  cut(stream: OpenStream<T>): boolean;
  /** Destroys the open streams and every connection, then closes the listening socket. */
  stop(): Promise<void>;
}

const isEventStream = (answer: IncomingMessage): boolean => /text\/event-stream/i.test(String(answer.headers["content-type"] ?? ""));

export async function startLoopbackProxy<T = undefined>(target: string, options: LoopbackProxyOptions<T> = {}): Promise<LoopbackProxy<T>> {
  const upstreamUrl = new URL(target);
  const streams = new Set<OpenStream<T>>();

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const out = request(
      {
        host: upstreamUrl.hostname,
        port: upstreamUrl.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstreamUrl.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // An idle event stream must reach the client as open now, not with its first byte.
        if (isEventStream(answer)) res.flushHeaders();
        const data = isEventStream(answer) ? (options.track ? options.track(req, answer) : (undefined as T)) : undefined;
        const tracked = isEventStream(answer) && (options.track === undefined || data !== undefined);
        if (!tracked) {
          if (!isEventStream(answer)) options.onResponse?.(res, answer);
          answer.pipe(res);
          return;
        }
        const stream: OpenStream<T> = { req, res, upstream: answer, data: data as T };
        streams.add(stream);
        answer.once("end", () => {
          if (streams.delete(stream)) options.onEnd?.(stream);
          options.onDone?.(stream);
        });
        res.once("close", () => {
          streams.delete(stream);
          options.onDone?.(stream);
          answer.destroy();
        });
        if (options.relay) options.relay(stream);
        else answer.pipe(res);
      },
    );
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // A client that goes away takes its upstream request with it (the server reacts to that).
    res.once("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };

  const server = createServer((req, res) => {
    if (options.onRequest) options.onRequest(req, () => forward(req, res));
    else forward(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    streams,
    cut: (stream) => {
      if (!streams.delete(stream)) return false;
      stream.upstream.destroy();
      stream.res.destroy();
      return true;
    },
    stop: async () => {
      for (const stream of [...streams]) stream.res.destroy();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
