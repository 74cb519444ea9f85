// The ACP v2 draft (experimental, opt-in with `protocolVersion: 2`) against the fake server: what
// `initialize` sends and how the answer decides the version, a prompt that ends on its session's idle
// (after every update before it), the ways a waiting prompt ends early, methods a version lacks, and
// malformed v2 updates.
import {
  AcpAbortError,
  AcpConnectionClosedError,
  AcpInterruptedError,
  AcpProtocolVersionError,
  AcpRpcError,
  AcpTimeoutError,
  AcpUnsupportedError,
  isNotification,
  readSessionUpdate,
  type AcpEnvelope,
  type AcpParseError,
} from "../../../lib/acp-http/index.js";
import { waitFor } from "../../support/acp-http-helpers.js";
import { draftUpdateReading } from "../../support/draft-update-schema.js";
import { bodyOf, jsonResponse, rpcResult, type FakeSseStream } from "../../support/fake-acp-server.js";
import { PROMPT, bootstrap, createHarness, disconnectAll, watch, type Harness } from "./client-harness.js";

afterEach(disconnectAll);

const update = (sessionUpdate: string, fields: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "s1", update: { sessionUpdate, ...fields } },
});
const idle = (stopReason?: string) => update("state_update", { state: "idle", ...(stopReason ? { stopReason } : {}) });
const running = () => update("state_update", { state: "running" });

/** A v2 client whose fake agent answers initialize with `answered`, a prompt with `messageId`, the rest `{}`. */
function v2Harness(answered: unknown = 2, onPrompt?: (id: unknown) => Response | Promise<Response>): Harness {
  const h = createHarness({ protocolVersion: 2 });
  h.server.onPost = (request) => {
    const message = bodyOf(request);
    if (message.method === "initialize") {
      return rpcResult(message.id, { protocolVersion: answered, info: { name: "a", version: "1" } });
    }
    if (message.method === "session/prompt") {
      return onPrompt ? onPrompt(message.id) : rpcResult(message.id, { messageId: "m1" });
    }
    return rpcResult(message.id, {});
  };
  return h;
}

const sent = (h: Harness) => h.server.requestsOf("POST").map((request) => bodyOf(request));
const updatesIn = (envelopes: readonly AcpEnvelope[]) =>
  envelopes.filter((e) => isNotification(e) && e.method === "session/update").length;
const ackDelivered = (h: Harness) =>
  h.envelopes.some((e) => "result" in e && (e.result as { messageId?: unknown })?.messageId === "m1");

describe("AcpHttpClient on the ACP v2 draft: initialize", () => {
  it("sends the v2 shape (info, capabilities) and speaks the version the agent answered", async () => {
    const h = v2Harness(2);
    const h2 = createHarness({ protocolVersion: 2, handlers: { createElicitation: () => ({ action: "decline" }) } });
    const answer = { protocolVersion: 2, info: { name: "a", version: "1" } };
    h2.server.onPost = (request) => rpcResult(bodyOf(request).id, answer);
    expect(h.client.protocolVersion).toBe(2);
    const result = await h.client.initialize();
    await h2.client.initialize();
    expect(result.info).toEqual({ name: "a", version: "1" });
    expect(h.client.protocolVersion).toBe(2);
    const params = sent(h)[0]!.params as Record<string, unknown>;
    const info = { name: "sandbox-agent-rx", version: "0.1.0" };
    expect(params).toEqual({ protocolVersion: 2, info, capabilities: {} });
    const elicitation = { form: {}, url: {} };
    expect((sent(h2)[0]!.params as Record<string, unknown>).capabilities).toEqual({ elicitation });
  });

  it("speaks v1 to an agent that answers 1 when asked for 2: the prompt ends with its answer", async () => {
    const h = createHarness({ protocolVersion: 2 });
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      const answer = message.method === "initialize" ? { protocolVersion: 1 } : { stopReason: "end_turn" };
      return rpcResult(message.id, answer);
    };
    await h.client.initialize();
    expect(h.client.protocolVersion).toBe(1);
    await expect(h.client.prompt(PROMPT)).resolves.toMatchObject({ stopReason: "end_turn" });
  });

  it.each([
    [2, 3],
    [2, 0],
    [2, "two"],
  ])("asked for %p, refuses an answer of %p with AcpProtocolVersionError and closes", async (asked, answered) => {
    const h = createHarness({ protocolVersion: asked });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: answered });
    const error = await h.client.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AcpProtocolVersionError);
    expect(error).toMatchObject({ kind: "protocol", requested: asked, answered });
    expect((await h.client.closed).reason).toBe("initialize-failed");
  });

  it("asks for v2 with the option 2 or \"2\"; any other value is read as 1", () => {
    expect(createHarness({ protocolVersion: "2" }).client.protocolVersion).toBe(2);
    expect(createHarness({ protocolVersion: 3 }).client.protocolVersion).toBe(1);
  });
});

describe("AcpHttpClient on the ACP v2 draft: a prompt ends on its session's idle", () => {
  let h: Harness;
  let stream: FakeSseStream;

  async function start(onPrompt?: (id: unknown) => Response | Promise<Response>): Promise<void> {
    h = v2Harness(2, onPrompt);
    stream = await bootstrap(h);
  }

  /** The prompt is still waiting; the idle sent next (event `eventId`) ends it with `end_turn`. */
  async function endsOnlyWithIdle(state: ReturnType<typeof watch<unknown>>, eventId: number): Promise<void> {
    expect(state.settled).toBe(false);
    stream.send(eventId, idle("end_turn"));
    await waitFor(() => state.settled, 2000, "the prompt");
    expect(state.value).toEqual({ stopReason: "end_turn", messageId: "m1" });
  }

  it("resolves with the idle's stop reason and the acknowledged messageId, after every update", async () => {
    await start();
    const prompt = h.client.prompt(PROMPT);
    const state = watch(prompt);
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    expect(state.settled).toBe(false);
    stream.send(1, update("user_message", { messageId: "m1", content: [{ type: "text", text: "hi" }] }));
    stream.send(2, update("state_update", { state: "running" }));
    stream.send(3, update("agent_message_chunk", { messageId: "a1", content: { type: "text", text: "yo" } }));
    stream.send(4, update("tool_call_update", { toolCallId: "t1", status: "completed" }));
    await waitFor(() => updatesIn(h.envelopes) === 4, 2000, "four updates");
    expect(state.settled).toBe(false);
    let seenAtResolve = -1;
    const resolved = prompt.then((value) => {
      seenAtResolve = updatesIn(h.envelopes);
      return value;
    });
    // The idle is the fifth update, sent last: every update is delivered before the prompt resolves.
    stream.send(5, idle("end_turn"));
    expect(await resolved).toEqual({ stopReason: "end_turn", messageId: "m1" });
    expect(seenAtResolve).toBe(5);
  });

  it("ends the turn with an idle that came before the acknowledgement, after the echo of its message", async () => {
    await start(async (id) => {
      stream.send(1, update("user_message", { messageId: "m1" }));
      stream.send(2, running());
      stream.send(3, idle("max_tokens"));
      await waitFor(() => updatesIn(h.envelopes) === 3, 2000, "the echo, running and the idle");
      return rpcResult(id, { messageId: "m1" });
    });
    await expect(h.client.prompt(PROMPT, { timeoutMs: 5000 })).resolves.toMatchObject({ stopReason: "max_tokens" });
  });

  it("does not end the turn with an idle of earlier work (before its message was echoed)", async () => {
    await start(async (id) => {
      stream.send(1, running());
      stream.send(2, idle("end_turn"));
      await waitFor(() => updatesIn(h.envelopes) === 2, 2000, "the earlier work and its idle");
      return rpcResult(id, { messageId: "m1" });
    });
    const state = watch(h.client.prompt(PROMPT));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    stream.send(3, update("user_message", { messageId: "m1" }));
    stream.send(4, running());
    await waitFor(() => updatesIn(h.envelopes) === 4, 2000, "the echo and running");
    expect(state.settled).toBe(false);
    stream.send(5, update("state_update", { state: "idle", stopReason: "error", error: { code: -1, message: "x" } }));
    await waitFor(() => state.settled, 2000, "the prompt");
    expect(state.value).toEqual({ stopReason: "error", messageId: "m1", error: { code: -1, message: "x" } });
  });

  it("resolves `unreported` for an idle without a stop reason, and ignores another session's idle", async () => {
    await start();
    const state = watch(h.client.prompt(PROMPT));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    const otherIdle = { sessionId: "s2", update: { sessionUpdate: "state_update", state: "idle" } };
    stream.send(1, running());
    stream.send(2, { ...idle("end_turn"), params: otherIdle });
    await waitFor(() => updatesIn(h.envelopes) === 2, 2000, "the other session's idle");
    expect(state.settled).toBe(false);
    stream.send(3, idle());
    await waitFor(() => state.settled, 2000, "the prompt");
    expect(state.value).toEqual({ stopReason: "unreported", messageId: "m1" });
  });

  it("does not end the turn with a repeated idle snapshot, after the acknowledgement or before it", async () => {
    await start();
    const state = watch(h.client.prompt(PROMPT));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    // A background task ended while the session was idle: the same state again, with its new list.
    stream.send(1, update("state_update", { state: "idle", background: [] }));
    await waitFor(() => updatesIn(h.envelopes) === 1, 2000, "the snapshot");
    stream.send(2, update("user_message", { messageId: "m1" }));
    stream.send(3, running());
    await waitFor(() => updatesIn(h.envelopes) === 3, 2000, "the echo and running");
    await endsOnlyWithIdle(state, 4);
  });

  it("does not end the turn with an idle snapshot after its echo and before the acknowledgement", async () => {
    await start(async (id) => {
      stream.send(1, update("user_message", { messageId: "m1" }));
      stream.send(2, update("state_update", { state: "idle", background: [] }));
      await waitFor(() => updatesIn(h.envelopes) === 2, 2000, "the echo and the snapshot");
      return rpcResult(id, { messageId: "m1" });
    });
    const state = watch(h.client.prompt(PROMPT));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    stream.send(3, running());
    await waitFor(() => updatesIn(h.envelopes) === 3, 2000, "running");
    await endsOnlyWithIdle(state, 4);
  });

  it("ends the turn at the first idle when the session was already at work as the prompt was sent", async () => {
    await start();
    stream.send(1, running());
    await waitFor(() => updatesIn(h.envelopes) === 1, 2000, "running");
    const state = watch(h.client.prompt(PROMPT));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    stream.send(2, idle("end_turn"));
    await waitFor(() => state.settled, 2000, "the prompt");
    expect(state.value).toEqual({ stopReason: "end_turn", messageId: "m1" });
  });

  it("ends the turn at an idle whose _meta is malformed (read as absent, nothing reported)", async () => {
    await start((id) => rpcResult(id, { messageId: "m1", _meta: "also malformed" }));
    const errors: AcpParseError[] = [];
    h.client.parseErrors$.subscribe((error) => errors.push(error));
    const state = watch(h.client.prompt(PROMPT));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    stream.send(1, update("user_message", { messageId: "m1" }));
    stream.send(2, running());
    stream.send(3, update("state_update", { state: "idle", stopReason: "end_turn", _meta: "oops" }));
    await waitFor(() => state.settled, 2000, "the prompt");
    expect(state.value).toEqual({ stopReason: "end_turn", messageId: "m1" });
    expect(errors).toEqual([]);
  });

  it("ends a waiting turn as cancelled when its session is closed or deleted", async () => {
    await start();
    const closed = watch(h.client.prompt(PROMPT));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    stream.send(1, update("user_message", { messageId: "m1" }));
    await waitFor(() => updatesIn(h.envelopes) === 1, 2000, "the echo");
    await h.client.closeSession({ sessionId: "s1" });
    await waitFor(() => closed.settled, 2000, "the closed session's prompt");
    expect(closed.value).toEqual({ stopReason: "cancelled", messageId: "m1" });

    const deleted = watch(h.client.prompt(PROMPT));
    await waitFor(() => sent(h).filter((m) => m.method === "session/prompt").length === 2, 2000, "the prompt");
    await h.client.deleteSession({ sessionId: "s1" });
    await waitFor(() => deleted.settled, 2000, "the deleted session's prompt");
    expect(deleted.value).toEqual({ stopReason: "cancelled", messageId: "m1" });
  });

  it("ends a waiting turn as cancelled when the agent answers its session's close with -32002", async () => {
    await start();
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "session/prompt") return rpcResult(message.id, { messageId: "m1" });
      return jsonResponse({ jsonrpc: "2.0", id: message.id, error: { code: -32002, message: "unknown session" } });
    };
    const state = watch(h.client.prompt(PROMPT));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    await expect(h.client.closeSession({ sessionId: "s1" })).rejects.toBeInstanceOf(AcpRpcError);
    await waitFor(() => state.settled, 2000, "the prompt");
    expect(state.value).toEqual({ stopReason: "cancelled", messageId: "m1" });
  });

  it("tells the agent session/cancel when a prompt is given up after its acknowledgement", async () => {
    h = createHarness({ protocolVersion: 2, cancelRequests: true });
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "initialize") return rpcResult(message.id, { protocolVersion: 2 });
      if (message.method === "session/prompt") return rpcResult(message.id, { messageId: "m1" });
      return rpcResult(message.id ?? null, {});
    };
    await bootstrap(h);
    const controller = new AbortController();
    const state = watch(h.client.prompt(PROMPT, { signal: controller.signal }));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    controller.abort();
    await waitFor(() => state.settled, 2000, "the aborted prompt");
    expect(state.error).toBeInstanceOf(AcpAbortError);
    await waitFor(() => sent(h).some((m) => m.method === "session/cancel"), 2000, "session/cancel");
    expect(sent(h).find((m) => m.method === "session/cancel")!.params).toEqual({ sessionId: "s1" });
  });

  it("fails at once when the agent refuses the prompt", async () => {
    await start((id) => jsonResponse({ jsonrpc: "2.0", id, error: { code: -32602, message: "no" } }));
    await expect(h.client.prompt(PROMPT)).rejects.toBeInstanceOf(AcpRpcError);
  });

  it("ends a waiting prompt with AcpAbortError, AcpTimeoutError or AcpConnectionClosedError", async () => {
    await start();
    const controller = new AbortController();
    const aborted = watch(h.client.prompt(PROMPT, { signal: controller.signal }));
    await waitFor(() => ackDelivered(h), 2000, "the acknowledgement");
    controller.abort();
    await waitFor(() => aborted.settled, 2000, "the aborted prompt");
    expect(aborted.error).toBeInstanceOf(AcpAbortError);

    const timedOut = await h.client.prompt(PROMPT, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(AcpTimeoutError);

    const closed = watch(h.client.prompt(PROMPT));
    await waitFor(() => h.server.requestsOf("POST").length === 4, 2000, "the third prompt");
    await h.client.disconnect();
    await waitFor(() => closed.settled, 2000, "the closed prompt");
    expect(closed.error).toBeInstanceOf(AcpConnectionClosedError);
  });
});

describe("AcpHttpClient on the ACP v2 draft: methods by version", () => {
  it("sends auth/login, auth/logout, session/resume with replayFrom, tool_call/cancel, terminal/cancel", async () => {
    const h = v2Harness();
    await h.client.initialize();
    await h.client.authenticate({ methodId: "m" });
    await h.client.logout();
    await h.client.resumeSession({ sessionId: "s1", cwd: "/w", replayFrom: { type: "start" } });
    await h.client.cancelToolCall({ sessionId: "s1", toolCallId: "t1" });
    await h.client.cancelTerminal({ sessionId: "s1", terminalId: "x1" });
    expect(sent(h).slice(1).map(({ method, params }) => [method, params])).toEqual([
      ["auth/login", { methodId: "m" }],
      ["auth/logout", {}],
      ["session/resume", { sessionId: "s1", cwd: "/w", replayFrom: { type: "start" } }],
      ["tool_call/cancel", { sessionId: "s1", toolCallId: "t1" }],
      ["terminal/cancel", { sessionId: "s1", terminalId: "x1" }],
    ]);
  });

  it("refuses v1-only methods on v2, and v2-only ones (and replayFrom) on v1, sending nothing", async () => {
    const h2 = v2Harness();
    await h2.client.initialize();
    const h1 = createHarness();
    await h1.client.initialize();
    const errorOf = (call: Promise<unknown>) => call.then(() => undefined, (error: unknown) => error);
    const onV2 = await Promise.all([
      errorOf(h2.client.loadSession({ sessionId: "s1", cwd: "/w", mcpServers: [] })),
      errorOf(h2.client.setSessionMode({ sessionId: "s1", modeId: "x" })),
      errorOf(h2.client.unstableForkSession({ sessionId: "s1", cwd: "/w" })),
    ]);
    const onV1 = await Promise.all([
      errorOf(h1.client.cancelToolCall({ sessionId: "s1", toolCallId: "t" })),
      errorOf(h1.client.cancelTerminal({ sessionId: "s1", terminalId: "t" })),
      errorOf(h1.client.resumeSession({ sessionId: "s1", cwd: "/w", replayFrom: { type: "start" } })),
    ]);
    for (const error of [...onV2, ...onV1]) expect(error).toBeInstanceOf(AcpUnsupportedError);
    const methodsOf = (errors: unknown[]) => errors.map((error) => (error as AcpUnsupportedError).method);
    expect(methodsOf(onV2)).toEqual(["session/load", "session/set_mode", "session/fork"]);
    expect(methodsOf(onV1)).toEqual([
      "tool_call/cancel",
      "terminal/cancel",
      "session/resume",
    ]);
    expect(sent(h2).map(({ method }) => method)).toEqual(["initialize"]);
    expect(sent(h1).map(({ method }) => method)).toEqual(["initialize"]);
  });
});

describe("AcpHttpClient on the ACP v2 draft: updates", () => {
  it("reads a null or malformed _meta as absent and skips invalid content items, reporting nothing", async () => {
    const h = v2Harness();
    const errors: AcpParseError[] = [];
    h.client.parseErrors$.subscribe((error) => errors.push(error));
    const stream = await bootstrap(h);
    stream.send(1, update("usage_update", { used: 1, size: 2, _meta: null }));
    const content = [{ type: "text", text: "ok" }, { text: "no type" }];
    stream.send(2, update("agent_message", { messageId: "a1", content }));
    await waitFor(() => updatesIn(h.envelopes) === 2, 2000, "two updates");
    expect(errors).toEqual([]);
    const [usage, message] = h.envelopes
      .map((e) => (e as { params?: { update?: unknown } }).params?.update)
      .filter(Boolean);
    expect(readSessionUpdate(usage, 2)).toMatchObject({ sessionUpdate: "usage_update", used: 1 });
    expect(readSessionUpdate(message, 2)).toMatchObject({ content: [{ type: "text", text: "ok" }] });
  });

  it("reports a malformed v2 update on parseErrors$, keeps it on envelopes$, reads good ones typed", async () => {
    const h = v2Harness();
    const errors: AcpParseError[] = [];
    h.client.parseErrors$.subscribe((error) => errors.push(error));
    const stream = await bootstrap(h);
    stream.send(1, update("agent_message_chunk", { content: { type: "text", text: "no id" } }));
    stream.send(2, update("terminal_output_chunk", { terminalId: "x1", data: "aGk=" }));
    stream.send(3, update("some_future_kind", { anything: 1 }));
    await waitFor(() => updatesIn(h.envelopes) === 3, 2000, "three updates");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toContain("agent_message_chunk: messageId");
    const updates = h.envelopes
      .map((e) => (e as { params?: { update?: unknown } }).params?.update)
      .filter(Boolean);
    expect(readSessionUpdate(updates[0], 2)).toBeUndefined();
    expect(readSessionUpdate(updates[1], 2)).toMatchObject({ sessionUpdate: "terminal_output_chunk", data: "aGk=" });
    expect(readSessionUpdate(updates[2], 2)).toBeUndefined();
    // The stable reader does not know the v2 kinds.
    expect(readSessionUpdate(updates[1])).toBeUndefined();
  });
});

describe("readSessionUpdate on the ACP v2 draft: each kind read as the draft's schema reads it", () => {
  const text = (t: string) => ({ type: "text", text: t });
  const step = (content: string) => ({ content, priority: "high", status: "pending" });
  const cases: Array<[string, Record<string, unknown>]> = [
    ["a null _meta", { sessionUpdate: "agent_thought", messageId: "t1", _meta: null }],
    ["a _meta that is no object", { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", _meta: 1 }],
    ["a stop reason that is no string", { sessionUpdate: "state_update", state: "idle", stopReason: 5 }],
    ["a state update without state", { sessionUpdate: "state_update", stopReason: "end_turn" }],
    ["invalid content items", { sessionUpdate: "agent_message", messageId: "m", content: [{ text: "x" }, text("k")] }],
    ["a text block without text", {
      sessionUpdate: "user_message",
      messageId: "u",
      content: [{ type: "text" }, text("k")],
    }],
    ["an upsert without messageId", { sessionUpdate: "agent_message", content: [text("x")] }],
    ["a content chunk without content", { sessionUpdate: "tool_call_content_chunk", toolCallId: "c1" }],
    ["a terminal's fields", {
      sessionUpdate: "terminal_update",
      terminalId: "t",
      command: "ls",
      cwd: "/w",
      output: { data: "aGk" },
      exitStatus: { exitCode: 0, signal: null },
      size: { cols: 80, rows: 24 },
    }],
    ["a terminal's malformed fields", {
      sessionUpdate: "terminal_update",
      terminalId: "t",
      cwd: 5,
      size: { cols: "80" },
    }],
    ["unpadded terminal output", { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "aGk" }],
    ["an items plan", { sessionUpdate: "plan_update", plan: { type: "items", planId: "p", entries: [step("a")] } }],
    ["an items plan's invalid entries", {
      sessionUpdate: "plan_update",
      plan: { type: "items", planId: "p", entries: [{ content: "no status" }, step("b")] },
    }],
    ["an items plan without entries", { sessionUpdate: "plan_update", plan: { type: "items", planId: "p" } }],
    ["an items plan without planId", { sessionUpdate: "plan_update", plan: { type: "items", entries: [] } }],
    ["another plan type", { sessionUpdate: "plan_update", plan: { type: "_board", planId: "b", columns: 3 } }],
    ["another plan type without planId", { sessionUpdate: "plan_update", plan: { type: "_board" } }],
  ];

  const MALFORMED = new Set([
    "a state update without state",
    "an upsert without messageId",
    "a content chunk without content",
    "an items plan without entries",
    "an items plan without planId",
    "another plan type without planId",
  ]);

  it.each(cases)("%s: malformed or read exactly as the SDK's schema says", (name, update) => {
    const expected = draftUpdateReading(update);
    expect(expected === undefined).toBe(MALFORMED.has(name));
    expect(readSessionUpdate(update, 2)).toEqual(expected);
  });

  it("takes terminal bytes that are not base64 as malformed in a chunk, as left out in a terminal's output", () => {
    // The schema says base64 (`contentEncoding`) without checking it; bytes that are not are no output.
    const chunk = { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "%%%" };
    expect(readSessionUpdate(chunk, 2)).toBeUndefined();
    const update = { sessionUpdate: "terminal_update", terminalId: "t", output: { data: "%%%" }, exitStatus: {} };
    expect(readSessionUpdate(update, 2)).toEqual({ sessionUpdate: "terminal_update", terminalId: "t", exitStatus: {} });
  });
});

describe("AcpHttpClient on the ACP v2 draft: recovery", () => {
  it("speaks the version the rebuilt agent answers: v1 there, the prompt ends with its answer", async () => {
    const h = createHarness({ recover: true, protocolVersion: 2 });
    let generation = 0;
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "initialize") {
        generation += 1;
        return rpcResult(message.id, { protocolVersion: generation === 1 ? 2 : 1 });
      }
      if (message.method === "_x/lost" && generation === 1) return new Response(null, { status: 404 });
      if (message.method === "session/prompt") return rpcResult(message.id, { stopReason: "end_turn" });
      return rpcResult(message.id, {});
    };
    await bootstrap(h);
    expect(h.client.protocolVersion).toBe(2);
    await expect(h.client.request("_x/lost", {})).rejects.toBeInstanceOf(AcpInterruptedError);
    await h.client.request("_x/after", {});
    expect(generation).toBe(2);
    expect(h.client.protocolVersion).toBe(1);
    await expect(h.client.prompt(PROMPT, { timeoutMs: 2000 })).resolves.toEqual({ stopReason: "end_turn" });
  });
});
