/**
 * A loopback TCP proxy that can turn the connections through it into black holes: bytes are
 * no longer forwarded either way, yet no socket is closed (no FIN, no RST), as when a peer
 * vanishes behind a NAT or a dead link. Connections made afterwards are forwarded normally.
 * It works below HTTP, so it carries WebSocket upgrades (the HTTP fault proxies do not).
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface BlackholeProxy {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** Connections currently forwarded through the proxy. */
  open(): number;
  /** Stops forwarding on every open connection, keeping them open; returns how many. */
  swallow(): number;
  stop(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  swallowed: boolean;
}

export async function startBlackholeProxy(targetPort: number): Promise<BlackholeProxy> {
  const pairs = new Set<Pair>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    const pair: Pair = { client, upstream, swallowed: false };
    pairs.add(pair);
    sockets.add(client).add(upstream);
    const relay = (from: Socket, to: Socket) =>
      from.on("data", (chunk) => {
        if (!pair.swallowed) to.write(chunk);
      });
    relay(client, upstream);
    relay(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // A swallowed pair stays open on both ends whatever the other end does.
    for (const socket of [client, upstream]) {
      socket.on("error", end);
      socket.on("close", () => (sockets.delete(socket), pair.swallowed ? pairs.delete(pair) : end()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    open: () => [...pairs].filter((pair) => !pair.swallowed).length,
    swallow: () => {
      let count = 0;
      for (const pair of pairs) if (!pair.swallowed) (pair.swallowed = true), count++;
      return count;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
