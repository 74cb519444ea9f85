import WebSocket from "ws";
import type { WebSocketConstructor } from "../../../lib/internal/web-socket.js";
import type { Processes } from "../../../lib/sandbox/server/processes/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { processesFor, until } from "./helpers.js";

// A terminal given up while its socket is still being made (React StrictMode mounts and unmounts at once)
// must close that socket when it arrives, not keep it open for nobody.

const made: WebSocket[] = [];
class TrackedWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    made.push(this);
  }
}
const Tracked = TrackedWebSocket as unknown as WebSocketConstructor;

let server: SandboxAgentServer;
let processes: Processes;
let shellId: string;

beforeAll(async () => {
  server = await startSandboxAgent();
  processes = processesFor(server.baseUrl, undefined, { WebSocket: Tracked });
  const args = ["--norc", "--noprofile"];
  shellId = (await processes.spawn({ command: "bash", args, tty: true, interactive: true })).id;
});
afterEach(() => made.splice(0).forEach((socket) => socket.terminate()));
afterAll(async () => {
  await processes?.kill(shellId).catch(() => undefined);
  await server?.stop();
});

/** Waits for the one socket the terminal made to reach CLOSED; an open one left behind fails after 5 s. */
async function socketClosed(): Promise<void> {
  await until(() => made.length === 1 && made[0]?.readyState === WebSocket.CLOSED, 5_000, "the socket to be closed");
}

describe("a terminal given up before its socket exists", () => {
  it("close() right after terminal() closes the socket once it arrives", async () => {
    const terminal = processes.terminal(shellId);
    terminal.close();
    await terminal.closed;
    await expect(terminal.ready).rejects.toMatchObject({ name: "SandboxAgentError", kind: "terminal" });
    await socketClosed();
    expect(String(terminal)).toBe(`Terminal(${shellId}, closed)`);
  });

  it("a signal aborted while connecting closes the socket once it arrives", async () => {
    const controller = new AbortController();
    const terminal = processes.terminal(shellId, { signal: controller.signal });
    controller.abort();
    await terminal.closed;
    await socketClosed();
  });

  it("readyTimeoutMs passing while the token function is pending closes the socket made after it", async () => {
    let release!: (token: string) => void;
    const token = new Promise<string>((resolve) => (release = resolve));
    const slow = processesFor(server.baseUrl, () => token, { WebSocket: Tracked });
    const terminal = slow.terminal(shellId, { readyTimeoutMs: 100 });
    await expect(terminal.ready).rejects.toThrow(/no ready frame within the timeout/);
    await terminal.closed;
    expect(made).toHaveLength(0);
    release("any-token");
    await socketClosed();
  });
});
