// The ACP v2 draft's contract agent: written against the official SDK's v2 agent app
// (`@agentclientprotocol/sdk/experimental/v2`, whose handlers parse every request with the draft's
// generated schemas) and served by the SDK's `AcpServer` (spec/support/acp-sdk-server.ts, option
// `createAgent`) over Streamable HTTP and WebSocket. What it sends follows schema/v2/schema.json:
// a prompt is acknowledged with the inserted user message's `messageId`, and its turn is reported
// with `state_update` (`running`, then `idle` with a stop reason); messages and tool calls are upserts
// by id beside their chunks; terminals are the agent's own (`terminal_update`, `terminal_output_chunk`).
//
// Prompt switches (in the prompt text):
//   SLOW      streams one chunk every 50 ms until session/cancel (idle `cancelled`)
//   REFUSE    refuses the prompt (JSON-RPC error), no turn
//   LATER     after the turn's idle, works on its own once: running, an agent message, idle
//   TERMINAL  a tool call with a diff and an agent-owned terminal (output chunks, exit), a plan
//   MALFORMED a chunk without the `messageId` v2 requires, then the turn as usual
//   anything  echoes the user message, streams the words back as chunks, then the whole message, idle
// `session/resume` with `replayFrom: { type: "start" }` replays every update the session has sent,
// then a current-state snapshot, then answers (as the draft asks).
import { agent, type AgentApp } from "@agentclientprotocol/sdk/experimental/v2";
import type { AgentLog } from "./acp-sdk-agent.js";

/** The version this agent answers `initialize` with. */
export const V2_AGENT_INFO = { name: "acp-v2-contract-agent", version: "1.0.0" };

const TICK_MS = 50;
// A SLOW prompt nobody cancels still ends (no hangs in tests).
const MAX_TICKS = 200;

type Update = Record<string, unknown> & { sessionUpdate: string };

interface Session {
  readonly history: Update[];
  turn: AbortController | undefined;
  messages: number;
  /** Prompts inserted and not yet worked through: the session is idle only when none is left. */
  active: number;
  /** The turns, one after another. */
  queue: Promise<void>;
}

const textOf = (prompt: ReadonlyArray<{ type: string; text?: string }>) =>
  prompt.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join(" ");
const text = (value: string) => ({ type: "text", text: value });
const base64 = (value: string) => Buffer.from(value, "utf8").toString("base64");

// A server's sessions, by its log (one per server): they outlive a connection, so another resumes them.
const SESSIONS = new WeakMap<AgentLog, Map<string, Session>>();

/** One v2 agent app per accepted connection; sessions outlive it (by `log`, one per server). */
export function createV2Agent(log: AgentLog): AgentApp {
  const app = agent({ name: "acp-v2-contract-agent" });
  let sessions = SESSIONS.get(log);
  if (!sessions) SESSIONS.set(log, (sessions = new Map()));
  let nextSession = log.sessions.size;

  app.onRequest("initialize", () => ({
    protocolVersion: 2,
    info: V2_AGENT_INFO,
    capabilities: { session: { delete: {} } },
    authMethods: [{ type: "agent", methodId: "token", name: "Token" }],
  }));

  app.onRequest("auth/login", () => ({}));
  app.onRequest("auth/logout", () => {
    log.logouts += 1;
    return {};
  });

  app.onRequest("session/new", () => {
    nextSession = Math.max(nextSession, log.sessions.size) + 1;
    const sessionId = `v2-session-${nextSession}`;
    log.sessions.add(sessionId);
    sessions.set(sessionId, { history: [], turn: undefined, messages: 0, active: 0, queue: Promise.resolve() });
    return { sessionId };
  });

  app.onRequest("session/prompt", ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) throw new Error(`unknown session ${params.sessionId}`);
    const said = textOf(params.prompt as Array<{ type: string; text?: string }>);
    if (said.includes("REFUSE")) throw new Error("this prompt is refused");
    const n = ++session.messages;
    const messageId = `user-${n}`;
    const send = async (update: Update): Promise<void> => {
      session.history.push(update);
      await client.notify("session/update", { sessionId: params.sessionId, update } as never);
    };
    session.active += 1;
    // Foreground work ends (idle) only when no inserted prompt is left: a prompt sent while an
    // earlier one still runs is worked through before the session reports idle.
    const last = () => --session.active === 0;
    // After the acknowledgement: the draft lets the turn's updates come on either side of it.
    session.queue = session.queue
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => {
        const turn = (session.turn = new AbortController());
        const { sessionId } = params;
        return runTurn({ send, said, messageId, replyId: `agent-${n}`, signal: turn.signal, last, log, sessionId });
      })
      // The client may leave mid-turn: what could not be sent is gone with its connection.
      .catch(() => undefined);
    return { messageId };
  });

  app.onNotification("session/cancel", ({ params }) => {
    log.sessionCancels.push(params.sessionId);
    sessions.get(params.sessionId)?.turn?.abort();
  });

  app.onRequest("session/resume", async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) throw new Error(`unknown session ${params.sessionId}`);
    log.loads.push(params.sessionId);
    const notify = (update: Update) =>
      client.notify("session/update", { sessionId: params.sessionId, update } as never);
    if (params.replayFrom?.type === "start") for (const update of session.history) await notify(update);
    await notify({ sessionUpdate: "state_update", state: "idle" });
    return {};
  });

  app.onRequest("session/delete", ({ params }) => {
    if (!log.sessions.delete(params.sessionId)) throw new Error(`unknown session ${params.sessionId}`);
    log.deletes.push(params.sessionId);
    return {};
  });

  app.onRequest("session/list", () => ({
    sessions: [...log.sessions].map((sessionId) => ({ sessionId, cwd: "/tmp" })),
  }));

  return app;
}

interface Turn {
  send: (update: Update) => Promise<void>;
  said: string;
  messageId: string;
  replyId: string;
  signal: AbortSignal;
  /** Counts this turn out; true when it was the last foreground work (so it reports idle). */
  last: () => boolean;
  log: AgentLog;
  sessionId: string;
}

async function runTurn({ send, said, messageId, replyId, signal, last, log, sessionId }: Turn): Promise<void> {
  await send({ sessionUpdate: "user_message", messageId, content: [text(said)] });
  await send({ sessionUpdate: "state_update", state: "running" });
  if (said.includes("SLOW")) {
    for (let tick = 0; tick < MAX_TICKS && !signal.aborted; tick++) {
      await send({ sessionUpdate: "agent_message_chunk", messageId: replyId, content: text(`tick${tick} `) });
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    }
    const stopReason = signal.aborted ? "cancelled" : "end_turn";
    if (last()) await send({ sessionUpdate: "state_update", state: "idle", stopReason });
    return;
  }
  if (said.includes("TERMINAL")) await terminalWork(send);
  if (said.includes("MALFORMED")) await send({ sessionUpdate: "agent_message_chunk", content: text("no id") });
  const words = said.split(/\s+/).filter(Boolean);
  for (const word of words) {
    await send({ sessionUpdate: "agent_message_chunk", messageId: replyId, content: text(`${word} `) });
  }
  await send({ sessionUpdate: "agent_message", messageId: replyId, content: [text(`echo: ${said}`)] });
  if (last()) await send({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
  if (said.includes("LATER")) {
    setTimeout(() => {
      void (async () => {
        await send({ sessionUpdate: "state_update", state: "running" });
        await send({ sessionUpdate: "agent_message", messageId: `${replyId}-later`, content: [text("on my own")] });
        await send({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
        log.directories.push({ method: "later", sessionId, additionalDirectories: [] });
      })().catch(() => undefined);
    }, TICK_MS);
  }
}

/** A tool call that edits a file (a diff) and runs a command in a terminal the agent owns, and a plan. */
async function terminalWork(send: (update: Update) => Promise<void>): Promise<void> {
  await send({
    sessionUpdate: "plan_update",
    plan: { type: "items", planId: "p1", entries: [{ content: "run it", priority: "high", status: "in_progress" }] },
  });
  await send({ sessionUpdate: "tool_call_update", toolCallId: "tc1", title: "Edit and run", status: "in_progress" });
  await send({
    sessionUpdate: "tool_call_content_chunk",
    toolCallId: "tc1",
    content: {
      type: "diff",
      changes: [{ operation: "modify", path: "/tmp/a.txt" }],
      patch: { format: "unified", text: "--- a\n+++ b\n" },
    },
  });
  await send({ sessionUpdate: "terminal_update", terminalId: "term1", command: "echo hi", cwd: "/tmp" });
  const terminal = { type: "terminal", terminalId: "term1" };
  await send({ sessionUpdate: "tool_call_content_chunk", toolCallId: "tc1", content: terminal });
  await send({ sessionUpdate: "terminal_output_chunk", terminalId: "term1", data: base64("hi\n") });
  await send({ sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { exitCode: 0 } });
  await send({ sessionUpdate: "tool_call_update", toolCallId: "tc1", status: "completed" });
}
