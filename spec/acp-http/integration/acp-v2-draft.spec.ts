// The ACP v2 draft (experimental) end to end: our client with `protocolVersion: 2` against the v2
// contract agent (spec/support/acp-v2-agent.ts: the official SDK's v2 agent app, served by its
// `AcpServer`), over Streamable HTTP and over WebSocket; and negotiation against the SDK's protocol
// router, which serves a v1 and a v2 agent on one endpoint.
import WebSocket from "ws";
import { agentProtocolRouter } from "@agentclientprotocol/sdk/experimental/v2";
import {
  AcpConnectionClosedError,
  AcpHttpClient,
  AcpRpcError,
  AcpTimeoutError,
  AcpUnsupportedError,
  RFD_PROFILE,
  isNotification,
  readSessionUpdate,
  type AcpEnvelope,
  type AcpHttpClientOptions,
  type AcpParseError,
  type V2SessionUpdate,
  type WebSocketConstructor,
} from "../../../lib/acp-http/index.js";
import { createTestAgent } from "../../support/acp-sdk-agent.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../support/acp-sdk-server.js";
import { waitFor } from "../../support/acp-http-helpers.js";
import { V2_AGENT_INFO, createV2Agent } from "../../support/acp-v2-agent.js";

const CWD = "/tmp";
const prompt = (sessionId: string, text: string) => ({ sessionId, prompt: [{ type: "text", text }] });

/** The session updates a client delivered, as v2 updates (undefined where one did not read). */
function updatesOf(envelopes: readonly AcpEnvelope[]): Array<V2SessionUpdate | undefined> {
  return envelopes
    .filter((e) => isNotification(e) && e.method === "session/update")
    .map((e) => readSessionUpdate((e as unknown as { params: { update: unknown } }).params.update, 2));
}
const isIdle = (u: V2SessionUpdate | undefined) => u?.sessionUpdate === "state_update" && u.state === "idle";

describe.each(["http", "websocket"] as const)("ACP v2 draft over %s, against the v2 contract agent", (transport) => {
  const clients: AcpHttpClient[] = [];
  let server: AcpSdkServer;

  beforeEach(async () => {
    server = await startAcpSdkServer({ createAgent: createV2Agent });
  });
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.disconnect()));
    await server.stop();
  });

  function connect(extra: Partial<AcpHttpClientOptions> = {}) {
    const client = new AcpHttpClient({
      baseUrl: server.baseUrl,
      ...RFD_PROFILE,
      protocolVersion: 2,
      closeTimeoutMs: 1000,
      ...(transport === "websocket"
        ? { transport: "websocket" as const, WebSocket: WebSocket as unknown as WebSocketConstructor }
        : {}),
      ...extra,
    });
    clients.push(client);
    const envelopes: AcpEnvelope[] = [];
    const parseErrors: AcpParseError[] = [];
    client.envelopes$.subscribe((e) => envelopes.push(e));
    client.parseErrors$.subscribe((e) => parseErrors.push(e));
    return { client, envelopes, parseErrors };
  }

  async function session(extra: Partial<AcpHttpClientOptions> = {}) {
    const c = connect(extra);
    const result = await c.client.initialize({}, { timeoutMs: 5000 });
    const { sessionId } = await c.client.newSession({ cwd: CWD, mcpServers: [] }, { timeoutMs: 5000 });
    return { ...c, result, sessionId };
  }

  it("negotiates version 2: the v2 shapes both ways", async () => {
    const { client, result } = await session();
    expect(client.protocolVersion).toBe(2);
    expect(result).toMatchObject({ protocolVersion: 2, info: V2_AGENT_INFO });
    expect(result.authMethods).toEqual([{ type: "agent", methodId: "token", name: "Token" }]);
  });

  it("resolves a prompt on its idle, after every update of the turn, with the acknowledged messageId", async () => {
    const { client, envelopes, sessionId, parseErrors } = await session();
    let seen: Array<V2SessionUpdate | undefined> = [];
    const result = await client
      .prompt(prompt(sessionId, "hello there"), { timeoutMs: 10_000 })
      .then((value) => ((seen = updatesOf(envelopes)), value));
    expect(result).toEqual({ stopReason: "end_turn", messageId: "user-1" });
    expect(seen.map((u) => u?.sessionUpdate)).toEqual([
      "user_message",
      "state_update",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message",
      "state_update",
    ]);
    expect(seen[0]).toMatchObject({ messageId: "user-1", content: [{ type: "text", text: "hello there" }] });
    expect(isIdle(seen.at(-1))).toBe(true);
    expect(seen[4]).toMatchObject({ messageId: "agent-1", content: [{ text: "echo: hello there" }] });
    expect(parseErrors).toEqual([]);
  });

  it("delivers the agent's own work between turns, and the next prompt still ends on its own idle", async () => {
    const { client, envelopes, sessionId } = await session();
    await client.prompt(prompt(sessionId, "LATER"), { timeoutMs: 10_000 });
    const idles = () => updatesOf(envelopes).filter(isIdle).length;
    await waitFor(() => idles() === 2, 5000, "the agent's own work to end");
    const later = updatesOf(envelopes).find(
      (u) => u?.sessionUpdate === "agent_message" && u.messageId.endsWith("later"),
    );
    expect(later).toMatchObject({ content: [{ text: "on my own" }] });
    const second = await client.prompt(prompt(sessionId, "again"), { timeoutMs: 10_000 });
    expect(second).toEqual({ stopReason: "end_turn", messageId: "user-2" });
    expect(idles()).toBe(3);
  });

  it("types the new tool call, diff, terminal and plan shapes", async () => {
    const { client, envelopes, sessionId, parseErrors } = await session();
    await client.prompt(prompt(sessionId, "TERMINAL"), { timeoutMs: 10_000 });
    const updates = updatesOf(envelopes);
    expect(updates.every((u) => u !== undefined)).toBe(true);
    const kinds = new Set(updates.map((u) => u?.sessionUpdate));
    for (const kind of ["plan_update", "tool_call_update", "tool_call_content_chunk", "terminal_update"]) {
      expect(kinds.has(kind as V2SessionUpdate["sessionUpdate"])).toBe(true);
    }
    const output = updates.find((u) => u?.sessionUpdate === "terminal_output_chunk");
    expect(Buffer.from((output as { data: string }).data, "base64").toString()).toBe("hi\n");
    const diff = updates.find((u) => u?.sessionUpdate === "tool_call_content_chunk" && u.content.type === "diff");
    expect(diff).toMatchObject({ toolCallId: "tc1", content: { changes: [{ operation: "modify" }] } });
    expect(parseErrors).toEqual([]);
  });

  it("resumes a session on another connection with replayFrom: the history first, then the answer", async () => {
    const first = await session();
    await first.client.prompt(prompt(first.sessionId, "one two"), { timeoutMs: 10_000 });
    const second = connect();
    await second.client.initialize({}, { timeoutMs: 5000 });
    let seen: Array<V2SessionUpdate | undefined> = [];
    await second.client
      .resumeSession({ sessionId: first.sessionId, cwd: CWD, replayFrom: { type: "start" } }, { timeoutMs: 10_000 })
      .then(() => (seen = updatesOf(second.envelopes)));
    expect(seen[0]).toMatchObject({ sessionUpdate: "user_message", messageId: "user-1" });
    expect(seen.some((u) => u?.sessionUpdate === "agent_message" && u.messageId === "agent-1")).toBe(true);
    // The current-state snapshot comes after the replay.
    expect(isIdle(seen.at(-1))).toBe(true);
    const next = await second.client.prompt(prompt(first.sessionId, "three"), { timeoutMs: 10_000 });
    expect(next).toEqual({ stopReason: "end_turn", messageId: "user-2" });
  });

  it("maps authenticate and logout to auth/login and auth/logout", async () => {
    const { client } = await session();
    await expect(client.authenticate({ methodId: "token" }, { timeoutMs: 5000 })).resolves.toBeDefined();
    await client.logout({}, { timeoutMs: 5000 });
    expect(server.log.logouts).toBe(1);
  });

  it("ends prompts with the typed errors: refused, cancelled, timed out, closed; v1-only methods unsent", async () => {
    const { client, sessionId, envelopes } = await session();
    // A SLOW turn is under way once its first tick arrived (the agent then stops at the next tick).
    const ticks = () => updatesOf(envelopes).filter((u) => u?.sessionUpdate === "agent_message_chunk").length;
    const ticking = (after: number) => waitFor(() => ticks() > after, 5000, "a SLOW turn's tick");
    await expect(client.prompt(prompt(sessionId, "REFUSE"), { timeoutMs: 5000 })).rejects.toBeInstanceOf(AcpRpcError);
    await expect(client.loadSession({ sessionId, cwd: CWD, mcpServers: [] })).rejects.toBeInstanceOf(
      AcpUnsupportedError,
    );

    const slow = client.prompt(prompt(sessionId, "SLOW"), { timeoutMs: 10_000 });
    await ticking(0);
    await client.cancel({ sessionId });
    await expect(slow).resolves.toMatchObject({ stopReason: "cancelled" });

    await expect(client.prompt(prompt(sessionId, "SLOW"), { timeoutMs: 300 })).rejects.toBeInstanceOf(AcpTimeoutError);
    await client.cancel({ sessionId });

    const before = ticks();
    const closing = client.prompt(prompt(sessionId, "SLOW"), { timeoutMs: 10_000 }).catch((e: unknown) => e);
    await ticking(before);
    await client.disconnect();
    expect(await closing).toBeInstanceOf(AcpConnectionClosedError);
  });

  it("reports a malformed update on parseErrors$, keeps it on envelopes$, and the turn still ends", async () => {
    const { client, envelopes, sessionId, parseErrors } = await session();
    const result = await client.prompt(prompt(sessionId, "MALFORMED"), { timeoutMs: 10_000 });
    expect(result.stopReason).toBe("end_turn");
    expect(parseErrors).toHaveLength(1);
    expect(parseErrors[0]!.error).toContain("agent_message_chunk: messageId");
    expect(updatesOf(envelopes).filter((u) => u === undefined)).toHaveLength(1);
  });
});

describe("ACP v2 draft: negotiation against the SDK's protocol router (v1 and v2 on one endpoint)", () => {
  let server: AcpSdkServer;
  const clients: AcpHttpClient[] = [];

  beforeEach(async () => {
    server = await startAcpSdkServer({
      createAgent: (log) => agentProtocolRouter().withV1(createTestAgent(log)).withV2(createV2Agent(log)),
    });
  });
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.disconnect()));
    await server.stop();
  });

  const connect = (protocolVersion?: 1 | 2) => {
    const options = { baseUrl: server.baseUrl, ...RFD_PROFILE, closeTimeoutMs: 1000 };
    const client = new AcpHttpClient(protocolVersion ? { ...options, protocolVersion } : options);
    clients.push(client);
    return client;
  };

  it("speaks 2 to it when asked for 2, and 1 by default", async () => {
    const v2 = connect(2);
    const v1 = connect();
    await v2.initialize({}, { timeoutMs: 5000 });
    await v1.initialize({}, { timeoutMs: 5000 });
    expect([v2.protocolVersion, v1.protocolVersion]).toEqual([2, 1]);
    const s2 = await v2.newSession({ cwd: CWD, mcpServers: [] });
    const s1 = await v1.newSession({ cwd: CWD, mcpServers: [] });
    expect((await v2.prompt(prompt(s2.sessionId, "hi"), { timeoutMs: 10_000 })).messageId).toBe("user-1");
    expect((await v1.prompt(prompt(s1.sessionId, "hi"), { timeoutMs: 10_000 })).stopReason).toBe("end_turn");
  });
});
