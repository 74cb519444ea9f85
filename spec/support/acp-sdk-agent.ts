// The small agent served by spec/support/acp-sdk-server.ts, written against the official
// SDK's agent app. Sessions live in a store shared by every connection (and by a server
// restart), so `session/load` on a fresh connection finds what an earlier one created.
//
// Prompt switches (in the prompt text):
//   PERMISSION  asks session/request_permission and streams which option was chosen
//   SLOW        streams one chunk every 100 ms until session/cancel or `$/cancel_request`
//   anything    streams the words back ("echo:" then one chunk per word), then end_turn
// The extension request `_test/hang` never answers; it resolves only when cancelled.
// `_test/ping` answers its params at once (round-trip benchmarks).
import { agent, type AgentApp, type JsonRpcId } from "@agentclientprotocol/sdk";

/** What the agent saw, shared across connections; tests read it. */
export interface AgentLog {
  /** Session ids ever created, in order. */
  readonly sessions: Set<string>;
  /** `session/load` calls, by session id. */
  readonly loads: string[];
  /** JSON-RPC ids of requests whose handler signal was aborted (by `$/cancel_request` or a close). */
  readonly cancelledRequests: JsonRpcId[];
  /** `session/cancel` notifications, by session id. */
  readonly sessionCancels: string[];
}

export function newAgentLog(): AgentLog {
  return { sessions: new Set(), loads: [], cancelledRequests: [], sessionCancels: [] };
}

const SLOW_TICK_MS = 100;
// An upper bound so that a SLOW prompt nobody cancels still ends (no hangs in tests).
const SLOW_MAX_TICKS = 300;

const delay = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** One agent app per accepted connection; `log` is shared by all of them. */
export function createTestAgent(log: AgentLog): AgentApp {
  const turns = new Map<string, AbortController>();
  let nextSession = log.sessions.size;
  const app = agent();

  app.onRequest("initialize", () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: true },
    agentInfo: { name: "acp-sdk-test-agent", version: "1.0.0" },
  }));

  app.onRequest("session/new", () => {
    nextSession = Math.max(nextSession, log.sessions.size) + 1;
    const sessionId = `sdk-session-${nextSession}`;
    log.sessions.add(sessionId);
    return { sessionId };
  });

  app.onRequest("session/load", ({ params }) => {
    if (!log.sessions.has(params.sessionId)) throw new Error(`unknown session ${params.sessionId}`);
    log.loads.push(params.sessionId);
    return {};
  });

  app.onNotification("session/cancel", ({ params }) => {
    log.sessionCancels.push(params.sessionId);
    turns.get(params.sessionId)?.abort();
  });

  app.onRequest("session/prompt", async ({ params, client, signal, requestId }) => {
    const { sessionId } = params;
    const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join(" ");
    const turn = new AbortController();
    turns.set(sessionId, turn);
    const stopped = AbortSignal.any([turn.signal, signal]);
    signal.addEventListener("abort", () => log.cancelledRequests.push(requestId), { once: true });
    const chunk = (chunkText: string): Promise<void> =>
      client.notify("session/update", {
        sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunkText } },
      });
    try {
      if (text.includes("PERMISSION")) {
        const answer = await client.request("session/request_permission", {
          sessionId,
          toolCall: { toolCallId: "call-1", title: "write a file", kind: "edit", status: "pending" },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "deny", name: "Deny", kind: "reject_once" },
          ],
        });
        const chosen = answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled";
        await chunk(`permission:${chosen}`);
        return { stopReason: "end_turn" as const };
      }
      if (text.includes("SLOW")) {
        for (let tick = 0; tick < SLOW_MAX_TICKS && !stopped.aborted; tick += 1) {
          await chunk(`tick ${tick} `);
          await delay(SLOW_TICK_MS, stopped);
        }
        return { stopReason: stopped.aborted ? ("cancelled" as const) : ("end_turn" as const) };
      }
      await chunk("echo:");
      for (const word of text.split(/\s+/).filter(Boolean)) await chunk(` ${word}`);
      return { stopReason: "end_turn" as const };
    } finally {
      if (turns.get(sessionId) === turn) turns.delete(sessionId);
    }
  });

  app.onRequest("_test/hang", { parse: (value: unknown) => value }, ({ signal, requestId }) => {
    return new Promise((resolve) => {
      signal.addEventListener("abort", () => {
        log.cancelledRequests.push(requestId);
        resolve({ cancelled: true });
      });
    });
  });

  app.onRequest("_test/ping", { parse: (value: unknown) => value }, ({ params }) => ({ echoed: params }));

  return app;
}
