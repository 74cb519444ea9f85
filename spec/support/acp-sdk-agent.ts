// The small agent served by spec/support/acp-sdk-server.ts, written against the official
// SDK's agent app. Sessions live in a store shared by every connection (and by a server
// restart), so `session/load` on a fresh connection finds what an earlier one created.
//
// Prompt switches (in the prompt text):
//   PERMISSION  asks session/request_permission and streams which option was chosen
//   SLOW        streams one chunk every 100 ms until session/cancel or `$/cancel_request`
//   ELICIT      asks elicitation/create (form mode: a name and a count) and streams the answer as JSON
//   ELICITURL   asks elicitation/create (URL mode) and streams the answer as JSON; when accepted, then
//               notifies elicitation/complete for it
//   ASKWAIT     asks elicitation/create (form) and waits for the answer (a cancelled turn answers it)
//   KINDS       streams one update of each newer kind: usage_update, notice, compaction_update,
//               compaction_summary_chunk, session_info_update, config_option_update (a boolean option)
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
  /** `session/delete` calls, by session id. */
  readonly deletes: string[];
  /** How many `logout` calls came. */
  logouts: number;
  /** The `additionalDirectories` of each session/new, load and resume, by method and session id. */
  readonly directories: Array<{ method: string; sessionId: string; additionalDirectories: string[] }>;
  /** The value each boolean config option was set to, by `sessionId/configId`. */
  readonly booleans: Map<string, boolean>;
}

export function newAgentLog(): AgentLog {
  return {
    sessions: new Set(),
    loads: [],
    cancelledRequests: [],
    sessionCancels: [],
    deletes: [],
    logouts: 0,
    directories: [],
    booleans: new Map(),
  };
}

/** The boolean config option every session has (`session/set_config_option` with `type: "boolean"`). */
const BOOLEAN_OPTION = { id: "auto_approve", name: "Auto-approve", type: "boolean" as const };

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

  // Stable session capabilities only: the unstable ones (fork, ...) stay unadvertised.
  app.onRequest("initialize", () => ({
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: true,
      sessionCapabilities: { list: {}, delete: {}, additionalDirectories: {}, resume: {}, close: {} },
      auth: { logout: {} },
    },
    agentInfo: { name: "acp-sdk-test-agent", version: "1.0.0" },
  }));

  const noteDirectories = (method: string, sessionId: string, directories: string[] | undefined | null) =>
    log.directories.push({ method, sessionId, additionalDirectories: directories ?? [] });
  const optionsOf = (sessionId: string) => [
    { ...BOOLEAN_OPTION, currentValue: log.booleans.get(`${sessionId}/${BOOLEAN_OPTION.id}`) ?? false },
  ];

  app.onRequest("session/new", ({ params }) => {
    nextSession = Math.max(nextSession, log.sessions.size) + 1;
    const sessionId = `sdk-session-${nextSession}`;
    log.sessions.add(sessionId);
    noteDirectories("session/new", sessionId, params.additionalDirectories);
    // No configOptions here: a case bounds the size of this answer (the boolean option shows on set).
    return { sessionId };
  });

  app.onRequest("session/load", ({ params }) => {
    if (!log.sessions.has(params.sessionId)) throw new Error(`unknown session ${params.sessionId}`);
    log.loads.push(params.sessionId);
    noteDirectories("session/load", params.sessionId, params.additionalDirectories);
    return {};
  });

  app.onRequest("session/resume", ({ params }) => {
    if (!log.sessions.has(params.sessionId)) throw new Error(`unknown session ${params.sessionId}`);
    noteDirectories("session/resume", params.sessionId, params.additionalDirectories);
    return { configOptions: optionsOf(params.sessionId) };
  });

  app.onRequest("session/list", () => ({
    sessions: [...log.sessions].map((sessionId) => ({ sessionId, cwd: "/tmp" })),
  }));

  app.onRequest("session/delete", ({ params }) => {
    if (!log.sessions.delete(params.sessionId)) throw new Error(`unknown session ${params.sessionId}`);
    log.deletes.push(params.sessionId);
    return {};
  });

  app.onRequest("logout", () => {
    log.logouts += 1;
    return {};
  });

  app.onRequest("session/set_config_option", ({ params }) => {
    if (params.configId !== BOOLEAN_OPTION.id || !("type" in params) || params.type !== "boolean") {
      throw new Error(`not a boolean option: ${params.configId}`);
    }
    log.booleans.set(`${params.sessionId}/${params.configId}`, params.value);
    return { configOptions: optionsOf(params.sessionId) };
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
      if (text.includes("ELICITURL")) {
        const elicitationId = `elicit-${requestId}`;
        const answer = await client.request("elicitation/create", {
          sessionId,
          mode: "url",
          message: "Sign in to continue",
          elicitationId,
          url: "https://example.invalid/sign-in",
        });
        await chunk(JSON.stringify(answer));
        if (answer.action === "accept") await client.notify("elicitation/complete", { elicitationId });
        return { stopReason: "end_turn" as const };
      }
      if (text.includes("ELICIT") || text.includes("ASKWAIT")) {
        const answer = await client.request("elicitation/create", {
          sessionId,
          mode: "form",
          message: "Which project, and how many runs?",
          requestedSchema: {
            type: "object",
            properties: { project: { type: "string", title: "Project" }, runs: { type: "integer" } },
            required: ["project"],
          },
        });
        await chunk(JSON.stringify(answer));
        // The client answers `cancel` when it cancels the turn, maybe before session/cancel arrives here.
        const cancelled = stopped.aborted || answer.action === "cancel";
        return { stopReason: cancelled ? ("cancelled" as const) : ("end_turn" as const) };
      }
      if (text.includes("KINDS")) {
        const update = (body: Record<string, unknown>) =>
          client.notify("session/update", { sessionId, update: body } as never);
        const cost = { amount: 0.25, currency: "USD" };
        await update({ sessionUpdate: "usage_update", used: 1200, size: 200000, cost });
        await update({ sessionUpdate: "notice", severity: "warning", title: "Rate limit near" });
        await update({ sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" });
        const summary = { type: "text", text: "sum" };
        await update({ sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: summary });
        await update({ sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" });
        await update({ sessionUpdate: "session_info_update", title: "A titled session" });
        await update({ sessionUpdate: "config_option_update", configOptions: optionsOf(sessionId) });
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
