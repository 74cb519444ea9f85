// connect({ waitForServer }) and the client's config/agent/desktop members, against the real
// 0.4.2 server: the client is created while its server is down and connects once it is back.
import { freePort } from "../../support/ports.js";
import {
  CallTimeoutError,
  NotFoundError,
  SandboxAgentClient,
  SandboxAgentHttpError,
  UnsupportedFeatureError,
} from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { startV2ContractServer, type V2ContractServer } from "../../support/v2-contract-server.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SandboxAgentClient against the real 0.4.2 server: waiting for it, config, agents, desktop", () => {
  let server: SandboxAgentServer;
  let client: SandboxAgentClient | undefined;

  beforeAll(async () => {
    server = await startSandboxAgent();
  });

  afterAll(async () => {
    await client?.disconnect();
    await server?.stop();
  });

  it("connect({ waitForServer }) waits for a server that is down, then connects", async () => {
    server.kill("SIGKILL");
    await sleep(200);
    client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false });
    const connecting = client.connect({ waitForServer: { initialDelayMs: 50, maxDelayMs: 300 }, timeoutMs: 30_000 });
    let settled = false;
    void connecting.then(() => (settled = true), () => (settled = true));
    await sleep(400);
    expect(settled).toBe(false);
    expect(client.state).toBe("disconnected");
    await server.restart();
    expect((await connecting).api).toBe("v1");
  });

  it("connect({ waitForServer }) ends with CallTimeoutError within timeoutMs when the server stays down", async () => {
    const port = await freePort();
    const down = new SandboxAgentClient({ baseUrl: `http://127.0.0.1:${port}`, agent: "mock", autoConnect: false });
    const started = Date.now();
    const error = await down.connect({ waitForServer: true, timeoutMs: 600 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallTimeoutError);
    // The wait's own account: how long, how many attempts, and the last refusal (as `cause`), which an
    // attempt that merely ran out of time (a loaded machine) does not mask.
    const counts = String.raw`( \(\d+ failed, \d+ ran out of time\))?`;
    const account = new RegExp(String.raw`^the server was not healthy within 600 ms after \d+ attempts${counts}: ` +
      "last (attempt|failure): .*cannot reach");
    expect((error as Error).message).toMatch(account);
    expect((error as Error).cause).toMatchObject({ name: "SandboxAgentError", kind: "network" });
    expect(down.state).toBe("disconnected");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("reaches config, agents, connections, the inspector and the desktop through the client", async () => {
    const c = client!;
    const mock = await c.getAgent("mock", { config: true, timeoutMs: 10_000 });
    expect(mock.configOptions?.map((o) => o.id)).toEqual(["model", "mode", "thought_level"]);
    expect((await c.getAgent("mock")).configOptions).toBeUndefined();
    // The old call form (bounds only) still works.
    expect((await c.listAgents({ timeoutMs: 5000 })).length).toBeGreaterThan(1);
    const withConfig = await c.listAgents({ config: true, noCache: true });
    expect(withConfig.find((a) => a.id === "mock")?.configOptions?.length).toBe(3);
    expect((await c.listConnections()).map((x) => x.agent)).toContain("mock");
    const skills = c.config.getSkillsConfig({ directory: server.home, name: "none" });
    await expect(skills).rejects.toBeInstanceOf(NotFoundError);
    expect(await c.inspectorUrl()).toBe(`${server.baseUrl}/ui/`);
    await expect(c.desktop.displayInfo()).rejects.toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "desktop-runtime-inactive" });
    await expect(c.getAgent("no-such-agent")).rejects.toMatchObject({ name: "SandboxAgentHttpError", status: 400 });
  });

  it("waitForHealth resolves at once on a live server", async () => {
    const result = await client!.waitForHealth({ timeoutMs: 5000 });
    expect(result).toMatchObject({ status: 200, attempts: 1 });
  });

  it("process errors are catchable by kind: not found is a NotFoundError, still running a 409 of kind process-running", async () => {
    const c = client!;
    const missing = await c.processes.get("no-such-process").catch((error: unknown) => error);
    expect(missing).toMatchObject({ name: "NotFoundError", kind: "process-not-found" });
    expect(missing).toBeInstanceOf(NotFoundError);
    const sleeper = await c.processes.spawn({ command: "sleep", args: ["30"] });
    try {
      const running = await c.processes.remove(sleeper.id).catch((error: unknown) => error);
      expect(running).toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "process-running" });
      expect(running).toBeInstanceOf(SandboxAgentHttpError);
    } finally {
      await c.processes.kill(sleeper.id).catch(() => undefined);
    }
  });
});

describe("SandboxAgentClient against the v2 contract server: what it does not have", () => {
  let v2: V2ContractServer;
  let client: SandboxAgentClient;

  beforeAll(async () => {
    v2 = await startV2ContractServer();
    client = new SandboxAgentClient({ baseUrl: v2.baseUrl, agent: "mock", autoConnect: false, serverApi: "v2" });
  });

  afterAll(async () => {
    await client.disconnect();
    await v2.stop();
  });

  it("waitForHealth waits on /v2/health; connect({ waitForServer: true }) connects", async () => {
    expect((await client.waitForHealth({ timeoutMs: 5000 })).status).toBe(200);
    expect((await client.connect({ waitForServer: true, timeoutMs: 15_000 })).api).toBe("v2");
  });

  it("the waitForServer option makes auto-connect ask the health route first", async () => {
    const requests: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      requests.push(`${init?.method ?? (input instanceof Request ? input.method : "GET")} ${new URL(url).pathname}`);
      return globalThis.fetch(input, init);
    };
    const options = { baseUrl: v2.baseUrl, agent: "mock", serverApi: "v2" as const, waitForServer: true, fetch };
    const auto = new SandboxAgentClient(options);
    try {
      await auto.ready;
      expect(requests[0]).toBe("GET /v2/health");
      expect(requests.slice(1)).toContain("POST /v2/rpc");
    } finally {
      await auto.disconnect();
    }
  });

  it("listAgents({ config: true }), listConnections(): UnsupportedFeatureErrors; plain listAgents works", async () => {
    expect((await client.listAgents()).map((a) => a.id)).toContain("mock");
    await expect(client.listAgents({ config: true })).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await expect(client.getAgent("mock", { config: true })).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await expect(client.listConnections()).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await expect(client.getAgent("nope")).rejects.toMatchObject({ name: "SandboxAgentHttpError", status: 400 });
  });
});
