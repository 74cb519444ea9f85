// The messages a first-time user meets, against the real 0.4.2 server and loopback servers: an
// agent whose program the server cannot start, a baseUrl that is not a sandbox-agent server, a
// token missing rather than wrong, an unknown agent id, a missing file. Each says what is wrong and
// the way out.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { NotFoundError, SandboxAgentClient, SandboxAgentHttpError } from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { serveLoopback, type LoopbackServer } from "../../support/loopback-server.js";
import { rejection } from "../../support/rejection.js";

const clients: SandboxAgentClient[] = [];
const make = (options: ConstructorParameters<typeof SandboxAgentClient>[0]): SandboxAgentClient => {
  const client = new SandboxAgentClient(options);
  clients.push(client);
  return client;
};
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.disconnect().catch(() => undefined)));
});

describe("the real server", () => {
  let server: SandboxAgentServer;
  beforeAll(async () => {
    server = await startSandboxAgent({ token: "right-token" });
  });
  afterAll(() => server?.stop());

  it("disconnect() while a connect failure's hint is being looked up ends the connect at once", async () => {
    // The lookup of the known agents hangs (until its own 3 s bound): disconnect must not wait for it.
    let lookedUp!: () => void;
    const lookup = new Promise<void>((resolve) => (lookedUp = resolve));
    const hanging: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      if (request.method === "GET" && new URL(request.url).pathname === "/v1/agents") {
        lookedUp();
        const { signal } = request;
        return new Promise<Response>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      }
      return fetch(input, init);
    };
    const client = make({ baseUrl: server.baseUrl, agent: "claud", token: "right-token", fetch: hanging });
    const ready = client.ready.then(() => "connected", () => "failed");
    await lookup;
    const started = Date.now();
    await client.disconnect();
    expect(await ready).toBe("failed");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("an unknown agent id at connect, getAgent and installAgent lists the agents the server knows", async () => {
    const client = make({ baseUrl: server.baseUrl, agent: "claud", token: "right-token" });
    const connectError = (await rejection(client.ready)) as SandboxAgentHttpError;
    expect(connectError).toBeInstanceOf(SandboxAgentHttpError);
    expect(connectError.code).toBe("unsupported_agent");
    expect(connectError.message).toMatch(/^connect failed with HTTP 400: unsupported agent: claud\. /);
    expect(connectError.message).toMatch(/The agent "claud" is not one this server knows; it knows [a-z, ]*\bclaude\b/);
    expect(connectError.message).toContain("mock");
    for (const call of [client.getAgent("claud"), client.installAgent("claud")]) {
      const error = (await rejection(call)) as SandboxAgentHttpError;
      expect(error.code).toBe("unsupported_agent");
      expect(error.message).toContain("it knows ");
      expect(error.message).toContain("mock");
    }
  });

  it("no token at all is token-missing and says none was sent; a wrong one is token_invalid", async () => {
    const none = make({ baseUrl: server.baseUrl, agent: "mock" });
    const missing = (await rejection(none.ready)) as SandboxAgentHttpError;
    expect(missing).toMatchObject({ status: 401, kind: "token-missing" });
    expect(missing.message).toContain("this client sent none");
    const listing = (await rejection(none.listAgents())) as SandboxAgentHttpError;
    expect(listing).toMatchObject({ status: 401, kind: "token-missing" });

    const wrong = make({ baseUrl: server.baseUrl, agent: "mock", token: "wrong-token" });
    const invalid = (await rejection(wrong.ready)) as SandboxAgentHttpError;
    expect(invalid).toMatchObject({ status: 401, kind: "unauthorized", code: "token_invalid" });
    expect(invalid.message).toContain("refused the token this client sent");
    expect(invalid.message).not.toContain("wrong-token");
  });

  it("a missing file is a NotFoundError of kind path-not-found (the server's 400 kept as its status)", async () => {
    const client = make({ baseUrl: server.baseUrl, agent: "mock", token: "right-token", autoConnect: false });
    const error = (await rejection(client.fs.readFile(join(server.home, "no-such-file.txt")))) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.kind).toBe("path-not-found");
    expect(error.status).toBe(400);
  });

  it("an agent whose program the server cannot start says which agent, that it is not installed there, and how", async () => {
    // The mock agent's launcher gone: the server answers 502 "failed to start agent process: No such file".
    rmSync(join(server.dataHome, "sandbox-agent", "bin", "agent_processes", "mock-acp"));
    const client = make({ baseUrl: server.baseUrl, agent: "mock", token: "right-token" });
    const error = (await rejection(client.ready)) as SandboxAgentHttpError;
    expect(error).toBeInstanceOf(SandboxAgentHttpError);
    expect(error).toMatchObject({ status: 502, kind: "agent-start-failed" });
    expect(error.message).toContain("failed to start agent process");
    expect(error.message).toContain('could not start agent "mock"');
    expect(error.message).toContain("not installed on that server");
    expect(error.message).toContain('installAgent("mock")');
    expect(error.message).toContain("local({ mockAgent");
  });
});

describe("a baseUrl that answers but is not a sandbox-agent server", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    // Health answers 200 (so the client takes it for the released server); the rest is a web app.
    server = await serveLoopback((req, res) => {
      if (req.url?.startsWith("/v1/health")) return void res.writeHead(200).end("ok");
      if (req.url?.startsWith("/v1/acp/bare")) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/html" }).end("<html>a web app</html>");
    });
  });
  afterAll(() => server.close());

  it("an answer that is not ACP says baseUrl does not look like a sandbox-agent server", async () => {
    const client = make({ baseUrl: server.url, agent: "mock" });
    const error = (await rejection(client.ready)) as Error & { kind: string };
    expect(error.kind).toBe("protocol");
    expect(error.message).toMatch(/^connect failed: the server at http:\/\/127\.0\.0\.1:\d+ answered the agent connection/);
    expect(error.message).toContain("not ACP");
    expect(error.message).toContain("does not look like a sandbox-agent server");
  });

  it("a bare 404 to the agent connection says so too", async () => {
    const client = make({ baseUrl: server.url, agent: "mock", serverId: "bare" });
    const error = (await rejection(client.ready)) as Error & { kind: string };
    expect(error.kind).toBe("protocol");
    expect(error.message).toContain("with a bare 404");
    expect(error.message).toContain("does not look like a sandbox-agent server");
  });
});
