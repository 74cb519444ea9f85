// A server that sends the answer's headers and then stalls its body (as a proxy in front of a
// booting or overloaded sandbox can): each call's bound must cover the body too. A loopback fake
// server, because the real 0.4.2 server always sends its bodies whole: this is the only way to
// hold a body back after its headers.
import { CallTimeoutError, SandboxAgentClient, SandboxStartError } from "../../../lib/sandbox/index.js";
import { serveLoopback, type LoopbackServer } from "../../support/loopback-server.js";

let server: LoopbackServer;
let client: SandboxAgentClient;

beforeAll(async () => {
  server = await serveLoopback((req, res) => {
    const image = /screenshot|recordings/.test(req.url ?? "");
    res.writeHead(200, { "content-type": image ? "image/png" : "application/json", "content-length": "100000" });
    res.write(image ? Buffer.alloc(10) : '{"status":'); // and nothing more
  });
  client = new SandboxAgentClient({ baseUrl: server.url, agent: "mock", autoConnect: false, serverApi: "v1" });
});
afterAll(() => server?.close());

/** The call's outcome, and how long it took. */
async function timed(pending: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await pending.then(() => new Error("expected a failure"), (e: unknown) => e);
  return { error, ms: Date.now() - started };
}

describe("an answer whose body stalls after its headers", () => {
  it("ends desktop.screenshot at its timeoutMs", async () => {
    const { error, ms } = await timed(client.desktop.screenshot({}, { timeoutMs: 300 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(ms).toBeLessThan(5_000);
  });

  it("ends desktop.recordings.download at its timeoutMs", async () => {
    const { error, ms } = await timed(client.desktop.recordings.download("r1", { timeoutMs: 300 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(ms).toBeLessThan(5_000);
  });

  it("ends waitForHealth at its timeoutMs, counting attempts that ran out of time", async () => {
    const { error, ms } = await timed(client.waitForHealth({ timeoutMs: 500 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as Error).message).toMatch(/not healthy within 500 ms .*ran out of time/);
    expect(ms).toBeLessThan(5_000);
  });

  it("ends SandboxAgentClient.start at its healthTimeoutMs", async () => {
    const sandbox = {
      name: "remote",
      create: async () => ({ id: "box-1", baseUrl: server.url }),
      destroy: async () => undefined,
    };
    const { error, ms } = await timed(SandboxAgentClient.start({ sandbox, agent: "mock", healthTimeoutMs: 500 }));
    expect(error).toBeInstanceOf(SandboxStartError);
    expect(error).toMatchObject({ reason: "timeout" });
    expect(ms).toBeLessThan(5_000);
  });
});
