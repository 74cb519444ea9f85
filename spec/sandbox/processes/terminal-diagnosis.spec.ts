// A terminal whose socket is refused is explained with one HTTP lookup of the process. That lookup
// has a bound of its own: a server that never answers it must not keep a request open for good.
import type { IncomingMessage } from "node:http";
import { serveLoopback, type LoopbackServer } from "../../support/loopback-server.js";
import { processesFor, until } from "./helpers.js";

describe("the lookup that explains a refused terminal socket", () => {
  let server: LoopbackServer;
  const lookups: IncomingMessage[] = [];
  const closed = new Set<IncomingMessage>();
  beforeAll(async () => {
    // The socket's upgrade request gets a plain 400 (the handshake fails); the lookup, no answer at all.
    server = await serveLoopback((req, res) => {
      if (req.headers.upgrade) {
        res.writeHead(400).end();
        return;
      }
      lookups.push(req);
      req.socket.on("close", () => closed.add(req));
    });
  });
  afterAll(() => server.close());

  it("gives up after its bound: ready rejects, and the client closes the lookup's request", async () => {
    const terminal = processesFor(server.url).terminal("proc_1", { readyTimeoutMs: 30_000 });
    try {
      await until(() => lookups.length === 1, 5_000, "the lookup of proc_1");
      expect(lookups[0]?.url).toBe("/v1/processes/proc_1");
      const started = Date.now();
      const error = await terminal.ready.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      // A local failure (kind `terminal`, not the server's error frame, `terminal-server`), naming the process.
      expect(error).toMatchObject({ name: "SandboxAgentError", kind: "terminal" });
      expect((error as Error).message).toMatch(/^terminal proc_1: /);
      expect((error as Error).message).toContain("could not connect");
      expect((error as Error).message).toContain("did not answer the lookup of the process within");
      expect((error as Error).cause).toMatchObject({ name: "TimeoutError" });
      await until(() => closed.has(lookups[0]!), 5_000, "the lookup's connection to close");
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      terminal.close();
    }
  }, 30_000);
});
