// What a user reads when something goes wrong: every message names the call the user made (not an
// internal step), says why, and where it can, the way out. Against the real 0.4.2 server (an
// install that cannot download, an agent not installed, a token refused) and loopback sockets (a
// closed port, a server that never answers).
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import {
  NotConnectedError,
  NotFoundError,
  SandboxAgentClient,
  SandboxAgentHttpError,
} from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { neverAnswer, serveLoopback, type LoopbackServer } from "../../support/loopback-server.js";
import { rejection, settled } from "../../support/rejection.js";

/** A loopback port with nothing listening on it (taken, then released). */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const clients: SandboxAgentClient[] = [];
const make = (options: ConstructorParameters<typeof SandboxAgentClient>[0]): SandboxAgentClient => {
  const client = new SandboxAgentClient(options);
  clients.push(client);
  return client;
};
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.disconnect().catch(() => undefined)));
});

describe("a server that cannot be reached (a closed loopback port)", () => {
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = `http://127.0.0.1:${await closedPort()}`;
  });

  it("with auto-connect on, a later call says the connect failed and why, with the connect's error as cause", async () => {
    const client = make({ baseUrl, agent: "mock" });
    const connectError = await rejection(client.ready);
    const error = await rejection(client.newSession());
    expect(error).toBeInstanceOf(NotConnectedError);
    const { message } = error as Error;
    expect(message).toMatch(/^newSession: not connected: connect failed: /);
    expect(message).not.toContain("call connect() first");
    expect(message).toContain("ECONNREFUSED");
    expect((error as Error).cause).toBe(connectError);
  });

  it("the connect's own error names connect, the server's URL and what to check", async () => {
    const client = make({ baseUrl, agent: "mock", autoConnect: false });
    const error = await rejection(client.connect());
    expect(error).toMatchObject({ name: "SandboxAgentError", kind: "network" });
    const { message } = error as Error;
    expect(message).toMatch(/^connect failed: /);
    expect(message).toContain(baseUrl);
    expect(message).toContain("ECONNREFUSED");
    expect(message).toContain("check that the server is running and baseUrl is right");
    expect(message).not.toContain("detect server version");
  });

  it("control-plane calls name the user's call, not the version probe they start with", async () => {
    const client = make({ baseUrl, agent: "mock", autoConnect: false });
    // Two calls at once share one probe; each still reports its own name.
    const [stat, agents] = await Promise.all([rejection(client.fs.stat("/tmp")), rejection(client.listAgents())]);
    for (const [error, call] of [[stat, "fs.stat"], [agents, "listAgents"]] as const) {
      expect(error).toMatchObject({ name: "SandboxAgentError", kind: "network" });
      expect((error as Error).message).toMatch(new RegExp(`^${call.replace(".", "\\.")} failed: `));
      expect((error as Error).message).not.toContain("detect server version");
      expect((error as Error).message).toContain("ECONNREFUSED");
    }
    const processes = await rejection(client.processes.list());
    expect((processes as Error).message).toMatch(/^processes\.list failed: .*ECONNREFUSED/);
  });
});

describe("a server that accepts connections and never answers", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await serveLoopback(neverAnswer);
  });
  afterAll(() => server.close());

  it("a control-plane call's timeoutMs also bounds the version probe, and the error names the call", async () => {
    const client = make({ baseUrl: server.url, autoConnect: false });
    const error = await settled(client.fs.stat("/tmp", { timeoutMs: 300 }), 5000);
    expect(error).toMatchObject({ name: "TimeoutError" });
    expect((error as Error).message).toMatch(/^fs\.stat timed out after 300 ms/);
  });

  it("without a deadline of its own, the version probe still gives up, naming the call and the way out", async () => {
    const client = make({ baseUrl: server.url, autoConnect: false });
    const started = Date.now();
    const error = await settled(client.fs.stat("/tmp"), 20_000);
    expect(error).toMatchObject({ name: "SandboxAgentError", kind: "network" });
    expect(Date.now() - started).toBeLessThan(15_000);
    const { message } = error as Error;
    expect(message).toMatch(/^fs\.stat failed: /);
    expect(message).toContain(`${server.url} did not answer`);
    expect(message).toContain("serverApi");
  }, 30_000);
});

describe("a baseUrl that points at some other web server", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await serveLoopback((_req, res) => {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
    });
  });
  afterAll(() => server.close());

  it("a control-plane call says the server is not a sandbox-agent server, not that its own target is missing", async () => {
    const client = make({ baseUrl: server.url, autoConnect: false });
    const error = await rejection(client.fs.stat("/tmp"));
    expect(error).toMatchObject({ name: "SandboxAgentError", kind: "protocol" });
    expect(error).not.toBeInstanceOf(NotFoundError);
    const { message } = error as Error;
    expect(message).toMatch(/^fs\.stat failed: /);
    expect(message).toContain(`${server.url} answered GET /v1/health with HTTP 404`);
    expect(message).toContain("check that baseUrl points at one");
  });
});

describe("agents the released server cannot provide", () => {
  let server: SandboxAgentServer;
  beforeAll(async () => {
    // Downloads go through a proxy on a closed loopback port, so an install fails at once; and the
    // server does not install on connect (it answers agent_not_installed instead).
    const proxy = `http://127.0.0.1:${await closedPort()}`;
    server = await startSandboxAgent({
      env: {
        SANDBOX_AGENT_REQUIRE_PREINSTALL: "1",
        HTTPS_PROXY: proxy,
        HTTP_PROXY: proxy,
        https_proxy: proxy,
        http_proxy: proxy,
        ALL_PROXY: proxy,
        all_proxy: proxy,
        NO_PROXY: undefined,
        no_proxy: undefined,
      },
    });
  });
  afterAll(() => server?.stop());

  it("a failed install names the call, the agent, the status, why, and where to look", async () => {
    const client = make({ baseUrl: server.baseUrl, agent: "claude", autoConnect: false });
    const error = await rejection(client.installAgent("claude"));
    expect(error).toBeInstanceOf(SandboxAgentHttpError);
    expect((error as SandboxAgentHttpError).code).toBe("install_failed");
    const { message } = error as Error;
    expect(message).toMatch(/^installAgent failed with HTTP 500: install failed: claude\./);
    expect(message).toContain('could not install agent "claude"');
    // The server's own reason (its installer's stderr), then what to check.
    expect(message).toContain("Connection refused");
    expect(message).toContain("network access");
    expect(message).toContain("server's log");
  });

  it("connecting to an agent that is not installed says so and how to install it", async () => {
    const client = make({ baseUrl: server.baseUrl, agent: "claude" });
    const connectError = await rejection(client.ready);
    expect(connectError).toBeInstanceOf(NotFoundError);
    expect((connectError as Error).message).toMatch(/^connect failed with HTTP 404: agent not installed: claude\./);
    expect((connectError as Error).message).toContain('installAgent("claude")');
    // A call made afterwards carries it.
    const error = await rejection(client.prompt("s-1", "hi"));
    expect((error as Error).message).toMatch(/^prompt: not connected: connect failed with HTTP 404: agent not installed/);
    expect((error as Error).message).toContain('installAgent("claude")');
  });
});

describe("a token the server refuses", () => {
  let server: SandboxAgentServer;
  beforeAll(async () => {
    server = await startSandboxAgent({ token: "right-token" });
  });
  afterAll(() => server?.stop());

  it("names the user's call and the token option, never the token", async () => {
    const client = make({ baseUrl: server.baseUrl, agent: "mock", token: "wrong-token", autoConnect: false });
    const error = await rejection(client.fs.stat("/tmp"));
    expect(error).toBeInstanceOf(SandboxAgentHttpError);
    const { message } = error as Error;
    expect(message).toMatch(/^fs\.stat failed with HTTP 401: /);
    expect(message).toContain("token option");
    expect(message).not.toContain("wrong-token");
    expect(message).not.toContain("detect server version");
  });
});
