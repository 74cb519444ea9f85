// Checks the test harness itself (real sandbox-agent server + scripted agent) with plain fetch, so
// that failures in SDK tests can be told apart from failures of the harness.
import { existsSync } from "node:fs";
import { startSandboxAgent } from "../support/sandbox-agent-server.js";
import type { SandboxAgentServer } from "../support/sandbox-agent-server.js";

interface RpcMessage {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

interface SseEvent {
  id: string | undefined;
  message: RpcMessage;
}

const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json" };

async function post(server: SandboxAgentServer, path: string, body: RpcMessage): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: server.token === undefined ? JSON_HEADERS : { ...JSON_HEADERS, Authorization: `Bearer ${server.token}` },
    body: JSON.stringify({ jsonrpc: "2.0", ...body }),
    signal: AbortSignal.timeout(5000),
  });
}

async function rpc(server: SandboxAgentServer, path: string, body: RpcMessage): Promise<RpcMessage> {
  const response = await post(server, path, body);
  expect(response.status).toBe(200);
  return (await response.json()) as RpcMessage;
}

/** Parses one SSE block (`event:`/`id:`/`data:` lines); comments such as heartbeats give null. */
function parseBlock(block: string): SseEvent | null {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("id:")) id = line.slice(3).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return data.length > 0 ? { id, message: JSON.parse(data.join("\n")) as RpcMessage } : null;
}

/**
 * Reads `GET /v1/acp/{serverId}` (from the start of the replay buffer) until `last` matches an
 * event, and returns the events up to and including it. `onEvent` sees each event as it arrives.
 */
async function readStream(
  server: SandboxAgentServer,
  serverId: string,
  last: (message: RpcMessage) => boolean,
  onEvent: (message: RpcMessage) => void = () => undefined,
  timeoutMs = 5000,
): Promise<SseEvent[]> {
  const response = await fetch(`${server.baseUrl}/v1/acp/${serverId}`, {
    headers: { Accept: "text/event-stream" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const body = response.body;
  if (body === null) throw new Error("SSE response without body");
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`SSE stream ended after ${events.length} events`);
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const event = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event === null) continue;
        events.push(event);
        onEvent(event.message);
        if (last(event.message)) return events;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function expectGone(pid: number): void {
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("sandbox-agent test server", () => {
  let server: SandboxAgentServer;

  beforeAll(async () => {
    server = await startSandboxAgent();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("answers GET /v1/health", async () => {
    const response = await fetch(`${server.baseUrl}/v1/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    expect(server.token).toBeUndefined();
    expect(server.baseUrl).toBe(`http://127.0.0.1:${server.port}`);
    expect(existsSync(server.logFile())).toBe(true);
  });

  it("runs the scripted agent as the mock agent", async () => {
    const answer = await rpc(server, "/v1/acp/h1?agent=mock", {
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {}, _meta: { probe: "harness" } },
    });
    expect(answer).toMatchObject({
      id: 1,
      result: {
        protocolVersion: 1,
        agentInfo: { name: "scripted-agent" },
        _meta: { seenClientMeta: { probe: "harness" } },
      },
    });
  });

  it("puts a copy of the response on the SSE stream", async () => {
    await rpc(server, "/v1/acp/h2?agent=mock", { id: "init-1", method: "initialize", params: { protocolVersion: 1 } });
    const events = await readStream(server, "h2", (m) => m.id === "init-1");
    const copy = events.at(-1);
    expect(copy?.id).toBe("1");
    expect(copy?.message).toMatchObject({ id: "init-1", result: { agentInfo: { name: "scripted-agent" } } });
  });

  it("streams the session/update notifications of a prompt before its result", async () => {
    const created = await rpc(server, "/v1/acp/h3?agent=mock", {
      id: 1,
      method: "session/new",
      params: { cwd: server.home, mcpServers: [] },
    });
    const sessionId = (created.result as { sessionId: string }).sessionId;
    expect(sessionId).toBe("sess-1");

    const streamed = readStream(server, "h3", (m) => m.id === 2);
    const answer = await rpc(server, "/v1/acp/h3", {
      id: 2,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "chunks 5" }] },
    });
    expect(answer.result).toMatchObject({ stopReason: "end_turn" });

    const updates = (await streamed)
      .map((e) => e.message)
      .filter((m) => m.method === "session/update")
      .map((m) => m.params as { sessionId: string; update: { content: { text: string } }; _meta: { seq: number } });
    expect(updates.map((u) => u.update.content.text)).toEqual(["c0", "c1", "c2", "c3", "c4"]);
    expect(updates.map((u) => u._meta.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(updates.every((u) => u.sessionId === sessionId)).toBe(true);
  });

  it("relays agent->client requests and their answers", async () => {
    const created = await rpc(server, "/v1/acp/h4?agent=mock", {
      id: 1,
      method: "session/new",
      params: { cwd: server.home, mcpServers: [] },
    });
    const sessionId = (created.result as { sessionId: string }).sessionId;
    const answers: Promise<Response>[] = [];
    const streamed = readStream(
      server,
      "h4",
      (m) => m.method === "_probe/pong",
      (m) => {
        if (m.method !== "session/request_permission") return;
        const outcome = { outcome: { outcome: "selected", optionId: "allow" } };
        answers.push(post(server, "/v1/acp/h4", { id: m.id, result: outcome }));
      },
    );
    const answer = await rpc(server, "/v1/acp/h4", {
      id: 2,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "permission" }] },
    });
    expect(answer.result).toMatchObject({
      stopReason: "end_turn",
      _meta: { permissionAnswer: { outcome: { outcome: "selected", optionId: "allow" } } },
    });
    expect(answers).toHaveLength(1);
    expect((await answers[0])?.status).toBe(202);

    const ping = await post(server, "/v1/acp/h4", { method: "_probe/ping", params: { n: 7 } });
    expect(ping.status).toBe(202);
    const events = await streamed;
    expect(events.at(-1)?.message).toEqual({ jsonrpc: "2.0", method: "_probe/pong", params: { n: 7 } });
  });
});

describe("sandbox-agent test server with a token", () => {
  let server: SandboxAgentServer;

  beforeAll(async () => {
    server = await startSandboxAgent({ token: "harness-secret" });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("rejects requests without the bearer token", async () => {
    expect(server.token).toBe("harness-secret");
    const anonymous = await fetch(`${server.baseUrl}/v1/health`);
    expect(anonymous.status).toBe(401);
    await anonymous.arrayBuffer();
    const authorised = await fetch(`${server.baseUrl}/v1/health`, {
      headers: { Authorization: "Bearer harness-secret" },
    });
    expect(authorised.status).toBe(200);
    await authorised.arrayBuffer();
  });
});

describe("sandbox-agent test server lifecycle", () => {
  it("restarts on the same port and leaves no process behind after stop()", async () => {
    const server = await startSandboxAgent();
    try {
      const { port, dataHome, home } = server;
      const firstPid = server.pid;
      const env1 = await rpc(server, "/v1/acp/life?agent=mock", { id: 1, method: "_probe/env" });
      const firstAgent = (env1.result as { pid: number; ppid: number; cwd: string });
      expect(firstAgent.ppid).toBe(firstPid);
      expect(firstAgent.cwd).toBe(home);
      expect(isAlive(firstAgent.pid)).toBe(true);

      await server.restart();
      expect(server.port).toBe(port);
      expect(server.dataHome).toBe(dataHome);
      expect(server.pid).not.toBe(firstPid);
      expectGone(firstPid);
      expectGone(firstAgent.pid);
      const health = await fetch(`${server.baseUrl}/v1/health`);
      expect(health.status).toBe(200);
      await health.arrayBuffer();

      const env2 = await rpc(server, "/v1/acp/life?agent=mock", { id: 1, method: "_probe/env" });
      const secondAgent = (env2.result as { pid: number }).pid;
      const secondPid = server.pid;
      expect(isAlive(secondAgent)).toBe(true);

      await server.stop();
      await server.stop();
      expectGone(secondPid);
      expectGone(secondAgent);
      expect(existsSync(dataHome)).toBe(false);
      expect(existsSync(home)).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
