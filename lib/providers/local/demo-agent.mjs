#!/usr/bin/env node
// Demo ACP agent: a scripted stand-in for a coding agent, so the terminal demo shows plans,
// thoughts, tool calls, a permission prompt and a streamed markdown answer without any model.
//
// Transport: newline-delimited JSON-RPC 2.0 on stdin/stdout, one object per line. sandbox-agent
// runs it as its `mock` agent: copy it to $XDG_DATA_HOME/sandbox-agent/bin/agent_processes/mock-acp
// (mode 755); the server execs it with no arguments.
//
// Requests:
//   initialize, session/new {cwd}, session/list, session/prompt {sessionId, prompt}
//   anything else -> JSON-RPC error -32601
// Notifications: session/cancel {sessionId} (stops the running turn -> {stopReason:"cancelled"}).
//
// A normal prompt turn: plan -> thought -> "read" tool call -> permission request for an "edit"
// tool call -> edit completes (allowed) or fails (rejected/cancelled) -> streamed markdown answer
// -> {stopReason:"end_turn"}. An allowed edit really writes src/greeting.ts: through the client's
// fs/write_text_file when the client offers it at initialize, else directly, in the session's cwd
// when that is inside the sandbox (HOME), else in HOME itself (a client's default cwd may be "/").
// Choosing "Always allow" skips the permission request for later turns of that session.
// Prompt words that change the script:
//   fail   after a short plan, answer the prompt with JSON-RPC error -32000
//   quick  no delays at all (for tests)
//
// Exits on stdin EOF and on SIGTERM/SIGINT.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

const AGENT_INFO = { name: "demo-agent", version: "0.1.0" };

// ---------------------------------------------------------------------------------------------
// Wire

let closing = false;

function send(message) {
  // Once shutting down, the peer is gone or going: writing would only risk EPIPE noise.
  if (!closing) process.stdout.write(`${JSON.stringify(message)}\n`);
}

const respond = (id, result) => send({ jsonrpc: "2.0", id, result });
const respondError = (id, code, message) => send({ jsonrpc: "2.0", id, error: { code, message } });

/** An error that is answered to the client as a JSON-RPC error object. */
class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// Agent -> client requests waiting for their answer, by request id.
const awaitingClient = new Map();
let clientRequestCount = 0;

/** Sends a request to the client; resolves with its response envelope, rejects when `signal` aborts. */
function requestClient(method, params, signal) {
  signal.throwIfAborted();
  const id = `demo-req-${++clientRequestCount}`;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      awaitingClient.delete(id);
      reject(signal.reason);
    };
    awaitingClient.set(id, (response) => {
      signal.removeEventListener("abort", onAbort);
      resolve(response);
    });
    signal.addEventListener("abort", onAbort, { once: true });
    send({ jsonrpc: "2.0", id, method, params });
  });
}

function settleClientRequest(response) {
  const resolve = awaitingClient.get(response.id);
  if (!resolve) return; // late answer to a request that was abandoned on cancel
  awaitingClient.delete(response.id);
  resolve(response);
}

// ---------------------------------------------------------------------------------------------
// Sessions and turns

/** sessionId -> { sessionId, cwd, title, alwaysAllowEdits, turn } */
const sessions = new Map();

/** One session/prompt in progress. Every delay and wait goes through its AbortSignal. */
class Turn {
  constructor(session, text) {
    this.session = session;
    this.text = text;
    this.quick = /\bquick\b/i.test(text);
    this.controller = new AbortController();
    // Tool calls the client still shows as running; closed as failed if the turn is cancelled.
    this.openToolCalls = new Set();
    this.planEntries = [];
  }

  get signal() {
    return this.controller.signal;
  }

  cancel() {
    this.controller.abort(new Error("turn cancelled"));
  }

  /** Waits a random time in [minMs, maxMs]; the timer is cleared as soon as the turn is cancelled. */
  async pause(minMs, maxMs = minMs) {
    this.signal.throwIfAborted();
    if (this.quick) return;
    await sleep(minMs + Math.random() * (maxMs - minMs), undefined, { signal: this.signal });
  }

  update(update) {
    send({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: this.session.sessionId, update },
    });
  }

  /** Streams `text` word by word as `agent_message_chunk` or `agent_thought_chunk` updates. */
  async stream(sessionUpdate, text) {
    for (const piece of text.match(/\S+\s*|\s+/g) ?? []) {
      await this.pause(15, 40);
      this.update({ sessionUpdate, content: { type: "text", text: piece } });
    }
  }

  /** Reports the plan with entries before `current` completed and `current` in progress. */
  reportPlan(current) {
    const status = (i) => (i < current ? "completed" : i === current ? "in_progress" : "pending");
    this.update({
      sessionUpdate: "plan",
      entries: this.planEntries.map((entry, i) => ({ ...entry, status: status(i) })),
    });
  }

  startToolCall(toolCall) {
    this.openToolCalls.add(toolCall.toolCallId);
    this.update({ sessionUpdate: "tool_call", status: "pending", ...toolCall });
  }

  updateToolCall(toolCallId, fields) {
    if (fields.status === "completed" || fields.status === "failed") this.openToolCalls.delete(toolCallId);
    this.update({ sessionUpdate: "tool_call_update", toolCallId, ...fields });
  }

  /** Leaves no spinner behind in the client: whatever was still running is reported failed. */
  failOpenToolCalls() {
    for (const toolCallId of [...this.openToolCalls]) {
      this.updateToolCall(toolCallId, { status: "failed", content: [textContent("Cancelled.")] });
    }
  }
}

const textContent = (text) => ({ type: "content", content: { type: "text", text } });

let toolCallCount = 0;
const nextToolCallId = () => `call_${++toolCallCount}`;

/** First line of the prompt, shortened, for titles and quotes. */
function summarise(text, max) {
  const line = text.trim().split("\n")[0].replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// ---------------------------------------------------------------------------------------------
// The scripted coding turn

const ENTRY_FILE = "src/index.ts";
const TARGET_FILE = "src/greeting.ts";

const ENTRY_SOURCE = `import { greet } from "./greeting.js";

export function main(): void {
  console.log(greet("world"));
}
`;

const GREETING_SOURCE = `export function greet(name: string): string {
  return \`Hello, \${name}!\`;
}
`;

const GREETING_DIFF = `--- /dev/null
+++ b/${TARGET_FILE}
@@ -0,0 +1,3 @@
+export function greet(name: string): string {
+  return \`Hello, \${name}!\`;
+}`;

const PERMISSION_OPTIONS = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

async function codingTurn(turn) {
  turn.planEntries = [
    { content: `Read ${ENTRY_FILE} to see how greetings are used`, priority: "high" },
    { content: `Write ${TARGET_FILE}`, priority: "high" },
    { content: "Summarise the change", priority: "medium" },
  ];
  turn.reportPlan(0);
  await turn.pause(200, 300);
  await turn.stream("agent_thought_chunk", thoughtFor(turn.text));

  await readEntryFile(turn);
  turn.reportPlan(1);

  const edit = await writeGreetingFile(turn);
  const written = edit === "written";
  if (edit === "rejected") turn.planEntries[1].content = `Write ${TARGET_FILE} (skipped: not approved)`;
  else if (!written) turn.planEntries[1].content = `Write ${TARGET_FILE} (failed: ${edit.failed})`;
  turn.reportPlan(2);

  await turn.pause(200, 300);
  await turn.stream("agent_message_chunk", answerFor(turn.text, edit));
  turn.reportPlan(turn.planEntries.length);
  return { stopReason: "end_turn" };
}

async function readEntryFile(turn) {
  const toolCallId = nextToolCallId();
  const filePath = path.join(turn.session.workDir, ENTRY_FILE);
  turn.startToolCall({
    toolCallId,
    title: `Read ${ENTRY_FILE}`,
    kind: "read",
    locations: [{ path: filePath }],
    rawInput: { path: filePath },
  });
  await turn.pause(100, 200);
  turn.updateToolCall(toolCallId, { status: "in_progress" });
  await turn.pause(300, 500);
  turn.updateToolCall(toolCallId, {
    status: "completed",
    content: [textContent(ENTRY_SOURCE)],
    rawOutput: { path: filePath, lines: ENTRY_SOURCE.split("\n").length - 1 },
  });
}

/**
 * Proposes the edit, asks for permission, writes the file, and reports the outcome. Resolves to
 * "written", "rejected" or { failed: message }.
 */
async function writeGreetingFile(turn) {
  const toolCallId = nextToolCallId();
  const filePath = path.join(turn.session.workDir, TARGET_FILE);
  const toolCall = { toolCallId, title: `Write ${TARGET_FILE}`, kind: "edit" };
  turn.startToolCall({ ...toolCall, locations: [{ path: filePath }], rawInput: { path: filePath } });

  if (!(await editApproved(turn, toolCall))) {
    const content = [textContent("Edit not approved; nothing was written.")];
    turn.updateToolCall(toolCallId, { status: "failed", content });
    return "rejected";
  }
  turn.updateToolCall(toolCallId, { status: "in_progress" });
  await turn.pause(400, 600);
  // What was there before, so the diff tells the truth on a second run (read directly: only the
  // write is the client's to make).
  const before = await readFile(filePath, "utf8").catch(() => null);
  const failure = await writeTextFile(turn, filePath, GREETING_SOURCE);
  if (failure) {
    const content = [textContent(`Could not write ${filePath}: ${failure}`)];
    turn.updateToolCall(toolCallId, { status: "failed", content });
    return { failed: failure };
  }
  turn.updateToolCall(toolCallId, {
    status: "completed",
    // A new file as the usual unified diff; an existing one as ACP's structured diff of old and new.
    content: [
      before === null
        ? textContent(GREETING_DIFF)
        : { type: "diff", path: filePath, oldText: before, newText: GREETING_SOURCE },
    ],
    rawOutput: { path: filePath, linesAdded: 3, linesRemoved: before === null ? 0 : before.split("\n").length - 1 },
  });
  return "written";
}

/**
 * Writes through the client when it offered fs/write_text_file, else directly. Resolves to an error
 * message or undefined.
 */
async function writeTextFile(turn, filePath, content) {
  if (clientCapabilities?.fs?.writeTextFile === true) {
    const response = await requestClient(
      "fs/write_text_file",
      { sessionId: turn.session.sessionId, path: filePath, content },
      turn.signal,
    );
    return response.error ? String(response.error.message ?? "the client refused") : undefined;
  }
  try {
    await mkdir(path.dirname(filePath), { recursive: true });
    await writeFile(filePath, content);
    return undefined;
  } catch (error) {
    return error?.message ?? String(error);
  }
}

async function editApproved(turn, toolCall) {
  if (turn.session.alwaysAllowEdits) return true;
  const response = await requestClient(
    "session/request_permission",
    {
      sessionId: turn.session.sessionId,
      toolCall: { ...toolCall, status: "pending" },
      options: PERMISSION_OPTIONS,
    },
    turn.signal,
  );
  // A client error, a "cancelled" outcome or an unknown option all count as "no".
  const outcome = response.result?.outcome;
  const chosen = outcome?.outcome === "selected" && PERMISSION_OPTIONS.find((o) => o.optionId === outcome.optionId);
  if (chosen?.kind === "allow_always") turn.session.alwaysAllowEdits = true;
  return chosen?.kind === "allow_once" || chosen?.kind === "allow_always";
}

function thoughtFor(prompt) {
  return (
    `The request is "${summarise(prompt, 60) || "(empty)"}". I should look at ${ENTRY_FILE} first ` +
    `to see how greetings are produced, then add one small, focused helper instead of ` +
    `rewriting existing code.`
  );
}

function answerFor(prompt, edit) {
  const written = edit === "written";
  // Backticks in the prompt would end the code block early.
  const quoted = summarise(prompt, 60).replace(/`/g, "'") || "(empty prompt)";
  const intro = written
    ? `## Added a greeting helper\n\nI read \`${ENTRY_FILE}\` and created \`${TARGET_FILE}\`` +
      " with one small function.\n\n"
    : edit === "rejected"
      ? `## Change not applied\n\nI read \`${ENTRY_FILE}\` but did not write \`${TARGET_FILE}\`` +
        ", because the edit was not approved.\n\n"
      : `## Change not applied\n\nI read \`${ENTRY_FILE}\` but could not write \`${TARGET_FILE}\`: ${edit.failed}\n\n`;
  const bullets = written
    ? [
        "`greet(name)` returns a friendly message",
        `\`${ENTRY_FILE}\` already imports it, so nothing else changes`,
        "the helper is pure, so it is easy to unit-test",
      ]
    : [
        "nothing in your working tree was modified",
        "the proposed helper is below, so you can apply it by hand",
        "ask again if you want me to write it",
      ];
  const code = [
    "```ts",
    `// Request: "${quoted}"`,
    "export function greet(name: string): string {",
    "  return `Hello, ${name}!`;",
    "}",
    "```",
  ].join("\n");
  const outro = written ? "Run the tests to check the new helper." : "No files were changed.";
  return `${intro}${bullets.map((b) => `- ${b}`).join("\n")}\n\n${code}\n\n${outro}`;
}

async function failingTurn(turn) {
  turn.planEntries = [
    { content: "Understand the request", priority: "high" },
    { content: "Make the change", priority: "high" },
    { content: "Summarise the change", priority: "medium" },
  ];
  turn.reportPlan(0);
  await turn.pause(300, 400);
  throw new RpcError(-32000, 'Demo agent failed on purpose (the prompt contains "fail")');
}

// ---------------------------------------------------------------------------------------------
// Method handlers

/** What the client offered at initialize (only `fs.writeTextFile` is used). */
let clientCapabilities;

function initialize(params) {
  clientCapabilities = params?.clientCapabilities;
  return {
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: false,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
    },
    authMethods: [],
    agentInfo: AGENT_INFO,
  };
}

// The server runs one agent process per connection and lists the sessions of all of them: a counter
// per process would name every connection's first session "session-1". A random suffix keeps ids
// apart across processes (and server restarts); recorded transcripts normalise them anyway.
function newSessionId() {
  let sessionId;
  do sessionId = `session-${randomBytes(4).toString("hex")}`;
  while (sessions.has(sessionId));
  return sessionId;
}

function newSession(params) {
  const sessionId = newSessionId();
  const cwd = typeof params?.cwd === "string" && params.cwd ? params.cwd : process.cwd();
  const session = { sessionId, cwd, workDir: workDirFor(cwd), title: null, alwaysAllowEdits: false, turn: null };
  sessions.set(sessionId, session);
  return { sessionId };
}

/**
 * Where the session's files go: its cwd when inside the sandbox (the server's HOME, which the server
 * gives its agents), else HOME itself, so a client's default cwd ("/") never has the demo write
 * outside the sandbox.
 */
function workDirFor(cwd) {
  const sandbox = path.resolve(process.env.HOME || process.cwd());
  const relative = path.relative(sandbox, path.resolve(cwd));
  const inside = relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  return inside ? path.resolve(cwd) : sandbox;
}

function listSessions() {
  return {
    sessions: [...sessions.values()].map(({ sessionId, cwd, title }) => ({ sessionId, cwd, title })),
  };
}

async function prompt(params) {
  const session = sessions.get(params?.sessionId);
  if (!session) throw new RpcError(-32602, `Unknown session: ${params?.sessionId}`);
  if (session.turn) throw new RpcError(-32000, `Session ${session.sessionId} is already running a prompt`);

  const text = (Array.isArray(params.prompt) ? params.prompt : [])
    .filter((block) => block?.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n");
  session.title ??= summarise(text, 48) || "Untitled session";

  const turn = new Turn(session, text);
  session.turn = turn;
  try {
    return await (/\bfail\b/i.test(text) ? failingTurn(turn) : codingTurn(turn));
  } catch (error) {
    if (!turn.signal.aborted) throw error;
    turn.failOpenToolCalls();
    return { stopReason: "cancelled" };
  } finally {
    session.turn = null;
  }
}

function cancel(params) {
  sessions.get(params?.sessionId)?.turn?.cancel();
}

const requestHandlers = {
  initialize,
  "session/new": newSession,
  "session/list": listSessions,
  "session/prompt": prompt,
};

const notificationHandlers = {
  "session/cancel": cancel,
};

function handleRequest({ id, method, params }) {
  const handler = requestHandlers[method];
  if (!handler) return respondError(id, -32601, `Method not found: ${method}`);
  const fail = (error) => {
    if (error instanceof RpcError) respondError(id, error.code, error.message);
    else respondError(id, -32603, `Internal error: ${error?.message ?? error}`);
  };
  try {
    const result = handler(params);
    // Synchronous answers go out at once, so they are not overtaken by updates of a turn
    // started by a later line of the same stdin chunk.
    if (result instanceof Promise) result.then((value) => respond(id, value), fail);
    else respond(id, result);
  } catch (error) {
    fail(error);
  }
}

function handleLine(line) {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return respondError(null, -32700, "Parse error");
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return respondError(null, -32600, "Invalid Request: expected a JSON-RPC object");
  }
  const hasId = message.id !== undefined && message.id !== null;
  if (typeof message.method === "string") {
    if (hasId) return handleRequest(message);
    return notificationHandlers[message.method]?.(message.params); // unknown notifications: ignored
  }
  if (hasId) settleClientRequest(message);
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

function shutdown() {
  if (closing) return;
  closing = true;
  for (const session of sessions.values()) session.turn?.cancel(); // clears every pending timer
  process.exit(0);
}

createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", handleLine).on("close", shutdown);
// The server may vanish without closing our stdin first; a failed write must end us, not crash us.
process.stdout.on("error", shutdown);
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, shutdown);
