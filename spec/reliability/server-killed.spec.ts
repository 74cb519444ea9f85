/**
 * The server process dies (SIGKILL) while prompts are pending; then it is restarted on the
 * same port with the same data dirs (but no memory of the old serverIds).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { AcpConnectionClosedError, AcpError, AcpHttpError, AcpNetworkError, type AcpConnectionState, type CloseInfo } from "../../lib/acp-http/index.js";
import { NotConnectedError, SandboxAgentClient, type ConnectionState } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { outcome, report, sessionParams, sleep, textPrompt, v1Client, waitFor } from "./support/helpers.js";

const POLICY = { maxRetries: 2, initialDelayMs: 50, maxDelayMs: 100, jitter: 0 };

let server: SandboxAgentServer;

beforeAll(async () => {
  server = await startSandboxAgent();
});

afterAll(async () => {
  await server?.stop();
});

describe("server killed mid-prompt", () => {
  it("settles every pending request with a typed error within 2 s of retries being exhausted; state goes reconnecting -> closed", async () => {
    const client = v1Client(server.baseUrl, "killed", { reconnect: POLICY });
    const states: AcpConnectionState[] = [];
    client.state$.subscribe((state) => states.push(state));
    await client.initialize();
    const a = await client.newSession(sessionParams());
    const b = await client.newSession(sessionParams());
    const pending = [
      outcome(client.prompt(textPrompt(a.sessionId, "wait"))),
      outcome(client.prompt(textPrompt(b.sessionId, "sleep 10000"))),
      outcome(client.extMethod("_probe/echo", { x: 1 }, {}).then(() => client.prompt(textPrompt(a.sessionId, "wait")))),
    ];
    await sleep(200);
    const killedAt = Date.now();
    server.kill("SIGKILL");
    const closed: CloseInfo = await client.closed;
    const closedAt = Date.now();
    const results = await Promise.all(pending);
    report("server killed", {
      states,
      closeReason: closed.reason,
      msKillToClosed: closedAt - killedAt,
      settleAfterClosedMs: results.map((result) => result.at - closedAt),
      errors: results.map((result) => (result.ok ? "resolved" : (result.error as Error).name)),
    });
    expect(closed.reason).toBe("retries-exhausted");
    expect(closed.error).toBeInstanceOf(AcpConnectionClosedError);
    for (const result of results) {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toBeInstanceOf(AcpError);
      expect(result.at - closedAt).toBeLessThan(2000);
    }
    const tail = states.slice(states.indexOf("open"));
    expect(tail[0]).toBe("open");
    expect(tail).toContain("reconnecting");
    expect(states.at(-1)).toBe("closed");
    expect(states.indexOf("reconnecting")).toBeLessThan(states.indexOf("closed"));
    // After the close every call fails fast, typed.
    await expect(client.prompt(textPrompt(a.sessionId, "chunks 1"))).rejects.toBeInstanceOf(AcpConnectionClosedError);
    await client.disconnect();
    await server.restart();
  }, 60_000);

  it("after a restart on the same port, the protocol client closes the old connection as connection-lost (404 session_not_found)", async () => {
    const client = v1Client(server.baseUrl, "restart", { reconnect: { maxRetries: 20, initialDelayMs: 100, maxDelayMs: 200, jitter: 0 } });
    const states: AcpConnectionState[] = [];
    client.state$.subscribe((state) => states.push(state));
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    const pending = outcome(client.prompt(textPrompt(sessionId, "wait")));
    await sleep(200);
    server.kill("SIGKILL");
    await waitFor(() => states.includes("reconnecting"), 5000, "reconnecting");
    await server.restart();
    const closed = await client.closed;
    const result = await pending;
    report("server restarted (protocol)", { states, closeReason: closed.reason, pending: result.ok ? "resolved" : (result.error as Error).name });
    expect(closed.reason).toBe("connection-lost");
    expect(closed.error).toBeInstanceOf(AcpConnectionClosedError);
    const cause = closed.error?.cause as AcpHttpError;
    expect(cause).toBeInstanceOf(AcpHttpError);
    expect(cause.status).toBe(404);
    expect(cause.problem?.type).toBe("urn:sandbox-agent:error:session_not_found");
    // The prompt's own POST died with the server: typed, not pending.
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toBeInstanceOf(AcpNetworkError);
    expect(states.slice(-2)).toEqual(["reconnecting", "closed"]);
    await expect(client.request("_probe/echo", {})).rejects.toMatchObject({ name: "AcpConnectionClosedError", reason: "connection-lost" });
    await client.disconnect();
  }, 60_000);

  it("after a restart on the same port, the sandbox client reports disconnected and a fresh connect() works", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false, reconnect: { maxRetries: 20, initialDelayMs: 100, maxDelayMs: 200, jitter: 0 } });
    const states: ConnectionState[] = [];
    client.state$.subscribe((state) => states.push(state));
    await client.connect();
    const session = await client.newSession({ cwd: server.home });
    const pending = outcome(client.prompt(session.sessionId, "wait"));
    await sleep(200);
    server.kill("SIGKILL");
    await waitFor(() => states.includes("reconnecting"), 5000, "reconnecting");
    await server.restart();
    const result = await pending;
    await waitFor(() => states.at(-1) === "disconnected", 10_000, "the old connection to close");
    report("server restarted (sandbox)", { states, pending: result.ok ? "resolved" : String(result.error) });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ name: "SandboxAgentError", kind: "network" });
    expect(states).toEqual(["disconnected", "connecting", "connected", "reconnecting", "disconnected"]);
    expect(client.connected).toBe(false);
    await expect(client.prompt(session.sessionId, "chunks 1")).rejects.toBeInstanceOf(NotConnectedError);
    // The same client object connects again: a new agent process behind a new serverId.
    const info = await client.connect();
    expect(info.agent).toBe("mock");
    const fresh = await client.newSession({ cwd: server.home });
    const after = await client.prompt(fresh.sessionId, "chunks 2");
    expect(after.stopReason).toBe("end_turn");
    await client.disconnect();
  }, 60_000);
});
