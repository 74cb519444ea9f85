import { silentLogger } from "../../../lib/internal/logger.js";
import { normalizeReconnectPolicy, type AcpReconnectAttempt } from "../../../lib/internal/backoff.js";
import { ACP_DEFAULTS } from "../../../lib/acp-http/defaults.js";
import { SessionLedger, type RecoverOptions } from "../../../lib/acp-http/recovery.js";

const INIT = { protocolVersion: 1, clientCapabilities: {} };

function options(answer: (method: string, params: unknown) => unknown, extra: Partial<RecoverOptions> = {}) {
  const calls: Array<[string, unknown]> = [];
  let resets = 0;
  const opts: RecoverOptions = {
    policy: normalizeReconnectPolicy({ initialDelayMs: 1, maxDelayMs: 2, maxRetries: 2 }, ACP_DEFAULTS.reconnect),
    signal: new AbortController().signal,
    logger: silentLogger,
    reset: () => void (resets += 1),
    request: async (method, params) => {
      calls.push([method, params]);
      return answer(method, params);
    },
    connectionId: () => "new-connection",
    ...extra,
  };
  return { opts, calls, resets: () => resets };
}

describe("SessionLedger", () => {
  it("re-initializes with the same params, then loads each open session with its cwd and MCP servers", async () => {
    const ledger = new SessionLedger();
    expect(ledger.recoverable).toBe(false);
    ledger.note("initialize", INIT, { agentCapabilities: { loadSession: true } });
    ledger.note("session/new", { cwd: "/a", mcpServers: [{ name: "m" }] }, { sessionId: "s1" });
    ledger.note("session/new", { cwd: "/b", mcpServers: [] }, { sessionId: "s2" });
    ledger.note("session/close", { sessionId: "s2" }, {});
    ledger.note("session/load", { sessionId: "s3", cwd: "/c", mcpServers: [] }, {});
    const { opts, calls, resets } = options(() => ({}));
    const result = await ledger.recover(opts);
    expect(calls).toEqual([
      ["initialize", INIT],
      ["session/load", { sessionId: "s1", cwd: "/a", mcpServers: [{ name: "m" }] }],
      ["session/load", { sessionId: "s3", cwd: "/c", mcpServers: [] }],
    ]);
    expect(result).toEqual({ connectionId: "new-connection", loaded: ["s1", "s3"], failed: [], attempts: 1 });
    expect(resets()).toBe(1);
  });

  it("loads a session with the directories it was opened with, and not at all once it was deleted", async () => {
    const ledger = new SessionLedger();
    ledger.note("initialize", INIT, { agentCapabilities: { loadSession: true } });
    ledger.note("session/new", { cwd: "/a", mcpServers: [], additionalDirectories: ["/x"] }, { sessionId: "s1" });
    ledger.note("session/resume", { sessionId: "s1", cwd: "/a", additionalDirectories: ["/x", "/y"] }, {});
    ledger.note("session/new", { cwd: "/b", mcpServers: [] }, { sessionId: "s2" });
    ledger.note("session/new", { cwd: "/c", mcpServers: [] }, { sessionId: "s3" });
    ledger.note("session/delete", { sessionId: "s3" }, {});
    const { opts, calls } = options(() => ({}));
    await ledger.recover(opts);
    expect(calls.slice(1)).toEqual([
      ["session/load", { sessionId: "s1", cwd: "/a", mcpServers: [], additionalDirectories: ["/x", "/y"] }],
      ["session/load", { sessionId: "s2", cwd: "/b", mcpServers: [] }],
    ]);
  });

  it("retries a failed initialize per the policy; a session whose load fails is reported and forgotten", async () => {
    const ledger = new SessionLedger();
    ledger.note("initialize", INIT, { agentCapabilities: { loadSession: true } });
    ledger.note("session/new", { cwd: "/a", mcpServers: [] }, { sessionId: "s1" });
    ledger.note("session/new", { cwd: "/a", mcpServers: [] }, { sessionId: "gone" });
    let initializes = 0;
    const { opts } = options((method, params) => {
      if (method === "initialize" && ++initializes < 3) throw new Error("refused");
      if ((params as { sessionId?: string }).sessionId === "gone") throw new Error("unknown session");
      return {};
    });
    const result = await ledger.recover(opts);
    expect(result.attempts).toBe(3);
    expect(result.loaded).toEqual(["s1"]);
    expect(result.failed).toEqual([{ sessionId: "gone", error: "unknown session" }]);
    const again = options(() => ({}));
    expect((await ledger.recover(again.opts)).loaded).toEqual(["s1"]);
  });

  it("without loadSession every session is reported failed; exhausted retries reject with the last error", async () => {
    const ledger = new SessionLedger();
    ledger.note("initialize", INIT, { agentCapabilities: {} });
    ledger.note("session/new", { cwd: "/a", mcpServers: [] }, { sessionId: "s1" });
    const { opts, calls } = options(() => ({}));
    const result = await ledger.recover(opts);
    expect(result.failed).toEqual([{ sessionId: "s1", error: "the agent does not advertise loadSession" }]);
    expect(calls.map(([method]) => method)).toEqual(["initialize"]);
    const refusing = options(() => {
      throw new Error("still down");
    });
    await expect(ledger.recover(refusing.opts)).rejects.toThrow("still down");
  });

  it("reports each attempt with its number, the bound, its delay and the failure before it", async () => {
    const ledger = new SessionLedger();
    ledger.note("initialize", INIT, { agentCapabilities: {} });
    const lost = new Error("socket dropped");
    const attempts: AcpReconnectAttempt[] = [];
    const failures = [new Error("refused 1"), new Error("refused 2")];
    let initializes = 0;
    const { opts } = options(
      () => {
        const failure = failures[initializes++];
        if (failure) throw failure;
        return {};
      },
      {
        policy: normalizeReconnectPolicy({ initialDelayMs: 2, maxDelayMs: 4, maxRetries: 3, jitter: 0 }, ACP_DEFAULTS.reconnect),
        cause: lost,
        onAttempt: (attempt) => attempts.push(attempt),
      },
    );
    expect((await ledger.recover(opts)).attempts).toBe(3);
    expect(attempts).toEqual([
      { attempt: 1, maxAttempts: 4, nextDelayMs: 0, cause: lost, kind: "recovery" },
      { attempt: 2, maxAttempts: 4, nextDelayMs: 2, cause: failures[0], kind: "recovery" },
      { attempt: 3, maxAttempts: 4, nextDelayMs: 4, cause: failures[1], kind: "recovery" },
    ]);
  });
});
