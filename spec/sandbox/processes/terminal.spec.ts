import type { AddressInfo } from "node:net";
import { firstValueFrom, lastValueFrom, toArray } from "rxjs";
import { WebSocketServer } from "ws";
import {  } from "../../../lib/sandbox/errors.js";
import { WebSocketUnavailableError } from "../../../lib/internal/web-socket.js";
import type { Processes, Terminal } from "../../../lib/sandbox/server/processes/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { processesFor, sleep, text, until, untilExited } from "./helpers.js";

let server: SandboxAgentServer;
let processes: Processes;
const opened: Terminal[] = [];

beforeAll(async () => {
  server = await startSandboxAgent();
  processes = processesFor(server.baseUrl);
});
afterEach(() => opened.splice(0).forEach((t) => t.close()));
afterAll(() => server?.stop());

function attach(id: string, options = {}): { terminal: Terminal; chunks: Uint8Array[] } {
  const terminal = processes.terminal(id, options);
  opened.push(terminal);
  const chunks: Uint8Array[] = [];
  terminal.output$.subscribe((bytes) => chunks.push(bytes));
  return { terminal, chunks };
}

const bash = () => processes.spawn({ command: "bash", args: ["--norc", "--noprofile"], tty: true, interactive: true, env: { PS1: "$ " } });

describe("terminal against the real server", () => {
  it("resize(123, 45) then `stty size` prints 45 123; exit resolves with the code and output$ completes", async () => {
    const info = await bash();
    const { terminal, chunks } = attach(info.id);
    await terminal.ready;
    terminal.resize(123, 45);
    terminal.send("stty size\n");
    await until(() => text(chunks).includes("45 123"), 10_000, "stty size output");
    const completed = lastValueFrom(terminal.output$, { defaultValue: undefined });
    terminal.send(new TextEncoder().encode("exit 4\n"));
    await expect(terminal.exit).resolves.toEqual({ exitCode: 4 });
    await completed;
    await terminal.closed;
    expect((await untilExited(() => processes.get(info.id))).exitCode).toBe(4);
  });

  it("initial cols/rows are applied once ready", async () => {
    const info = await bash();
    const { terminal, chunks } = attach(info.id, { cols: 90, rows: 20 });
    await terminal.ready;
    terminal.send("stty size\n");
    await until(() => text(chunks).includes("20 90"), 10_000, "stty size output");
    await processes.kill(info.id);
    await expect(terminal.exit).resolves.toEqual({ exitCode: null });
  });

  it("input sent before the socket is open is queued, not lost", async () => {
    const info = await bash();
    const { terminal, chunks } = attach(info.id);
    terminal.send("echo queued-$((40+2))\n");
    await until(() => text(chunks).includes("queued-42"), 10_000, "the queued command's output");
    await processes.kill(info.id);
  });

  it("connecting to an exited process gives ready, then exit", async () => {
    const info = await processes.spawn({ command: "sh", args: ["-c", "exit 3"], tty: true });
    await untilExited(() => processes.get(info.id));
    const { terminal } = attach(info.id);
    await terminal.ready;
    await expect(terminal.exit).resolves.toEqual({ exitCode: 3 });
    await terminal.closed;
  });

  it("two terminals on one process both get the output", async () => {
    const info = await bash();
    const a = attach(info.id);
    const b = attach(info.id);
    await Promise.all([a.terminal.ready, b.terminal.ready]);
    a.terminal.send("echo both-$((6*7))\n");
    await until(() => text(a.chunks).includes("both-42") && text(b.chunks).includes("both-42"), 10_000, "output on both");
    await processes.kill(info.id);
  });

  it("earlier output is not replayed to a new terminal", async () => {
    const info = await processes.spawn({ command: "sh", args: ["-c", "echo early-bird; sleep 30"], tty: true });
    await until(async () => (await processes.logs(info.id, { stream: "pty" })).some((e) => e.text.includes("early-bird")), 5_000, "early output");
    const { terminal, chunks } = attach(info.id);
    await terminal.ready;
    await sleep(300);
    expect(text(chunks)).not.toContain("early-bird");
    await processes.kill(info.id);
  });

  it("close() detaches: the socket closes, exit rejects, the process keeps running", async () => {
    const info = await bash();
    const { terminal } = attach(info.id);
    await terminal.ready;
    const done = lastValueFrom(terminal.output$.pipe(toArray()));
    terminal.close();
    await terminal.closed;
    await done;
    await expect(terminal.exit).rejects.toMatchObject({ name: "SandboxAgentError", kind: "terminal" });
    expect(() => terminal.send("x")).toThrow(expect.objectContaining({ name: "SandboxAgentError", kind: "terminal" }));
    expect((await processes.get(info.id)).status).toBe("running");
    await processes.kill(info.id);
  });

  it("server error frames arrive on errors$ and the socket stays usable", async () => {
    const info = await bash();
    const { terminal, chunks } = attach(info.id);
    await terminal.ready;
    const error = firstValueFrom(terminal.errors$);
    terminal.resize(-1, 70_000);
    // The server's error frame (kind `terminal-server`, not a local failure), naming the process.
    await expect(error).resolves.toMatchObject({ name: "SandboxAgentError", kind: "terminal-server" });
    expect((await error).message).toMatch(new RegExp(`^terminal ${info.id}: `));
    terminal.send("echo still-$((1+1))\n");
    await until(() => text(chunks).includes("still-2"), 10_000, "output after the error frame");
    await processes.kill(info.id);
  });

  it("unknown process → a process-not-found NotFoundError; non-tty process → a 409 of kind not-a-terminal", async () => {
    const unknown = attach("proc_nope").terminal;
    await expect(unknown.ready).rejects.toMatchObject({ name: "NotFoundError", kind: "process-not-found" });
    await expect(unknown.exit).rejects.toMatchObject({ name: "NotFoundError", kind: "process-not-found" });
    await unknown.closed;
    const pipe = await processes.spawn({ command: "sleep", args: ["30"] });
    await expect(attach(pipe.id).terminal.ready).rejects.toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "not-a-terminal" });
    await processes.kill(pipe.id);
  });

  it("without a WebSocket implementation (Node 20, none injected) ready rejects with kind websocket-unavailable", async () => {
    const bare = processesFor(server.baseUrl, undefined, {});
    const terminal = bare.terminal("proc_1");
    await expect(terminal.ready).rejects.toMatchObject({ name: "SandboxAgentError", kind: "websocket-unavailable" });
    await expect(terminal.ready).rejects.toThrow(/install the "ws" package/i);
    await expect(terminal.ready).rejects.toHaveProperty("cause", expect.any(WebSocketUnavailableError));
    expect(String(terminal)).toBe("Terminal(proc_1, closed)");
  });

  it("aborting the signal detaches the terminal", async () => {
    const info = await bash();
    const controller = new AbortController();
    const { terminal } = attach(info.id, { signal: controller.signal });
    await terminal.ready;
    controller.abort();
    await terminal.closed;
    await expect(terminal.exit).rejects.toMatchObject({ name: "SandboxAgentError", kind: "terminal" });
    expect((await processes.get(info.id)).status).toBe("running");
    await processes.kill(info.id);
  });
});

describe("terminal against a socket that never says ready", () => {
  it("ready rejects after readyTimeoutMs and the socket is closed", async () => {
    const silent = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise((resolve) => silent.once("listening", resolve));
    const closed = new Promise((resolve) => silent.once("connection", (socket) => socket.once("close", resolve)));
    try {
      const port = (silent.address() as AddressInfo).port;
      const terminal = processesFor(`http://127.0.0.1:${port}`).terminal("proc_1", { readyTimeoutMs: 300 });
      await expect(terminal.ready).rejects.toThrow(/no ready frame within the timeout/);
      await terminal.closed;
      await closed;
    } finally {
      silent.close();
    }
  });
});
