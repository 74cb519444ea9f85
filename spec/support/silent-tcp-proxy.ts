/**
 * A loopback TCP proxy that can make one connection go silent, as a route that drops packets does
 * (a partition, a vanished host, a NAT entry gone): no reset and no end ever reach either side, the
 * bytes just stop, both ways, while the sockets stay open. Other connections through it work on.
 */
import { createServer, connect, type AddressInfo, type Socket } from "node:net";

export interface SilentTcpProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /**
   * The next chunk a client sends that `matches` (from now on, on any connection) is forwarded or
   * not (`forward`), then its connection goes silent. Resolves once that happened.
   */
  silenceAfter(matches: (chunk: Buffer) => boolean, forward: boolean): Promise<void>;
  /** Every connection opened from now on is silent from its first byte (the server never hears it). */
  silenceNew(): void;
  /** Destroys every connection, then closes the listening socket. */
  stop(): Promise<void>;
}

export async function startSilentTcpProxy(targetPort: number): Promise<SilentTcpProxy> {
  const sockets = new Set<Socket>();
  let trap: { matches: (chunk: Buffer) => boolean; forward: boolean; sprung: () => void } | undefined;
  let silentFromStart = false;
  const server = createServer((down) => {
    const up = connect(targetPort, "127.0.0.1");
    for (const socket of [down, up]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    let silent = silentFromStart;
    down.on("data", (chunk: Buffer) => {
      if (silent) return;
      const armed = trap;
      if (armed && armed.matches(chunk)) {
        trap = undefined;
        if (armed.forward) up.write(chunk);
        silent = true;
        armed.sprung();
        return;
      }
      up.write(chunk);
    });
    up.on("data", (chunk: Buffer) => {
      if (!silent) down.write(chunk);
    });
    // A silent route carries no FIN either: only a live connection passes an end on.
    down.on("end", () => silent || up.end());
    up.on("end", () => silent || down.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    silenceAfter: (matches, forward) => new Promise<void>((sprung) => (trap = { matches, forward, sprung })),
    silenceNew: () => {
      silentFromStart = true;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
