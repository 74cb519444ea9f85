// `debug` shows the wire: each request with its status, the event stream's opens and closes, its
// reconnects; and a clean disconnect reads as one (no "request abandoned"). Against the real 0.4.2
// server, through a loopback proxy that can cut the event stream.
import { SandboxAgentClient } from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { startStreamOutageProxy, type StreamOutageProxy } from "../../support/stream-outage-proxy.js";

interface Line {
  level: "debug" | "warn";
  message: string;
  details: Record<string, unknown> | undefined;
}

/** Resolves once `check` holds; bounded. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("debug: the wire log", () => {
  let server: SandboxAgentServer;
  let proxy: StreamOutageProxy;
  beforeAll(async () => {
    server = await startSandboxAgent();
    proxy = await startStreamOutageProxy(server.baseUrl);
  });
  afterAll(async () => {
    await proxy?.stop();
    await server?.stop();
  });

  it("logs requests with their status, stream opens and closes, reconnects; a clean disconnect is not 'abandoned'", async () => {
    const lines: Line[] = [];
    const logger = {
      debug: (message: string, details?: Record<string, unknown>) => lines.push({ level: "debug", message, details }),
      warn: (message: string, details?: Record<string, unknown>) => lines.push({ level: "warn", message, details }),
    };
    const client = new SandboxAgentClient({ baseUrl: proxy.baseUrl, agent: "mock", debug: logger });
    await client.ready;
    const { sessionId } = await client.newSession();
    await client.prompt(sessionId, "hello");
    const has = (message: string, details: Record<string, unknown> = {}) =>
      lines.some((line) => line.message === message && Object.entries(details).every(([k, v]) => line.details?.[k] === v));

    // The version probe and the control plane, then each ACP request, with the answer's status.
    expect(has("GET /v1/health", { status: 200 })).toBe(true);
    expect(has("POST initialize")).toBe(true);
    expect(has("POST initialize answered", { status: 200 })).toBe(true);
    expect(has("POST session/new")).toBe(true);
    expect(has("POST session/prompt")).toBe(true);
    expect(has("event stream open", { stream: "connection" })).toBe(true);

    // A cut stream: its loss, the reconnect, and the stream open again.
    const opens = () => lines.filter((line) => line.message === "event stream open").length;
    const before = opens();
    proxy.drop();
    await until(() => has("event stream: reconnecting"), "the reconnect line");
    expect(lines.some((line) => /^event stream (failed|closed by the server)$/.test(line.message))).toBe(true);
    proxy.restore();
    await until(() => opens() > before, "the stream open again");

    await client.disconnect();
    expect(has("event stream stopped", { stream: "connection" })).toBe(true);
    expect(lines.some((line) => line.message.startsWith("DELETE (close)"))).toBe(true);
    for (const line of lines) expect(line.message).not.toMatch(/abandoned/);
    expect(lines.filter((line) => line.level === "warn")).toEqual([]);
    // No line carries a credential or a body.
    expect(JSON.stringify(lines)).not.toMatch(/authorization|Bearer/i);
  }, 60_000);
});
