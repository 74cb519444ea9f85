// A `token` function is the caller's code (a refresh against an auth server): against the real
// 0.4.2 server, one that never settles must not hold a call past its `timeoutMs` or its signal, and
// one that fails is read as kind `token-failed` (its error as the cause) on every route, terminals
// and log streams included, not as an unreachable server.
import WebSocket from "ws";
import type { WebSocketConstructor } from "../../../lib/internal/web-socket.js";
import { CallAbortedError, CallTimeoutError, SandboxAgentClient } from "../../../lib/sandbox/index.js";
import { openEventStream } from "../../../lib/sandbox/server/processes/event-stream-request.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";

const TOKEN = "tok-refresh-7d41";
let server: SandboxAgentServer;
/** What the token function does once the first (good) answer was given. */
let after: "hang" | "throw" = "hang";
let calls = 0;
const refusal = new Error("the auth server refused the refresh");

const token = (): Promise<string> => {
  if (calls++ === 0) return Promise.resolve(TOKEN);
  return after === "hang" ? new Promise<string>(() => undefined) : Promise.reject(refusal);
};

function clientWith(): SandboxAgentClient {
  calls = 0;
  return new SandboxAgentClient({
    baseUrl: server.baseUrl,
    token,
    agent: "mock",
    autoConnect: false,
    serverApi: "v1",
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });
}

beforeAll(async () => {
  server = await startSandboxAgent({ token: TOKEN });
});
afterAll(() => server?.stop());

describe("a token function that never settles", () => {
  beforeAll(() => {
    after = "hang";
  });

  it("lets each call end at its timeoutMs", async () => {
    const client = clientWith();
    await client.health(); // the one good token
    const started = Date.now();
    await expect(client.processes.list({}, { timeoutMs: 300 })).rejects.toBeInstanceOf(CallTimeoutError);
    await expect(client.fs.stat(".", { timeoutMs: 300 })).rejects.toBeInstanceOf(CallTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("lets each call end when its signal aborts", async () => {
    const client = clientWith();
    await client.health();
    const controller = new AbortController();
    const pending = client.config.getMcpConfig({ directory: "/tmp", name: "x" }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CallAbortedError);
  });
});

describe("a token function that fails", () => {
  beforeAll(() => {
    after = "throw";
  });

  it("fails a control-plane call with kind token-failed, its error as the cause", async () => {
    const client = clientWith();
    await client.health();
    const list = client.processes.list();
    await expect(list).rejects.toMatchObject({ name: "SandboxAgentError", kind: "token-failed", cause: refusal });
    await expect(list).rejects.toThrow(/processes\.list failed: the token function failed/);
    await expect(client.fs.stat(".")).rejects.toMatchObject({ kind: "token-failed", cause: refusal });
  });

  it("rejects a terminal's ready with the same kind", async () => {
    const client = clientWith();
    const shell = await client.processes.spawn({ command: "sh", tty: true, interactive: true });
    const terminal = client.processes.terminal(shell.id, { readyTimeoutMs: 5_000 });
    await expect(terminal.ready).rejects.toMatchObject({ name: "SandboxAgentError", kind: "token-failed" });
    calls = 0; // one good token again, to clean up
    await client.processes.kill(shell.id);
  });

  it("fails the request of a log stream with the same kind", async () => {
    const client = clientWith();
    const info = await client.processes.spawn({ command: "sleep", args: ["30"] });
    const settings = { baseUrl: server.baseUrl, token, headers: undefined, fetch: undefined };
    const path = `/v1/processes/${info.id}/logs`;
    const signal = new AbortController().signal;
    const open = openEventStream(settings, "processes.logs$", path, { follow: true }, undefined, signal);
    await expect(open).rejects.toMatchObject({ kind: "token-failed", cause: refusal });
    calls = 0; // one good token again, to clean up
    await client.processes.kill(info.id);
  });
});
