/** The agent process behind a connection crashes or exits in the middle of a prompt. */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { SandboxAgentClient, type SandboxEvent, type SessionEnded } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { outcome, report, waitFor } from "./support/helpers.js";

let server: SandboxAgentServer;

beforeAll(async () => {
  server = await startSandboxAgent();
});

afterAll(async () => {
  await server?.stop();
});

const cases: { verb: string; exitCode: number | null }[] = [
  { verb: "crash", exitCode: null },
  { verb: "exit 3", exitCode: 3 },
  { verb: "exit 0", exitCode: 0 },
];

describe("agent process crash / exit mid-prompt", () => {
  it.each(cases)("`$verb`: the prompt rejects with an agent_exited error and sessionEnded$ emits for every open session", async ({ verb, exitCode }) => {
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false });
    const ended: SessionEnded[] = [];
    const events: SandboxEvent[] = [];
    client.sessionEnded$.subscribe((event) => ended.push(event));
    client.events$.subscribe((event) => events.push(event));
    await client.connect();
    const a = await client.newSession({ cwd: server.home });
    const b = await client.newSession({ cwd: server.home });
    const sessionEvents: SandboxEvent[] = [];
    let completed = false;
    client.session(b.sessionId).events$.subscribe({ next: (event) => sessionEvents.push(event), complete: () => (completed = true) });
    const waiting = outcome(client.prompt(b.sessionId, "wait"));
    const started = Date.now();
    const result = await outcome(client.prompt(a.sessionId, verb));
    const other = await waiting;
    await waitFor(() => ended.length >= 2, 5000, "both sessions to end");
    report(`agent ${verb}`, { ms: result.at - started, error: result.ok ? "resolved" : String(result.error), ended });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ name: "SandboxAgentError", kind: "agent-exited" });
      // The exit code is in the message ("killed by a signal" when there is none).
      const code = exitCode === null ? /killed by a signal/ : new RegExp(`exited with code ${exitCode}\\b`);
      expect((result.error as Error).message).toMatch(code);
    }
    // A prompt on another session of the same agent fails the same way, instead of hanging.
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error).toMatchObject({ name: "SandboxAgentError", kind: "agent-exited" });
    // Well before the server's own 120 s request timeout.
    expect(result.at - started).toBeLessThan(5000);
    expect(events.filter((event) => event.kind === "agent-exited")).toEqual([{ kind: "agent-exited", exitCode, success: exitCode === 0 }]);
    expect(ended.map((event) => event.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());
    for (const event of ended) {
      expect(event.terminatedBy).toBe("agent");
      expect(event.exitCode).toBe(exitCode);
      expect(event.reason).toBe(exitCode === 0 ? "completed" : "error");
    }
    expect(completed).toBe(true);
    expect(sessionEvents.at(-1)).toMatchObject({ kind: "session-ended", sessionId: b.sessionId });
    // Later calls fail fast, typed.
    await expect(client.prompt(a.sessionId, "chunks 1")).rejects.toMatchObject({ name: "SandboxAgentError", kind: "agent-exited" });
    await client.disconnect();
  }, 30_000);
});
