#!/usr/bin/env node
// A small ACP agent (JSON-RPC lines on stdio) for the UI specs: it answers each prompt with the
// prompt's own text as its message, so a spec decides what an agent says (hostile markdown
// included). A turn also reports a tool call whose title and location name files under the session's
// folder by absolute path, its text output, the context window (`usage_update`) and token usage in
// the prompt result.
// Requests: initialize, session/new {cwd}, session/list, session/prompt {sessionId, prompt}; others -> -32601.
// A prompt "question <text>" instead asks the client elicitation/create (form mode) with <text> as the
// message and as the title of a string field `name`, plus an enum `colour` (red|green) and a boolean
// `sure`; "question-url <url>" asks in url mode for <url>. The answer is the turn's message, as JSON.
// Notifications: session/cancel (none of its turns wait, so there is nothing to stop).
import { createInterface } from "node:readline";

const sessions = new Map();
let next = 0;

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const update = (sessionId, value) => send({ method: "session/update", params: { sessionId, update: value } });

const asked = new Map();

async function question(sessionId, text) {
  const id = `ask-${++next}`;
  const [verb, ...rest] = text.split(" ");
  const said = rest.join(" ");
  const params = verb === "question-url"
    ? { sessionId, mode: "url", message: "Open this page", elicitationId: id, url: said }
    : {
        sessionId, mode: "form", message: said,
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", title: said },
            colour: { type: "string", enum: ["red", "green"] },
            sure: { type: "boolean", title: "Sure?" },
          },
          required: ["name"],
        },
      };
  const answer = new Promise((resolve) => asked.set(id, resolve));
  send({ id, method: "elicitation/create", params });
  const reported = JSON.stringify(await answer);
  update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: reported } });
  return { stopReason: "end_turn" };
}

function prompt({ sessionId, prompt: blocks }) {
  const cwd = sessions.get(sessionId);
  if (cwd === undefined) throw Object.assign(new Error(`unknown session ${sessionId}`), { code: -32602 });
  const text = (Array.isArray(blocks) ? blocks : []).filter((b) => b?.type === "text").map((b) => b.text).join("\n");
  if (/^question(-url)? /.test(text)) return question(sessionId, text);
  const file = `${cwd}/src/index.ts`;
  update(sessionId, {
    sessionUpdate: "tool_call", toolCallId: `echo-${++next}`, title: `Read ${file}`, kind: "read", status: "completed",
    locations: [{ path: file }], content: [{ type: "content", content: { type: "text", text: "echo-tool-output" } }],
  });
  update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  update(sessionId, { sessionUpdate: "usage_update", used: 12_000, size: 200_000 });
  return { stopReason: "end_turn", usage: { inputTokens: 1_200, outputTokens: 34, totalTokens: 1_234 } };
}

const handlers = {
  initialize: () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }),
  "session/new": ({ cwd }) => {
    const sessionId = `echo-session-${++next}`;
    sessions.set(sessionId, typeof cwd === "string" ? cwd.replace(/\/+$/, "") : "/");
    return { sessionId };
  },
  "session/list": () => ({ sessions: [...sessions].map(([sessionId, cwd]) => ({ sessionId, cwd })) }),
  "session/prompt": prompt,
};

createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id !== undefined && message.method === undefined && asked.has(message.id)) {
    asked.get(message.id)(message.result ?? { error: message.error });
    asked.delete(message.id);
    return;
  }
  if (message.id === undefined || typeof message.method !== "string") return;
  const handler = handlers[message.method];
  if (!handler) return send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  const fail = (error) => send({ id: message.id, error: { code: error.code ?? -32603, message: error.message } });
  try {
    Promise.resolve(handler(message.params ?? {})).then((result) => send({ id: message.id, result }), fail);
  } catch (error) {
    fail(error);
  }
});
process.stdin.on("end", () => process.exit(0));
