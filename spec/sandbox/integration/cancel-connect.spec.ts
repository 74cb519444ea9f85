import { createServer, type Server, type Socket } from "node:net";
import { CallAbortedError, CallTimeoutError, NotConnectedError, SandboxAgentClient } from "../../../lib/sandbox/index.js";

/** A server that accepts connections and never answers: every request hangs. */
async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("a connect that never completes", () => {
  it("is cancelled by disconnect(): ready rejects with CallAbortedError and disconnect() returns", async () => {
    const hole = await blackHole();
    try {
      const client = new SandboxAgentClient({ baseUrl: hole.url, agent: "mock", serverApi: "v1" });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await client.disconnect();
      await expect(client.ready).rejects.toBeInstanceOf(CallAbortedError);
      expect(client.state).toBe("disconnected");
      await expect(client.newSession()).rejects.toBeInstanceOf(NotConnectedError);
    } finally {
      await hole.close();
    }
  });

  it("does not hold a call whose signal aborts while it waits for the connection", async () => {
    const hole = await blackHole();
    try {
      const client = new SandboxAgentClient({ baseUrl: hole.url, agent: "mock" });
      const controller = new AbortController();
      const call = client.newSession({}, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(call).rejects.toBeInstanceOf(CallAbortedError);
      await client.disconnect();
      await expect(client.ready).rejects.toBeInstanceOf(CallAbortedError);
    } finally {
      await hole.close();
    }
  });

  it("bounds a control-plane call by its timeoutMs and its signal", async () => {
    const hole = await blackHole();
    try {
      const client = new SandboxAgentClient({ baseUrl: hole.url, serverApi: "v1", autoConnect: false });
      await expect(client.health({ timeoutMs: 100 })).rejects.toBeInstanceOf(CallTimeoutError);
      const controller = new AbortController();
      const listing = client.fs.listEntries("/tmp", { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(listing).rejects.toBeInstanceOf(CallAbortedError);
    } finally {
      await hole.close();
    }
  });
});
