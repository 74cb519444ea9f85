/**
 * A bare HTTP server on a free 127.0.0.1 port whose every request goes to one handler, for tests
 * of how the clients treat a server that misbehaves on purpose: never answers, stalls a body,
 * refuses, or answers only some routes. It records the requests it was sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type LoopbackHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Every request received so far, in order. */
  readonly requests: IncomingMessage[];
  /** Destroys every connection (open requests included), then closes the listening socket. */
  close(): Promise<void>;
}

/** Accepts the request and never answers it (nor closes the connection). */
export const neverAnswer: LoopbackHandler = () => undefined;

export async function serveLoopback(handle: LoopbackHandler): Promise<LoopbackServer> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `use` against a fresh server, and closes the server however `use` ends. */
export async function withLoopback<T>(
  handle: LoopbackHandler,
  use: (server: LoopbackServer) => Promise<T>,
): Promise<T> {
  const server = await serveLoopback(handle);
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}
