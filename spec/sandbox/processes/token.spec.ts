import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import WebSocket from "ws";
import { firstValueFrom } from "rxjs";
import type { WebSocketConstructor } from "../../../lib/internal/web-socket.js";
import { SandboxAgentHttpError } from "../../../lib/sandbox/errors.js";
import type { ProcessLogEntry, Processes, Terminal } from "../../../lib/sandbox/server/processes/index.js";
import { startFaultProxy, type FaultProxy } from "../../support/fault-proxy.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { processesFor, text, until } from "./helpers.js";

const TOKEN = "tok-3b1f9c-secret-value";
let server: SandboxAgentServer;
let proxy: FaultProxy;
let authed: Processes;
const errors: unknown[] = [];

/** A standard-style WebSocket (two arguments, no headers), as in a browser: the token must go in the URL. */
class BrowserStyleWebSocket extends WebSocket {
  static urls: string[] = [];
  constructor(url: string, protocols?: string | string[]) {
    BrowserStyleWebSocket.urls.push(url);
    super(url, protocols);
  }
}
Object.defineProperty(BrowserStyleWebSocket.prototype, "terminate", { value: undefined });

beforeAll(async () => {
  server = await startSandboxAgent({ token: TOKEN });
  proxy = await startFaultProxy(server.baseUrl);
  authed = processesFor(server.baseUrl, TOKEN);
});
afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(() => new Error("expected a failure"), (e: unknown) => e);
  errors.push(error);
  return error;
}

const bash = (p: Processes) => p.spawn({ command: "bash", args: ["--norc", "--noprofile"], tty: true, interactive: true });

async function stty(terminal: Terminal, chunks: Uint8Array[]): Promise<void> {
  terminal.output$.subscribe((bytes) => chunks.push(bytes));
  await terminal.ready;
  terminal.resize(77, 11);
  terminal.send("stty size\n");
  await until(() => text(chunks).includes("11 77"), 10_000, "stty output");
}

describe("the process API on a server started with --token", () => {
  it("works with the token: run, spawn, input, logs", async () => {
    expect((await authed.run({ command: "echo", args: ["ok"] })).stdout).toBe("ok\n");
    const info = await authed.spawn({ command: "cat", interactive: true });
    await authed.input(info.id, "typed\n");
    await until(async () => (await authed.logs(info.id)).some((e) => e.text === "typed\n"), 5_000, "logged input");
    await authed.kill(info.id);
  });

  it("logs$ follows with the token across drops", async () => {
    const viaProxy = processesFor(proxy.baseUrl, TOKEN);
    const info = await authed.spawn({ command: "sh", args: ["-c", 'i=0; while true; do i=$((i+1)); echo "n$i"; sleep 0.01; done'] });
    const received: ProcessLogEntry[] = [];
    const done = new Promise<void>((resolve, reject) =>
      viaProxy.logs$(info.id, { pollIntervalMs: 100, reconnect: { initialDelayMs: 10 } }).subscribe({
        next: (e) => received.push(e),
        error: reject,
        complete: resolve,
      }),
    );
    for (let cuts = 0; cuts < 5; ) {
      await until(() => proxy.openStreams() > 0, 5_000, "the stream to be open");
      const before = received.length;
      await until(() => received.length > before, 5_000, "an entry after reconnecting");
      cuts += proxy.cutStreams();
    }
    await authed.stop(info.id, { waitMs: 2_000 });
    await done;
    const lines = text(received.map((e) => e.data)).trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(5);
    expect(lines).toEqual(lines.map((_, i) => `n${i + 1}`));
  });

  it("terminal with ws sends the token in the Authorization header", async () => {
    const info = await bash(authed);
    const terminal = authed.terminal(info.id);
    await stty(terminal, []);
    expect(String(terminal)).not.toContain(TOKEN);
    terminal.close();
    await authed.kill(info.id);
  });

  it("terminal with a standard (headerless) WebSocket sends ?access_token=", async () => {
    const browserLike = processesFor(server.baseUrl, TOKEN, { WebSocket: BrowserStyleWebSocket as unknown as WebSocketConstructor });
    const info = await bash(authed);
    const terminal = browserLike.terminal(info.id);
    await stty(terminal, []);
    expect(BrowserStyleWebSocket.urls.at(-1)).toMatch(/\?access_token=tok-3b1f9c-secret-value$/);
    terminal.close();
    await authed.kill(info.id);
  });

  it("the server refuses ?token= on the terminal socket (only access_token is accepted)", async () => {
    const info = await bash(authed);
    const url = authed.terminalUrl(info.id).replace("/terminal/ws", `/terminal/ws?token=${TOKEN}`);
    const status = await new Promise<number>((resolve) => {
      const socket = new WebSocket(url);
      socket.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      socket.on("open", () => resolve(101));
      socket.on("error", () => undefined);
    });
    expect(status).toBe(401);
    await authed.kill(info.id);
  });

  it("fails typed without the token, everywhere", async () => {
    const anonymous = processesFor(server.baseUrl);
    const wrong = processesFor(server.baseUrl, "not-the-token");
    const info = await bash(authed);
    for (const p of [anonymous, wrong]) {
      for (const call of [
        () => p.run({ command: "true" }),
        () => p.spawn({ command: "true" }),
        () => p.list(),
        () => p.get(info.id),
        () => p.input(info.id, "x"),
        () => p.logs(info.id),
        () => p.getConfig(),
        () => firstValueFrom(p.logs$(info.id)),
        () => firstValueFrom(p.status$(info.id)),
        () => p.terminal(info.id).ready,
      ]) {
        const error = await failure(call());
        expect(error).toBeInstanceOf(SandboxAgentHttpError);
        // No token at all is the token's absence; a wrong one is refused as invalid.
        expect(error).toMatchObject({ status: 401, kind: p === anonymous ? "token-missing" : "unauthorized" });
      }
    }
    const browserLike = processesFor(server.baseUrl, "not-the-token", { WebSocket: BrowserStyleWebSocket as unknown as WebSocketConstructor });
    expect(await failure(browserLike.terminal(info.id).ready)).toMatchObject({ status: 401 });
    await authed.kill(info.id);
  });

  it("the token appears in no error (message, stack, inspect, JSON) and no server log line", async () => {
    errors.push(await failure(authed.get("proc_nope")), await failure(authed.terminal("proc_nope").ready));
    expect(errors.length).toBeGreaterThan(20);
    for (const error of errors) {
      const e = error as Error;
      for (const rendering of [e.message, String(e), e.stack ?? "", inspect(e, { depth: 8 }), JSON.stringify(e)]) {
        expect(rendering).not.toContain(TOKEN);
      }
    }
    // The server logs request URIs with their query: the browser-style `?access_token=` lands in its log
    // (a server fact, and why Node sends the header), as does the `?token=` probe above. Nothing this client
    // sent any other way shows up.
    const leaking = readFileSync(server.logFile(), "utf8").split("\n").filter((line) => line.includes(TOKEN));
    expect(leaking.length).toBeGreaterThan(0);
    expect(leaking.filter((line) => !line.includes(`access_token=${TOKEN}`) && !line.includes(`?token=${TOKEN}`))).toEqual([]);
  });
});
