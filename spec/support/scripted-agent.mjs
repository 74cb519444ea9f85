#!/usr/bin/env node
// Scripted ACP agent for tests against the real sandbox-agent server.
//
// Transport: newline-delimited JSON-RPC 2.0 on stdin/stdout, one object per line. No dependencies,
// so the server can exec it directly (shebang) as its `mock` agent process; see
// spec/support/sandbox-agent-server.ts for how it is installed.
//
// A turn's behaviour is chosen by the first text block of session/prompt ("verb args...").
// Chunks are session/update notifications with update.sessionUpdate = "agent_message_chunk".
//   (default)          3 chunks "Hello", ", ", "world" (_meta.seq 0..2), then {stopReason:"end_turn"}
//   chunks N           N chunks "c0".."c<N-1>" (_meta.seq = i), then end_turn
//   burst N            same as chunks N; named for the server's drop-under-burst behaviour
//                      (the lines are written back to back, no yielding in between)
//   slowchunks N MS    N chunks, MS milliseconds apart, then end_turn
//   sleep MS           answers end_turn after MS milliseconds
//   permission         sends session/request_permission (options allow/deny, a pending edit tool
//                      call), waits for the client's answer, sends a chunk whose text is the answer
//                      as JSON, then end_turn with _meta.permissionAnswer = the answer
//   error [CODE [MSG]] answers the prompt with a JSON-RPC error: code CODE (integer, default
//                      -32000), message MSG (rest of the line, default "scripted error"),
//                      data {scripted:true}
//   garbage            writes one non-JSON line to stdout, then a chunk, then end_turn
//   malformed          one malformed update (a tool_call_content_chunk for tool-<n> without its content),
//                      then a chunk "after malformed", then end_turn
//   ended              emits _sandboxagent/session/ended
//                      {session_id, data:{reason:"completed", terminated_by:"agent"}}, then end_turn
//   unparsed           emits _sandboxagent/agent/unparsed {error:"scripted", raw:"<<not understood>>"},
//                      then end_turn
//   wait               no answer until session/cancel for that session, then {stopReason:"cancelled"}
//   exit [CODE]        the process exits with CODE (default 0) without answering
//   crash              the process SIGKILLs itself without answering
//   stderr [N]         writes N (default 2) lines to stderr, then end_turn
//   big N              one chunk whose text is N bytes ("x" repeated), then end_turn
//   fs [PATH]          asks the client fs/read_text_file then fs/write_text_file for PATH (absolute;
//                      default <session cwd>/scripted-agent.txt), waiting for each answer; each
//                      answer is reported in a chunk as JSON {method, result|error}; then end_turn
//                      with _meta.fs = [those reports]
//   setmode ID         the agent switches mode itself: emits current_mode_update ID, then end_turn
//   setoption ID VALUE the agent changes an option itself: emits config_option_update, then end_turn
//   refuse [METHOD]    from now on this session answers METHOD (default session/delete) with -32601, as
//                      scriptedUnsupported does (an agent that advertised it, then refuses); end_turn
//   elicit [url|multi] asks the client elicitation/create (form: a `project` string and a `runs` integer;
//                      multi: `areas`, a required multi-select of api/ui/docs with 1 to 2 items, and
//                      `reviewers`, a titled multi-select of ada/alan defaulting to [alan];
//                      url: elicitationId "e-<n>", url https://example.invalid/sign-in), waits for the
//                      answer, reports it in a chunk as JSON {method, result|error}; end_turn with
//                      _meta.askAnswer = that report. An accepted url question is followed by
//                      elicitation/complete {elicitationId}
//   reply              a thought "Let me look" (messageId thought-<n>), a tool call tool-<n> ("Read notes",
//                      pending, then completed), the message "Hello, world" in three parts (messageId
//                      reply-<n>), then end_turn; n counts the session's prompts (r<pid>-<count> in a
//                      session this process took up with session/resume). v2: the thought and the
//                      message begin with their upserts (agent_thought, agent_message), the tool call with
//                      the tool_call_update that creates it; the parts after the first are chunks, as in v1
//   ask METHOD         sends an agent->client request METHOD with params {sessionId}; the answer is
//                      reported in a chunk as JSON {method, result|error}; end_turn with
//                      _meta.askAnswer = that report (a client should answer unknown methods -32601)
// session/cancel also cuts `sleep` and `slowchunks` short; the turn then ends with "cancelled".
// Every prompt result carries _meta.scripted = {verb}.
//
// The ACP v2 draft: an `initialize` that asks for protocolVersion 2 is answered with 2 (the draft's
// shape: info, capabilities with the same _meta), and from then on this agent speaks the draft. A
// prompt (any verb but error, exit, crash) is acknowledged at once with {messageId: "user-<n>"}; then
// come the agent's user_message for it (that messageId), state_update running, the verb's updates
// (agent chunks carry messageId reply-<n>), and the turn ends with state_update idle {stopReason,
// _meta} instead of an answer. `error` still refuses the prompt with its JSON-RPC error (no turn).
// session/resume of a session not known here takes it up (as session/load does); with replayFrom and
// SCRIPTED_AGENT_REPLAY_ON_LOAD=1 it first replays the short history as upserts (user_message
// "earlier question", agent_message "earlier answer"), then the state snapshot (idle), then answers.
//
// Requests:
//   initialize                  protocolVersion 1 (2 when asked for 2: see above), agentCapabilities
//                               (loadSession, prompt capabilities, sessionCapabilities list/delete/resume,
//                               auth.logout, _meta["sandboxagent.dev"].extensions with booleans and the
//                               `methods` this agent answers), authMethods [], agentInfo; result._meta.seenClientMeta =
//                               params._meta (or null), result._meta.seenClientCapabilities =
//                               params.clientCapabilities (or null), kept for the sessions' boolean option
//   session/new                 {sessionId:"sess-<n>", modes, configOptions, _meta:{seenMeta: params._meta|null,
//                               cwd}}: modes normal/plan (current normal); configOptions (type select) model
//                               (mock|mock-fast), mode (normal|plan), thought_level (low|medium|high), each with
//                               the category of its id. params._meta["sandboxagent.dev"].scriptedUnsupported (an
//                               array of method names) makes those methods answer -32601 in that session.
//                               params._meta["sandboxagent.dev"].scriptedBoolean (true) adds a boolean option
//                               `verbose` (false; category null), only when initialize's clientCapabilities
//                               said session.configOptions.boolean (as the protocol asks); it is set only by
//                               {type:"boolean", value:true|false} (-32602 otherwise).
//                               params._meta["sandboxagent.dev"].scriptedConfig picks how that session's
//                               configuration talks (default: as described below):
//                                 "silent"   no modes or configOptions in the result; the set calls accept
//                                            any value and answer {} (set_config_option too), no updates
//                                 "quiet"    modes and configOptions as usual; the set calls record the value
//                                            and answer {} (set_config_option too), no updates
//                                 "stubborn" modes and configOptions as usual; the set calls change nothing,
//                                            emit the unchanged state (current_mode_update for set_mode,
//                                            config_option_update), then answer {}
//   session/load                {modes, configOptions} of that session (no history is replayed, unless
//                               SCRIPTED_AGENT_REPLAY_ON_LOAD=1)
//   session/list                {sessions:[{sessionId, cwd, additionalDirectories}]} for the sessions here
//                               (session/new and session/resume record params.additionalDirectories)
//   session/resume              {modes, configOptions} of a session known here (-32602 for another one)
//   session/delete              forgets the session ({}; -32602 for an unknown one; -32601 when the session
//                               lists session/delete in scriptedUnsupported: advertised, yet refused)
//   logout                      {}; from then on session/new answers -32000 "Authentication required"
//   session/set_mode            records the mode (-32602 for an unknown one), emits current_mode_update, then {}
//   session/set_model           records the model (-32602 for an unknown one), emits config_option_update, then {}
//   session/set_config_option   sets the option (-32602 for an unknown id or value), emits config_option_update
//                               (and current_mode_update for the mode option), then {configOptions}
//   session/prompt                               see the verbs above
//   _sandboxagent/session/list_models            {availableModels:[{modelId,name}], currentModelId}
//   _probe/echo {…}                              answers with the params unchanged
//   _probe/error {code,message,data}             answers with exactly that JSON-RPC error
//   _probe/raw {lines:[string]}                  writes each line verbatim to stdout, then {wrote:n}
//   _probe/notify {method, params}               emits that notification, then {}
//   _probe/stderr {lines,text}                   writes lines to stderr, then {wrote:n}
//   _probe/env                                   {argv, cwd, pid, ppid, env}
//   _probe/initialize                            {clientCapabilities} of the last initialize (or null)
//   anything else                                JSON-RPC error -32601
// Notifications:
//   session/cancel {sessionId}  ends that session's pending turn with "cancelled"
//   _probe/ping {…}             emits _probe/pong with the same params
//   anything else               ignored
// A line that is not JSON gets a -32700 error with id null.
//
// The process exits on stdin EOF (which is how the server lets go of an agent) and on
// SIGTERM/SIGINT/SIGHUP. SCRIPTED_AGENT_TRACE=1 in the server's environment (the server passes
// its environment on) logs every inbound and outbound line to stderr, which the server copies
// into its log file. Note the server appends the agent's recent stderr to error responses it
// returns in POST bodies (error.data.agentStderr), so tracing changes those bodies.
import { createInterface } from "node:readline";
import { join } from "node:path";

const trace = process.env.SCRIPTED_AGENT_TRACE === "1";
// SCRIPTED_AGENT_NO_LOAD=1: loadSession is not advertised and session/load answers -32601.
const noLoad = process.env.SCRIPTED_AGENT_NO_LOAD === "1";
// SCRIPTED_AGENT_ECHO_PROMPT=1: every prompt result carries _meta.promptTexts, the prompt's text blocks.
const echoPrompt = process.env.SCRIPTED_AGENT_ECHO_PROMPT === "1";
// SCRIPTED_AGENT_REPLAY_ON_LOAD=1: session/load first replays a short history (a user_message_chunk
// "earlier question", then agent_message_chunks "earlier ", "answer"), as agents that keep history do.
const replayOnLoad = process.env.SCRIPTED_AGENT_REPLAY_ON_LOAD === "1";
/** Set by an `initialize` that asks for protocolVersion 2: this agent then speaks the ACP v2 draft. */
let draft = false;

function writeLine(line) {
  if (trace) process.stderr.write(`scripted-agent send: ${line}\n`);
  // stdout to a pipe is synchronous on Linux, so an `exit` right after a write loses nothing.
  process.stdout.write(`${line}\n`);
}
const send = (message) => writeLine(JSON.stringify(message));
const notify = (method, params) => send({ jsonrpc: "2.0", method, params });
const reply = (id, result) => send({ jsonrpc: "2.0", id, result });
const fail = (id, code, message, data) =>
  send({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });

const METHODS = [
  "initialize",
  "session/new",
  "session/load",
  "session/list",
  "session/resume",
  "session/delete",
  "logout",
  "session/prompt",
  "session/set_mode",
  "session/set_model",
  "session/set_config_option",
  "_sandboxagent/session/list_models",
  "_probe/echo",
  "_probe/error",
  "_probe/raw",
  "_probe/notify",
  "_probe/stderr",
  "_probe/env",
  "_probe/initialize",
];

/** sessionId -> {cwd, config, unsupported} for session/list, the `fs` verb and session configuration. */
const sessions = new Map();
let sessionCounter = 0;
/** Set by `logout`: new sessions then need authentication again. */
let loggedOut = false;
// What the client said it can do in initialize (the boolean option is offered only when it can).
let clientCapabilities = null;

/** Our agent->client request id -> resolver of the client's answer. */
const awaitingClient = new Map();
let outgoingCounter = 0;

function askClient(method, params) {
  const id = `agent-req-${++outgoingCounter}`;
  return new Promise((resolve) => {
    awaitingClient.set(id, resolve);
    send({ jsonrpc: "2.0", id, method, params });
  });
}

/**
 * sessionId -> the turns running in it. session/cancel cancels all of them; `cancelled` resolves
 * then, so that waits can race it. A turn started after the cancel is not affected.
 */
const turns = new Map();

function beginTurn(sessionId) {
  let resolveCancelled = () => {};
  const cancelled = new Promise((resolve) => {
    resolveCancelled = resolve;
  });
  const turn = {
    isCancelled: false,
    cancelled,
    cancel() {
      turn.isCancelled = true;
      resolveCancelled();
    },
    finish() {
      turns.get(sessionId)?.delete(turn);
    },
  };
  if (!turns.has(sessionId)) turns.set(sessionId, new Set());
  turns.get(sessionId).add(turn);
  return turn;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** sessionId -> the messageId of the running turn's agent message (v2, and the `reply` verb). */
const replyIds = new Map();
/** sessionId -> prompts sent to it, for the ids of a turn's messages and tool call. */
const promptCounts = new Map();
/**
 * sessionId -> what this process puts before a turn's number in those ids: nothing for a session it
 * created, `r<pid>-` for one it took up (resume, load), which an earlier process numbered from 1 too.
 */
const idPrefixes = new Map();

const update = (sessionId, body) => notify("session/update", { sessionId, update: body });

function chunk(sessionId, text, meta) {
  const messageId = replyIds.get(sessionId);
  notify("session/update", {
    sessionId,
    update: {
      sessionUpdate: "agent_message_chunk",
      ...(messageId === undefined ? {} : { messageId }),
      content: { type: "text", text },
    },
    ...(meta === undefined ? {} : { _meta: meta }),
  });
}

const intArg = (value, fallback) => {
  const n = Number.parseInt(value ?? "", 10);
  return Number.isFinite(n) ? n : fallback;
};

/** The client's answer to an agent->client request, in a shape that is easy to assert on. */
const report = (method, answer) =>
  answer && typeof answer === "object" && "error" in answer
    ? { method, error: answer.error }
    : { method, result: answer?.result };

async function runPrompt(msg) {
  const params = msg.params ?? {};
  const sessionId = params.sessionId;
  const blocks = Array.isArray(params.prompt) ? params.prompt : [];
  const first = blocks.find((b) => b && b.type === "text" && typeof b.text === "string");
  const text = (first?.text ?? "").trim();
  const [verb = "", ...args] = text.split(/\s+/);
  const turn = beginTurn(sessionId);
  const count = (promptCounts.get(sessionId) ?? 0) + 1;
  promptCounts.set(sessionId, count);
  const n = `${idPrefixes.get(sessionId) ?? ""}${count}`;
  // The v2 draft: the prompt is acknowledged at once, the turn reported by the session's state.
  const acknowledged = draft && !["error", "exit", "crash"].includes(verb);
  if (acknowledged) {
    const messageId = `user-${n}`;
    reply(msg.id, { messageId });
    update(sessionId, { sessionUpdate: "user_message", messageId, content: blocks.filter((b) => b?.type === "text") });
    update(sessionId, { sessionUpdate: "state_update", state: "running" });
  }
  if (acknowledged || verb === "reply") replyIds.set(sessionId, `reply-${n}`);
  const end = (stopReason, meta = {}) => {
    turn.finish();
    replyIds.delete(sessionId);
    const echoed = echoPrompt ? { promptTexts: blocks.filter((b) => b?.type === "text").map((b) => b.text) } : {};
    const _meta = { scripted: { verb: verb || "default" }, ...echoed, ...meta };
    if (acknowledged) update(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason, _meta });
    else reply(msg.id, { stopReason, _meta });
  };
  const endTurn = (meta) => end(turn.isCancelled ? "cancelled" : "end_turn", meta);

  switch (verb) {
    case "chunks":
    case "burst": {
      const n = intArg(args[0], 3);
      for (let i = 0; i < n; i++) chunk(sessionId, `c${i}`, { seq: i });
      return endTurn();
    }
    case "slowchunks": {
      const n = intArg(args[0], 3);
      const ms = intArg(args[1], 100);
      for (let i = 0; i < n && !turn.isCancelled; i++) {
        if (i > 0) await Promise.race([sleep(ms), turn.cancelled]);
        if (!turn.isCancelled) chunk(sessionId, `c${i}`, { seq: i });
      }
      return endTurn();
    }
    case "sleep":
      await Promise.race([sleep(intArg(args[0], 1000)), turn.cancelled]);
      return endTurn();
    case "permission": {
      const outcome = await askClient("session/request_permission", {
        sessionId,
        toolCall: { toolCallId: "tool-1", title: "Write scripted.txt", kind: "edit", status: "pending" },
        options: [
          { optionId: "allow", name: "Allow once", kind: "allow_once" },
          { optionId: "deny", name: "Reject", kind: "reject_once" },
        ],
      });
      // The answer is the client's result, or {error} if the client answered with an error.
      const answer = "error" in outcome ? { error: outcome.error } : outcome.result;
      chunk(sessionId, JSON.stringify(answer ?? null));
      return endTurn({ permissionAnswer: answer ?? null });
    }
    case "error": {
      turn.finish();
      const message = args.slice(1).join(" ") || "scripted error";
      return fail(msg.id, intArg(args[0], -32000), message, { scripted: true });
    }
    case "garbage":
      writeLine("this line is not json");
      chunk(sessionId, "after garbage");
      return endTurn();
    case "malformed":
      // A kind only the draft has, without a field the draft requires.
      update(sessionId, { sessionUpdate: "tool_call_content_chunk", toolCallId: `tool-${n}` });
      chunk(sessionId, "after malformed");
      return endTurn();
    case "ended":
      notify("_sandboxagent/session/ended", {
        session_id: sessionId,
        data: { reason: "completed", terminated_by: "agent" },
      });
      return endTurn();
    case "unparsed":
      notify("_sandboxagent/agent/unparsed", { error: "scripted", raw: "<<not understood>>" });
      return endTurn();
    case "wait":
      await turn.cancelled;
      return end("cancelled");
    case "exit":
      process.exit(intArg(args[0], 0));
      return;
    case "crash":
      process.kill(process.pid, "SIGKILL");
      return;
    case "stderr": {
      const n = intArg(args[0], 2);
      for (let i = 0; i < n; i++) process.stderr.write(`scripted-agent stderr line ${i}\n`);
      return endTurn();
    }
    case "big":
      chunk(sessionId, "x".repeat(intArg(args[0], 100_000)));
      return endTurn();
    case "fs": {
      const cwd = sessions.get(sessionId)?.cwd ?? process.cwd();
      const path = args[0] ?? join(cwd, "scripted-agent.txt");
      const reports = [];
      const read = await askClient("fs/read_text_file", { sessionId, path });
      reports.push(report("fs/read_text_file", read));
      chunk(sessionId, JSON.stringify(reports[0]));
      const write = await askClient("fs/write_text_file", {
        sessionId,
        path,
        content: "written by scripted-agent\n",
      });
      reports.push(report("fs/write_text_file", write));
      chunk(sessionId, JSON.stringify(reports[1]));
      return endTurn({ fs: reports });
    }
    case "setmode":
      applyOption(sessionId, "mode", args[0] ?? "plan");
      return endTurn();
    case "setoption":
      applyOption(sessionId, args[0] ?? "model", args[1] ?? "mock-fast");
      return endTurn();
    case "elicit": {
      const url = args[0] === "url";
      const elicitationId = `e-${outgoingCounter + 1}`;
      const question = url
        ? { sessionId, mode: "url", message: "Sign in", elicitationId, url: "https://example.invalid/sign-in" }
        : args[0] === "multi" ? {
            sessionId,
            mode: "form",
            message: "Which areas, and who reviews?",
            requestedSchema: {
              type: "object",
              properties: {
                areas: {
                  type: "array", title: "Areas", minItems: 1, maxItems: 2,
                  items: { type: "string", enum: ["api", "ui", "docs"] },
                },
                reviewers: {
                  type: "array", title: "Reviewers", default: ["alan"],
                  items: { anyOf: [{ const: "ada", title: "Ada Lovelace" }, { const: "alan", title: "Alan Turing" }] },
                },
              },
              required: ["areas"],
            },
          }
        : {
            sessionId,
            mode: "form",
            message: "Which project, and how many runs?",
            requestedSchema: {
              type: "object",
              properties: { project: { type: "string" }, runs: { type: "integer" } },
              required: ["project"],
            },
          };
      const answer = report("elicitation/create", await askClient("elicitation/create", question));
      chunk(sessionId, JSON.stringify(answer));
      if (url && answer.result?.action === "accept") notify("elicitation/complete", { elicitationId });
      return endTurn({ askAnswer: answer });
    }
    case "reply": {
      const text = (t) => ({ type: "text", text: t });
      const thought = { messageId: `thought-${n}` };
      if (draft) update(sessionId, { sessionUpdate: "agent_thought", ...thought, content: [text("Let me")] });
      else update(sessionId, { sessionUpdate: "agent_thought_chunk", ...thought, content: text("Let me") });
      update(sessionId, { sessionUpdate: "agent_thought_chunk", ...thought, content: text(" look") });
      const call = { toolCallId: `tool-${n}`, title: "Read notes", kind: "read", status: "pending" };
      update(sessionId, { sessionUpdate: draft ? "tool_call_update" : "tool_call", ...call });
      update(sessionId, { sessionUpdate: "tool_call_update", toolCallId: call.toolCallId, status: "completed" });
      const messageId = `reply-${n}`;
      if (draft) update(sessionId, { sessionUpdate: "agent_message", messageId, content: [text("Hello")] });
      else chunk(sessionId, "Hello");
      chunk(sessionId, ", ");
      chunk(sessionId, "world");
      return endTurn();
    }
    case "refuse":
      sessions.get(sessionId)?.unsupported.push(args[0] ?? "session/delete");
      return endTurn();
    case "ask": {
      const method = args[0] ?? "_probe/unknown";
      const answer = report(method, await askClient(method, { sessionId }));
      chunk(sessionId, JSON.stringify(answer));
      return endTurn({ askAnswer: answer });
    }
    default:
      for (const [i, t] of ["Hello", ", ", "world"].entries()) chunk(sessionId, t, { seq: i });
      return endTurn();
  }
}

/** The options a session starts with: what the real server also reports for its `mock` agent. */
function initialConfig() {
  const select = (id, name, currentValue, values) => ({
    id,
    name,
    category: id,
    type: "select",
    currentValue,
    options: values.map((value) => ({ value, name: value })),
  });
  return [
    select("model", "Model", "mock", ["mock", "mock-fast"]),
    select("mode", "Mode", "normal", ["normal", "plan"]),
    select("thought_level", "Thought level", "low", ["low", "medium", "high"]),
  ];
}

function sessionConfig(sessionId) {
  const config = sessions.get(sessionId)?.config ?? initialConfig();
  const mode = config.find((option) => option.id === "mode");
  const availableModes = mode.options.map(({ value, name }) => ({ id: value, name }));
  return { modes: { currentModeId: mode.currentValue, availableModes }, configOptions: structuredClone(config) };
}

/** Sets one option; emits its update (and current_mode_update for the mode). Returns an error text or undefined. */
function applyOption(sessionId, configId, value, type) {
  const session = sessions.get(sessionId);
  if (!session) return `unknown session ${sessionId}`;
  const option = session.config.find((candidate) => candidate.id === configId);
  if (!option) return `unknown config option ${configId}`;
  if (option.type === "boolean") {
    if (type !== "boolean" || typeof value !== "boolean") return `${configId} takes {type:"boolean", value}`;
  } else if (!option.options.some((candidate) => candidate.value === value)) {
    return `unknown value ${value} for ${configId}`;
  }
  if (session.configStyle === "quiet") {
    option.currentValue = value;
    return undefined;
  }
  if (session.configStyle !== "stubborn") option.currentValue = value;
  const update = (body) => notify("session/update", { sessionId, update: body });
  if (configId === "mode") update({ sessionUpdate: "current_mode_update", currentModeId: option.currentValue });
  const configOptions = structuredClone(session.config);
  update({ sessionUpdate: "config_option_update", configOptions });
  return undefined;
}

function setConfig(msg) {
  const params = msg.params ?? {};
  const session = sessions.get(params.sessionId);
  if (session?.unsupported.includes(msg.method)) return fail(msg.id, -32601, `Method not found: ${msg.method}`);
  const [configId, value] =
    msg.method === "session/set_mode" ? ["mode", params.modeId]
    : msg.method === "session/set_model" ? ["model", params.modelId]
    : [params.configId, params.value];
  // A silent session keeps no options: whatever is asked for is taken.
  if (session?.configStyle === "silent") return reply(msg.id, {});
  const problem = applyOption(params.sessionId, configId, value, params.type);
  if (problem) return fail(msg.id, -32602, problem);
  const isOption = msg.method === "session/set_config_option" && session.configStyle === undefined;
  return reply(msg.id, isOption ? { configOptions: structuredClone(session.config) } : {});
}

function handleRequest(msg) {
  const params = msg.params ?? {};
  switch (msg.method) {
    case "initialize":
      clientCapabilities = params.clientCapabilities ?? null;
      if (Number(params.protocolVersion) >= 2) return initializeDraft(msg);
      return reply(msg.id, {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: !noLoad,
          promptCapabilities: { image: false, audio: false, embeddedContext: false },
          sessionCapabilities: { list: {}, delete: {}, resume: {} },
          auth: { logout: {} },
          _meta: EXTENSIONS,
        },
        authMethods: [],
        agentInfo: { name: "scripted-agent", title: "Scripted Agent", version: "1.0.0" },
        _meta: { seenClientMeta: params._meta ?? null, seenClientCapabilities: clientCapabilities },
      });
    case "session/new": {
      const sessionId = `sess-${++sessionCounter}`;
      const cwd = typeof params.cwd === "string" ? params.cwd : process.cwd();
      const scripting = params._meta?.["sandboxagent.dev"] ?? {};
      const unsupported = Array.isArray(scripting.scriptedUnsupported) ? scripting.scriptedUnsupported : [];
      const configStyle = ["silent", "quiet", "stubborn"].includes(scripting.scriptedConfig) ? scripting.scriptedConfig : undefined;
      const config = initialConfig();
      const booleanShown = typeof clientCapabilities?.session?.configOptions?.boolean === "object";
      if (scripting.scriptedBoolean === true && booleanShown) {
        config.push({ id: "verbose", name: "Verbose", category: null, type: "boolean", currentValue: false });
      }
      if (loggedOut) return fail(msg.id, -32000, "Authentication required");
      const additionalDirectories = Array.isArray(params.additionalDirectories) ? params.additionalDirectories : [];
      sessions.set(sessionId, { cwd, config, unsupported, configStyle, additionalDirectories });
      const reported = configStyle === "silent" ? {} : sessionConfig(sessionId);
      return reply(msg.id, { sessionId, ...reported, _meta: { seenMeta: params._meta ?? null, cwd } });
    }
    case "session/load":
      if (noLoad) return fail(msg.id, -32601, "Method not found");
      if (typeof params.sessionId === "string" && !sessions.has(params.sessionId)) {
        const cwd = typeof params.cwd === "string" ? params.cwd : process.cwd();
        sessions.set(params.sessionId, { cwd, config: initialConfig(), unsupported: [] });
      }
      if (replayOnLoad) {
        const chunk = (sessionUpdate, text) =>
          notify("session/update", { sessionId: params.sessionId, update: { sessionUpdate, content: { type: "text", text } } });
        chunk("user_message_chunk", "earlier question");
        chunk("agent_message_chunk", "earlier ");
        chunk("agent_message_chunk", "answer");
      }
      return reply(msg.id, sessionConfig(params.sessionId));
    case "session/list":
      return reply(msg.id, {
        sessions: [...sessions].map(([sessionId, { cwd, additionalDirectories }]) => ({
          sessionId,
          cwd,
          additionalDirectories: additionalDirectories ?? [],
        })),
      });
    case "session/resume": {
      if (draft) resumeDraft(params);
      const session = sessions.get(params.sessionId);
      if (!session) return fail(msg.id, -32602, `unknown session ${params.sessionId}`);
      if (Array.isArray(params.additionalDirectories)) session.additionalDirectories = params.additionalDirectories;
      return reply(msg.id, sessionConfig(params.sessionId));
    }
    case "session/delete":
      if (sessions.get(params.sessionId)?.unsupported.includes("session/delete")) {
        return fail(msg.id, -32601, "Method not found: session/delete");
      }
      if (!sessions.delete(params.sessionId)) return fail(msg.id, -32602, `unknown session ${params.sessionId}`);
      return reply(msg.id, {});
    case "logout":
      loggedOut = true;
      return reply(msg.id, {});
    case "session/set_mode":
    case "session/set_model":
    case "session/set_config_option":
      return setConfig(msg);
    case "session/prompt":
      return runPrompt(msg).catch((e) => fail(msg.id, -32603, String(e?.stack ?? e)));
    case "_sandboxagent/session/list_models":
      return reply(msg.id, {
        currentModelId: "model-a",
        availableModels: [
          { modelId: "model-a", name: "Model A" },
          { modelId: "model-b", name: "Model B" },
        ],
      });
    case "_probe/echo":
      return reply(msg.id, msg.params);
    case "_probe/error": {
      const { code = -32000, message = "scripted error", data } = params;
      return fail(msg.id, code, message, data);
    }
    case "_probe/raw": {
      const lines = Array.isArray(params.lines) ? params.lines : [];
      for (const line of lines) writeLine(String(line));
      return reply(msg.id, { wrote: lines.length });
    }
    case "_probe/notify":
      notify(String(params.method ?? "_probe/notified"), params.params ?? {});
      return reply(msg.id, {});
    case "_probe/stderr": {
      const lines = intArg(String(params.lines ?? ""), 1);
      const text = typeof params.text === "string" ? params.text : "stderr line";
      for (let i = 0; i < lines; i++) process.stderr.write(`${text} ${i}\n`);
      return reply(msg.id, { wrote: lines });
    }
    case "_probe/initialize":
      return reply(msg.id, { clientCapabilities });
    case "_probe/env":
      return reply(msg.id, {
        argv: process.argv,
        cwd: process.cwd(),
        pid: process.pid,
        ppid: process.ppid,
        env: process.env,
      });
    default:
      return fail(msg.id, -32601, `Method not found: ${msg.method}`);
  }
}

/** The extensions this agent advertises, in the sandbox-agent namespace of its capabilities' _meta. */
const EXTENSIONS = {
  "sandboxagent.dev": {
    extensions: {
      sessionListModels: true,
      sessionSetMetadata: false,
      sessionDetach: false,
      sessionTerminate: false,
      sessionEndedNotification: true,
      methods: METHODS,
    },
  },
};

/** `initialize` asking for the ACP v2 draft: answered in the draft's shape, and spoken from now on. */
function initializeDraft(msg) {
  draft = true;
  return reply(msg.id, {
    protocolVersion: 2,
    info: { name: "scripted-agent", title: "Scripted Agent", version: "1.0.0" },
    capabilities: { session: { delete: {}, additionalDirectories: {} }, _meta: EXTENSIONS },
    authMethods: [],
    _meta: { seenClientMeta: msg.params?._meta ?? null },
  });
}

/**
 * v2 `session/resume`, before its answer: a session not known here is taken up (a new agent
 * process, as session/load does on v1); with `replayFrom`, the history replayed (when
 * SCRIPTED_AGENT_REPLAY_ON_LOAD=1), then the session's state as a snapshot.
 */
function resumeDraft(params) {
  const { sessionId } = params;
  if (typeof sessionId !== "string") return;
  if (!sessions.has(sessionId)) {
    const cwd = typeof params.cwd === "string" ? params.cwd : process.cwd();
    sessions.set(sessionId, { cwd, config: initialConfig(), unsupported: [] });
    idPrefixes.set(sessionId, `r${process.pid}-`);
  }
  if (params.replayFrom == null) return;
  if (replayOnLoad) {
    const message = (kind, messageId, text) =>
      update(sessionId, { sessionUpdate: kind, messageId, content: [{ type: "text", text }] });
    message("user_message", "earlier-user", "earlier question");
    message("agent_message", "earlier-agent", "earlier answer");
  }
  update(sessionId, { sessionUpdate: "state_update", state: "idle" });
}

function handleNotification(msg) {
  switch (msg.method) {
    case "session/cancel":
      for (const turn of turns.get(msg.params?.sessionId) ?? []) turn.cancel();
      return;
    case "_probe/ping":
      notify("_probe/pong", msg.params ?? {});
      return;
    default:
      return;
  }
}

const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  if (trace) process.stderr.write(`scripted-agent recv: ${line}\n`);
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return fail(null, -32700, "Parse error");
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return;
  const hasId = "id" in msg;
  if (typeof msg.method === "string") return hasId ? handleRequest(msg) : handleNotification(msg);
  if (hasId) {
    // The client's answer (result or error) to one of our agent->client requests.
    const resolve = awaitingClient.get(msg.id);
    if (resolve) {
      awaitingClient.delete(msg.id);
      resolve(msg.error === undefined ? { result: msg.result } : { error: msg.error });
    }
  }
});
input.on("close", () => {
  if (trace) process.stderr.write("scripted-agent: stdin closed, exiting\n");
  process.exit(0);
});
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(signal, () => process.exit(0));
}
