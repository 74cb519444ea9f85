// startSandbox() and pollHealth() with providers of our own over loopback HTTP servers: what is
// torn down on each way a start can fail, and how the health wait is bounded.
import { CallAbortedError, SandboxAgentHttpError } from "../../lib/sandbox/index.js";
import { SandboxStartError } from "../../lib/sandbox/errors.js";
import { pollHealth } from "../../lib/providers/health-poll.js";
import { startSandbox, type SandboxInfo, type SandboxProvider } from "../../lib/sandbox/index.js";
import { neverAnswer, withLoopback, type LoopbackHandler } from "../support/loopback-server.js";
import { rejection } from "../support/rejection.js";

/** Answers every request 503, as a server that is up but not ready does. */
const unavailable: LoopbackHandler = (_req, res) => res.writeHead(503).end();

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
  it("destroys the sandbox and fails with SandboxStartError when the health probes hang", async () => {
    await withLoopback(neverAnswer, async (hole) => {
      const provider = recording(hole.url);
      const error = await rejection(startSandbox({ sandbox: provider, agent: "mock", healthTimeoutMs: 400 }));
      expect(error).toBeInstanceOf(SandboxStartError);
      expect((error as SandboxStartError).reason).toBe("timeout");
      expect((error as Error).message).not.toContain("t0ken");
      expect(provider.calls).toEqual(["create", "destroy sbx-1"]);
    });
  });

  it("is cancelled by its signal while waiting, and destroys what it created", async () => {
    await withLoopback(unavailable, async (down) => {
      const provider = recording(down.url);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const starting = startSandbox({ sandbox: provider, agent: "mock", signal: controller.signal });
      await expect(starting).rejects.toBeInstanceOf(CallAbortedError);
      expect(provider.calls).toEqual(["create", "destroy sbx-1"]);
    });
  });

  it("destroys the sandbox when connecting fails after a healthy answer", async () => {
    const healthOnly: LoopbackHandler = (req, res) => {
      if (req.url === "/v1/health") res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      else res.writeHead(500).end("broken");
    };
    await withLoopback(healthOnly, async (halfUp) => {
      const provider = recording(halfUp.url);
      await expect(startSandbox({ sandbox: provider, agent: "mock" })).rejects.toBeInstanceOf(Error);
      expect(provider.calls).toEqual(["create", "destroy sbx-1"]);
      // The health probe and the client both used the sandbox's token.
      const seen = halfUp.requests.map((req) => `${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
      expect(seen[0]).toBe("GET /v1/health Bearer t0ken");
      expect(seen.some((line) => line.startsWith("POST /v1/acp/") && line.endsWith("Bearer t0ken"))).toBe(true);
    });
  });

  it("fails at once (no waiting out the timeout) when the server refuses the sandbox's token", async () => {
    const refusing: LoopbackHandler = (_req, res) =>
      res.writeHead(401, { "content-type": "application/problem+json" }).end('{"status":401}');
    await withLoopback(refusing, async (strict) => {
      const provider = recording(strict.url);
      const started = Date.now();
      const error = await rejection(startSandbox({ sandbox: provider, agent: "mock", healthTimeoutMs: 20_000 }));
      expect(error).toBeInstanceOf(SandboxAgentHttpError);
      expect((error as SandboxAgentHttpError).status).toBe(401);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(provider.calls).toEqual(["create", "destroy sbx-1"]);
    });
  });

  it("reattaches with sandboxId through reconnect(), and does not destroy a sandbox it did not create", async () => {
    await withLoopback(unavailable, async (down) => {
      const provider = recording(down.url, true);
      const reattaching = startSandbox({ sandbox: provider, agent: "mock", sandboxId: "sbx-1", healthTimeoutMs: 200 });
      await expect(reattaching).rejects.toBeInstanceOf(SandboxStartError);
      expect(provider.calls).toEqual(["reconnect sbx-1"]);
      const noReconnect = startSandbox({ sandbox: recording(down.url), agent: "mock", sandboxId: "x" });
      await expect(noReconnect).rejects.toMatchObject({ name: "SandboxAgentError", kind: "sandbox-provider" });
    });
  });
});

describe("pollHealth()", () => {
  it("backs off between probes instead of hammering a server that is not ready", async () => {
    await withLoopback(unavailable, async (down) => {
      expect(await pollHealth(down.url, { timeoutMs: 1500 })).toBe("timeout");
      // Fixed 20 ms polling would make ~75 probes; doubling delays capped at 500 ms make about 8.
      expect(down.requests.length).toBeGreaterThanOrEqual(4);
      expect(down.requests.length).toBeLessThanOrEqual(15);
    });
  });

  it("ends early when `gone` settles (the server died)", async () => {
    await withLoopback(neverAnswer, async (hole) => {
      let die!: () => void;
      const gone = new Promise<void>((resolve) => (die = resolve));
      setTimeout(() => die(), 100);
      const started = Date.now();
      expect(await pollHealth(hole.url, { timeoutMs: 20_000, gone })).toBe("gone");
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });

  it("resolves ready on the first 200", async () => {
    const healthy: LoopbackHandler = (_req, res) => res.writeHead(200).end("{}");
    await withLoopback(healthy, async (up) => expect(await pollHealth(up.url)).toBe("ready"));
  });
});
