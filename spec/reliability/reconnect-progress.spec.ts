/**
 * The server dies (SIGKILL) mid-turn: while the client keeps trying, each reconnect attempt is on
 * `reconnecting$` (attempt n of maxAttempts, the delay before it, why), and once the policy's last
 * attempt failed the connection ends as `retries-exhausted`, within the policy's bound.
 */
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { firstValueFrom, timeout } from "rxjs";
import { AcpNetworkError, type AcpConnectionState, type AcpReconnectAttempt } from "../../lib/acp-http/index.js";
import {
  SandboxAgentClient,
  type ConnectionState,
  type DisconnectInfo,
  type ReconnectAttempt,
} from "../../lib/sandbox/index.js";
import { recordingFetch, type RecordingFetch } from "../sandbox/integration/servers.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { outcome, report, sessionParams, textPrompt, v1Client, waitFor } from "./support/helpers.js";

// Three attempts, 100 + 200 + 400 ms apart: given up about 0.7 s after the drop.
const POLICY = { maxRetries: 3, initialDelayMs: 100, maxDelayMs: 400, factor: 2, jitter: 0 };
const POLICY_DELAYS_MS = 700;
// The bound the assertions allow: the policy's delays plus a loaded machine's refused connects.
const BOUND_MS = POLICY_DELAYS_MS + 10_000;

let server: SandboxAgentServer;

/** The event stream's GET and the prompt's POST have both gone out: the turn is under way. */
const midTurn = (recorder: RecordingFetch): Promise<void> =>
  waitFor(
    () => recorder.requests.some((r) => r.method === "GET") && recorder.rpcMethods().includes("session/prompt"),
    10_000,
    "the stream and the prompt to be under way",
  );

beforeEach(async () => {
  server = await startSandboxAgent();
});

afterEach(async () => {
  await server?.stop();
});

describe("reconnect progress after the server is killed mid-turn", () => {
  it("the sandbox client reports each attempt on reconnecting$, then retries-exhausted on disconnected$", async () => {
    const recorder = recordingFetch();
    const options = { baseUrl: server.baseUrl, agent: "mock", reconnect: POLICY, fetch: recorder.fetch };
    const client = new SandboxAgentClient(options);
    const states: ConnectionState[] = [];
    const attempts: ReconnectAttempt[] = [];
    client.state$.subscribe((state) => states.push(state));
    client.reconnecting$.subscribe((attempt) => attempts.push(attempt));
    await client.ready;
    const { sessionId } = await client.newSession({ cwd: server.home });
    const turn = outcome(client.prompt(sessionId, "wait"));
    const ended = firstValueFrom(client.disconnected$.pipe(timeout(BOUND_MS + 20_000)));
    await midTurn(recorder);
    const killedAt = Date.now();
    server.kill("SIGKILL");
    const info: DisconnectInfo = await ended;
    const elapsed = Date.now() - killedAt;
    const result = await turn;
    report("sandbox client: server killed, reconnect progress", {
      states,
      attempts: attempts.map(({ attempt, maxAttempts, nextDelayMs: ms }) => `${attempt}/${maxAttempts} in ${ms} ms`),
      msKillToRetriesExhausted: elapsed,
    });
    expect(info.reason).toBe("retries-exhausted");
    expect(attempts.map(({ attempt, maxAttempts }) => [attempt, maxAttempts])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(attempts.map((attempt) => attempt.nextDelayMs)).toEqual([100, 200, 400]);
    // The first attempt follows the stream's drop; the later ones a refused connect.
    for (const attempt of attempts.slice(1)) expect(attempt.cause).toMatchObject({ name: "SandboxAgentError", kind: "network" });
    expect(elapsed).toBeGreaterThanOrEqual(POLICY_DELAYS_MS);
    expect(elapsed).toBeLessThan(BOUND_MS);
    expect(states.slice(-3)).toEqual(["connected", "reconnecting", "disconnected"]);
    expect(result.ok).toBe(false);
    await client.disconnect();
  }, 60_000);

  it("the protocol client reports each attempt on reconnecting$, then closes as retries-exhausted", async () => {
    const client = v1Client(server.baseUrl, "progress", { reconnect: POLICY });
    const states: AcpConnectionState[] = [];
    const attempts: AcpReconnectAttempt[] = [];
    client.state$.subscribe((state) => states.push(state));
    let completed = false;
    client.reconnecting$.subscribe({ next: (attempt) => attempts.push(attempt), complete: () => (completed = true) });
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    const turn = outcome(client.prompt(textPrompt(sessionId, "wait")));
    await waitFor(() => states.includes("open"), 5000, "the event stream to open");
    const killedAt = Date.now();
    server.kill("SIGKILL");
    const closed = await client.closed;
    const elapsed = Date.now() - killedAt;
    await turn;
    expect(closed.reason).toBe("retries-exhausted");
    expect(attempts.map(({ attempt, maxAttempts, kind }) => [attempt, maxAttempts, kind])).toEqual([
      [1, 3, "stream"],
      [2, 3, "stream"],
      [3, 3, "stream"],
    ]);
    expect(attempts.map((attempt) => attempt.nextDelayMs)).toEqual([100, 200, 400]);
    expect(attempts.slice(1).every((attempt) => attempt.cause instanceof AcpNetworkError)).toBe(true);
    // Every attempt is reported while the state says so.
    expect(states.slice(-2)).toEqual(["reconnecting", "closed"]);
    expect(completed).toBe(true);
    expect(elapsed).toBeLessThan(BOUND_MS);
  }, 60_000);

  it("with reconnect: false, the first drop ends the connection at once, with no attempt", async () => {
    const recorder = recordingFetch();
    const options = { baseUrl: server.baseUrl, agent: "mock", reconnect: false as const, fetch: recorder.fetch };
    const client = new SandboxAgentClient(options);
    const attempts: ReconnectAttempt[] = [];
    client.reconnecting$.subscribe((attempt) => attempts.push(attempt));
    await client.ready;
    const { sessionId } = await client.newSession({ cwd: server.home });
    const turn = outcome(client.prompt(sessionId, "wait"));
    const ended = firstValueFrom(client.disconnected$.pipe(timeout(20_000)));
    await midTurn(recorder);
    server.kill("SIGKILL");
    const info = await ended;
    await turn;
    expect(info.reason).toBe("retries-exhausted");
    expect(attempts).toEqual([]);
    await client.disconnect();
  }, 60_000);
});
