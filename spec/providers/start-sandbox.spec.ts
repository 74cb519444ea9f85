// startSandbox() and pollHealth() with providers of our own over loopback HTTP servers: what is
// torn down on each way a start can fail, and how the health wait is bounded.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { CallAbortedError, SandboxAgentHttpError } from "../../lib/sandbox/index.js";
import { SandboxProviderError } from "../../lib/sandbox/errors/sandbox-provider-error.js";
import { SandboxStartError } from "../../lib/sandbox/errors/sandbox-start-error.js";
import { pollHealth } from "../../lib/sandbox/providers/health-poll.js";
import { startSandbox, type SandboxInfo, type SandboxProvider } from "../../lib/sandbox/providers/index.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A provider over a fixed URL that records what it was asked. */
function recording(baseUrl: string, withReconnect = false): SandboxProvider & { calls: string[] } {
  const calls: string[] = [];
  const info: SandboxInfo = { id: "sbx-1", baseUrl, token: "t0ken" };
  return {
    name: "fake",
    calls,
    async create() {
      calls.push("create");
      return info;
    },
    async destroy(id) {
      calls.push(`destroy ${id}`);
    },
    ...(withReconnect
      ? {
          async reconnect(id: string) {
            calls.push(`reconnect ${id}`);
            return info;
          },
        }
      : {}),
  };
}

describe("startSandbox()", () => {
  it("destroys the sandbox and fails with SandboxStartError when health never answers (hanging probes are bounded)", async () => {
    const hole = await serve(() => undefined); // accepts, never answers
    try {
      const provider = recording(hole.url);
      const error = await startSandbox({ sandbox: provider, agent: "mock", healthTimeoutMs: 400 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SandboxStartError);
      expect((error as SandboxStartError).reason).toBe("timeout");
      expect((error as Error).message).not.toContain("t0ken");
      expect(provider.calls).toEqual(["create", "destroy sbx-1"]);
    } finally {
      await hole.close();
    }
  });

  it("is cancelled by its signal while waiting, and destroys what it created", async () => {
    const down = await serve((_req, res) => res.writeHead(503).end());
    try {
      const provider = recording(down.url);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expect(startSandbox({ sandbox: provider, agent: "mock", signal: controller.signal })).rejects.toBeInstanceOf(CallAbortedError);
      expect(provider.calls).toEqual(["create", "destroy sbx-1"]);
    } finally {
      await down.close();
    }
  });

  it("destroys the sandbox when connecting fails after a healthy answer", async () => {
    const seen: string[] = [];
    const halfUp = await serve((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
      if (req.url === "/v1/health") res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      else res.writeHead(500).end("broken");
    });
    try {
      const provider = recording(halfUp.url);
      await expect(startSandbox({ sandbox: provider, agent: "mock" })).rejects.toBeInstanceOf(Error);
      expect(provider.calls).toEqual(["create", "destroy sbx-1"]);
      // The health probe and the client both used the sandbox's token.
      expect(seen[0]).toBe("GET /v1/health Bearer t0ken");
      expect(seen.some((line) => line.startsWith("POST /v1/acp/") && line.endsWith("Bearer t0ken"))).toBe(true);
    } finally {
      await halfUp.close();
    }
  });

  it("fails at once (no waiting out the timeout) when the server refuses the sandbox's token", async () => {
    const strict = await serve((_req, res) => res.writeHead(401, { "content-type": "application/problem+json" }).end('{"status":401}'));
    try {
      const provider = recording(strict.url);
      const started = Date.now();
      const error = await startSandbox({ sandbox: provider, agent: "mock", healthTimeoutMs: 20_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SandboxAgentHttpError);
      expect((error as SandboxAgentHttpError).status).toBe(401);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(provider.calls).toEqual(["create", "destroy sbx-1"]);
    } finally {
      await strict.close();
    }
  });

  it("reattaches with sandboxId through reconnect(), and does not destroy a sandbox it did not create", async () => {
    const down = await serve((_req, res) => res.writeHead(503).end());
    try {
      const provider = recording(down.url, true);
      await expect(startSandbox({ sandbox: provider, agent: "mock", sandboxId: "sbx-1", healthTimeoutMs: 200 })).rejects.toBeInstanceOf(SandboxStartError);
      expect(provider.calls).toEqual(["reconnect sbx-1"]);
      await expect(startSandbox({ sandbox: recording(down.url), agent: "mock", sandboxId: "x" })).rejects.toBeInstanceOf(SandboxProviderError);
    } finally {
      await down.close();
    }
  });
});

describe("pollHealth()", () => {
  it("backs off between probes instead of hammering a server that is not ready", async () => {
    let probes = 0;
    const down = await serve((_req, res) => {
      probes++;
      res.writeHead(503).end();
    });
    try {
      expect(await pollHealth(down.url, { timeoutMs: 1500 })).toBe("timeout");
      // Fixed 20 ms polling would make ~75 probes; doubling delays capped at 500 ms make about 8.
      expect(probes).toBeGreaterThanOrEqual(4);
      expect(probes).toBeLessThanOrEqual(15);
    } finally {
      await down.close();
    }
  });

  it("ends early when `gone` settles (the server died)", async () => {
    const hole = await serve(() => undefined);
    try {
      let die!: () => void;
      const gone = new Promise<void>((resolve) => (die = resolve));
      setTimeout(() => die(), 100);
      const started = Date.now();
      expect(await pollHealth(hole.url, { timeoutMs: 20_000, gone })).toBe("gone");
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await hole.close();
    }
  });

  it("resolves ready on the first 200", async () => {
    const up = await serve((_req, res) => res.writeHead(200).end("{}"));
    try {
      expect(await pollHealth(up.url)).toBe("ready");
    } finally {
      await up.close();
    }
  });
});
