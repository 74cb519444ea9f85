// waitForHealth against the real 0.4.2 server (up, down then up again, wrong token) and the v2
// contract server; inspectorUrl fetched from the real server's /ui/.
import { ControlPlaneHttp } from "../../../lib/sandbox/server/control-plane.js";
import { inspectorUrl, waitForHealth } from "../../../lib/sandbox/server/config/index.js";
import { CallAbortedError, CallTimeoutError, SandboxAgentHttpError } from "../../../lib/sandbox/errors.js";
import { freePort } from "../../support/ports.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { startV2ContractServer, type V2ContractServer } from "../../support/v2-contract-server.js";
import { rejection } from "../../support/rejection.js";

const TOKEN = "health-spec-secret-91c2";

const httpFor = (baseUrl: string, token?: string): ControlPlaneHttp =>
  new ControlPlaneHttp({ baseUrl, token, headers: undefined, fetch: undefined });

describe("waitForHealth and inspectorUrl against the real 0.4.2 server", () => {
  let server: SandboxAgentServer;

  beforeAll(async () => {
    server = await startSandboxAgent({ token: TOKEN });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("returns after one attempt when the server is up", async () => {
    const result = await waitForHealth(httpFor(server.baseUrl, TOKEN), { timeoutMs: 5000 });
    expect(result).toMatchObject({ status: 200, attempts: 1 });
  });

  it("keeps waiting while the server is down and returns once it is back", async () => {
    server.kill("SIGKILL");
    const http = httpFor(server.baseUrl, TOKEN);
    // Down for certain before the wait starts: the port refuses connections.
    await expect(http.send("probe", "get", "/v1/health", { timeoutMs: 2000 })).rejects.toMatchObject({ name: "SandboxAgentError", kind: "network" });
    const waiting = waitForHealth(http, { timeoutMs: 30_000, initialDelayMs: 50, maxDelayMs: 400 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.restart();
    const result = await waiting;
    expect(result.status).toBe(200);
    expect(result.attempts).toBeGreaterThan(1);
  });

  it("fails at once on a wrong token, without the token in the error", async () => {
    const startedAt = Date.now();
    const error = await rejection(waitForHealth(httpFor(server.baseUrl, "wrong-token-55"), { timeoutMs: 20_000 }));
    expect(error).toBeInstanceOf(SandboxAgentHttpError);
    expect((error as SandboxAgentHttpError).status).toBe(401);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(String(error)).not.toContain("wrong-token-55");
  });

  it("ends with CallTimeoutError (last failure as cause) when nothing answers", async () => {
    const port = await freePort();
    const startedAt = Date.now();
    const nobody = httpFor(`http://127.0.0.1:${port}`);
    const error = await rejection(waitForHealth(nobody, { timeoutMs: 600, initialDelayMs: 50 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as CallTimeoutError).cause).toMatchObject({ name: "SandboxAgentError", kind: "network" });
    expect((error as Error).message).toMatch(/not healthy within 600 ms after \d+ attempts/);
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });

  it("ends with CallAbortedError when its signal aborts", async () => {
    const port = await freePort();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const nobody = httpFor(`http://127.0.0.1:${port}`);
    const error = await rejection(waitForHealth(nobody, { timeoutMs: 30_000, signal: controller.signal }));
    expect(error).toBeInstanceOf(CallAbortedError);
  });

  it("inspectorUrl: /ui/ with token and headers as the UI reads them, and the server serves it", async () => {
    const token = async (): Promise<string> => TOKEN;
    const url = await inspectorUrl({ baseUrl: `${server.baseUrl}/`, token, headers: { "x-team": "h4" } });
    const parsed = new URL(url);
    expect(parsed.pathname).toBe("/ui/");
    expect(parsed.searchParams.get("token")).toBe(TOKEN);
    expect(JSON.parse(parsed.searchParams.get("headers") ?? "null")).toEqual({ "x-team": "h4" });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("/ui/assets/");
    expect(await inspectorUrl({ baseUrl: server.baseUrl })).toBe(`${server.baseUrl}/ui/`);
  });
});

// An injected fetch plays the server's side exactly: a refused connection, then attempts that hang
// until their slot is over (what a loaded machine makes of a closed port now and then).
describe("waitForHealth's account when attempts run out of time", () => {
  const refused = (): Error =>
    new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
  const hang = (request: Request): Promise<Response> =>
    new Promise((_, reject) => {
      if (request.signal.aborted) reject(request.signal.reason);
      request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
    });
  const scripted = (refusals: number): { http: ControlPlaneHttp; calls: () => number } => {
    let calls = 0;
    const fetch = (async (input: RequestInfo | URL): Promise<Response> => {
      calls++;
      if (calls <= refusals) throw refused();
      return hang(input as Request);
    }) as typeof globalThis.fetch;
    const http = new ControlPlaneHttp({ baseUrl: "http://127.0.0.1:9", token: undefined, headers: undefined, fetch });
    return { http, calls: () => calls };
  };

  it("keeps a refusal as the cause when later attempts only ran out of time", async () => {
    const { http, calls } = scripted(1);
    const options = { timeoutMs: 400, initialDelayMs: 10, attemptTimeoutMs: 100 };
    const error = await rejection(waitForHealth(http, options));
    expect(calls()).toBeGreaterThanOrEqual(2);
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as CallTimeoutError).cause).toMatchObject({ name: "SandboxAgentError", kind: "network" });
    const message = (error as Error).message;
    expect(message).toMatch(/not healthy within 400 ms after \d+ attempts \(1 failed, \d+ ran out of time\)/);
    expect(message).toContain("last failure:");
    expect(message).toContain("cannot reach the server");
  });

  it("gives the last attempt's timeout as the cause when every attempt ran out of time", async () => {
    const { http } = scripted(0);
    const error = await rejection(waitForHealth(http, { timeoutMs: 300, initialDelayMs: 10, attemptTimeoutMs: 100 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as CallTimeoutError).cause).toBeInstanceOf(CallTimeoutError);
    expect((error as Error).message).toMatch(/after \d+ attempts \(0 failed, \d+ ran out of time\): last attempt: /);
  });
});

describe("waitForHealth against the v2 contract server", () => {
  let v2: V2ContractServer;

  beforeAll(async () => {
    v2 = await startV2ContractServer();
  });

  afterAll(async () => {
    await v2?.stop();
  });

  it("waits on /v2/health", async () => {
    const result = await waitForHealth(httpFor(v2.baseUrl), { path: "/v2/health", timeoutMs: 5000 });
    expect(result).toMatchObject({ status: 200, attempts: 1 });
  });

  it("counts the v2 server's 410 on /v1/health as up when asked to (for contract detection)", async () => {
    const up = await waitForHealth(httpFor(v2.baseUrl), { upStatuses: [410], timeoutMs: 5000 });
    expect(up).toMatchObject({ status: 410, attempts: 1 });
    const error = await rejection(waitForHealth(httpFor(v2.baseUrl), { timeoutMs: 400, initialDelayMs: 50 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(((error as CallTimeoutError).cause as SandboxAgentHttpError).status).toBe(410);
  });
});
