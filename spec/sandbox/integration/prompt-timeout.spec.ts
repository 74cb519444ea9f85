/**
 * A prompt whose `timeoutMs` runs out is given up as an aborted one is: the client sends
 * `session/cancel` so the agent stops the turn, the call still fails as `CallTimeoutError`, and
 * the session's next prompt runs at once.
 */
import { jest } from "@jest/globals";
import { readFileSync } from "node:fs";
import { CallTimeoutError, SandboxAgentClient } from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { recordingFetch, serverWithClients, sleep, v2Factory } from "./servers.js";

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** The `session/cancel` bodies a recording fetch sent, with the status the server gave each. */
function cancelsSent(recorder: ReturnType<typeof recordingFetch>): string[] {
  return recorder.requests
    .filter((request) => request.method === "POST" && request.body?.includes('"session/cancel"'))
    .map((request) => (JSON.parse(request.body as string) as { params: { sessionId: string } }).params.sessionId);
}

describe("prompt() past its timeoutMs, against the real sandbox-agent 0.4.2", () => {
  let server: SandboxAgentServer;
  let client: SandboxAgentClient | undefined;

  beforeAll(async () => {
    // The scripted agent's trace reaches the server's log: what the agent itself received.
    server = await startSandboxAgent({ env: { SCRIPTED_AGENT_TRACE: "1" } });
  });
  afterEach(async () => {
    await client?.disconnect();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("cancels the turn on the agent, fails with CallTimeoutError, and the next prompt runs", async () => {
    const recorder = recordingFetch();
    client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", fetch: recorder.fetch });
    await client.ready;
    const { sessionId } = await client.newSession({ cwd: server.home });
    // `wait` holds the turn until the agent gets session/cancel for it.
    const timedOut = client.prompt(sessionId, "wait", { timeoutMs: 300 });
    await expect(timedOut).rejects.toBeInstanceOf(CallTimeoutError);
    await expect(timedOut).rejects.toThrow(/^prompt timed out after \d+ ms$/);
    await waitFor(() => cancelsSent(recorder).includes(sessionId), 5000, "session/cancel to be sent");
    const agentSawCancel = (): boolean =>
      readFileSync(server.logFile(), "utf8")
        .split("\n")
        .some((line) => line.includes("scripted-agent recv") && line.includes("session/cancel"));
    await waitFor(agentSawCancel, 5000, "the agent to receive session/cancel");
    expect((await client.prompt(sessionId, "chunks 2", { timeoutMs: 15_000 })).stopReason).toBe("end_turn");
  }, 60_000);

  it("sends no session/cancel for a prompt that ends within its timeoutMs", async () => {
    const recorder = recordingFetch();
    client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", fetch: recorder.fetch });
    await client.ready;
    const { sessionId } = await client.newSession({ cwd: server.home });
    expect((await client.prompt(sessionId, "chunks 1", { timeoutMs: 15_000 })).stopReason).toBe("end_turn");
    await sleep(100);
    expect(cancelsSent(recorder)).toEqual([]);
  }, 60_000);

  it("arms one timer for a prompt's timeoutMs, however many parts the call goes through", async () => {
    client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock" });
    await client.ready;
    const { sessionId } = await client.newSession({ cwd: server.home });
    // A deadline no other timer of the client uses: the timers armed for it are this call's.
    const timeoutMs = 987_654;
    const armed = jest.spyOn(globalThis, "setTimeout");
    try {
      expect((await client.prompt(sessionId, "chunks 1", { timeoutMs })).stopReason).toBe("end_turn");
      const deadlines = armed.mock.calls.filter(([, ms]) => typeof ms === "number" && ms > timeoutMs - 60_000);
      expect(deadlines.map(([, ms]) => ms)).toEqual([timeoutMs]);
    } finally {
      armed.mockRestore();
    }
  }, 60_000);
});

describe("prompt() past its timeoutMs, against the v2 contract server", () => {
  const { client } = serverWithClients(v2Factory);

  it("sends session/cancel for the session, which the agent acknowledges; the call is a CallTimeoutError", async () => {
    const recorder = recordingFetch();
    const c = client({ fetch: recorder.fetch });
    await c.ready;
    const { sessionId } = await c.newSession();
    // The mock answers its `session/cancel` with a "cancelled" chunk on the session.
    const acknowledged = new Promise<void>((resolve) => {
      const sub = c.session(sessionId).events$.subscribe((event) => {
        if (event.kind !== "update" || event.update.sessionUpdate !== "agent_message_chunk") return;
        const content = event.update.content as { text?: string };
        if (content.text === "cancelled") resolve(sub.unsubscribe());
      });
    });
    // The mock streams one chunk per word, 20 ms apart: 200 words outlast the deadline.
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
    await expect(c.prompt(sessionId, words, { timeoutMs: 300 })).rejects.toBeInstanceOf(CallTimeoutError);
    await waitFor(() => cancelsSent(recorder).includes(sessionId), 5000, "session/cancel to be sent");
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the agent did not acknowledge session/cancel")), 5000);
    });
    await Promise.race([acknowledged, late]).finally(() => clearTimeout(timer));
  });
});
