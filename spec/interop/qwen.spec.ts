/**
 * The protocol client against a server nobody on this project wrote: qwen-code's
 * `qwen serve` (0.24.4), which speaks the ACP streamable HTTP RFD profile at /acp.
 * The model behind it is the loopback fake in spec/support (SLOW, TOOLCALL switches).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { filter, firstValueFrom, type Subscription } from "rxjs";
import {
  AcpConnectionClosedError,
  AcpHttpError,
  RFD_PROFILE,
  isNotification,
  isRequest,
  isResponse,
  type AcpHttpClient,
  type AcpEnvelope,
  type AcpNotification,
  type RequestPermissionParams,
} from "../../lib/acp-http/index.js";
import { FAKE_REPLY_MARKER, FAKE_TOOLCALL_CONTENT, FAKE_TOOLCALL_FILE } from "../support/fake-openai.js";
import { QWEN_INSTALL_TIMEOUT_MS, qwenCliEntry, type QwenServe } from "../support/qwen-server.js";
import { qwenForBlock } from "./support/qwen-block.js";
import { startSessionCutProxy, type SessionCutProxy } from "./support/session-cut-proxy.js";

const TOKEN = "interop-secret-7f3a9c1e5b";
const CONNECTION_HEADER = RFD_PROFILE.connectionIdHeader;

interface Recorder {
  readonly all: AcpEnvelope[];
  stop(): void;
}

function record(client: AcpHttpClient): Recorder {
  const all: AcpEnvelope[] = [];
  const subscription: Subscription = client.envelopes$.subscribe((envelope) => all.push(envelope));
  return { all, stop: () => subscription.unsubscribe() };
}

interface UpdateParams {
  sessionId?: string;
  update?: { sessionUpdate?: string; content?: { type?: string; text?: string } };
}

interface NotifyParams {
  kind?: string;
  data?: Record<string, unknown>;
}

const updates = (envelopes: readonly AcpEnvelope[], sessionId: string): UpdateParams[] =>
  envelopes
    .filter((e): e is AcpNotification => isNotification(e) && e.method === "session/update")
    .map((e) => e.params as UpdateParams)
    .filter((p) => p.sessionId === sessionId);

const agentChunks = (envelopes: readonly AcpEnvelope[], sessionId: string): string[] =>
  updates(envelopes, sessionId)
    .filter((p) => p.update?.sessionUpdate === "agent_message_chunk")
    .map((p) => p.update?.content?.text ?? "");

const vendorNotifies = (envelopes: readonly AcpEnvelope[], kind?: string): NotifyParams[] =>
  envelopes
    .filter((e): e is AcpNotification => isNotification(e) && e.method === "_qwen/notify")
    .map((e) => (e.params ?? {}) as NotifyParams)
    .filter((p) => kind === undefined || p.kind === kind);

const firstAgentChunk = (client: AcpHttpClient, sessionId: string): Promise<AcpEnvelope> =>
  firstValueFrom(
    client.envelopes$.pipe(
      filter((e) => {
        if (!isNotification(e) || e.method !== "session/update") return false;
        const p = e.params as UpdateParams;
        return p.sessionId === sessionId && p.update?.sessionUpdate === "agent_message_chunk" && Boolean(p.update.content?.text);
      }),
    ),
  );

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const rawPost = (server: QwenServe, connectionId: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${server.baseUrl}${RFD_PROFILE.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", [CONNECTION_HEADER]: connectionId, ...headers },
    body: JSON.stringify(body),
  });

// qwen-code is installed on demand (once per machine); its own hook, so the install is outside the start deadline.
beforeAll(() => qwenCliEntry(), QWEN_INSTALL_TIMEOUT_MS);

describe("interop: qwen serve 0.24.4 (ACP streamable HTTP RFD profile)", () => {
  const { server, connect } = qwenForBlock();
  let proxy: SessionCutProxy;

  beforeAll(async () => {
    proxy = await startSessionCutProxy(server().baseUrl, RFD_PROFILE.sessionStreams.header);
  });

  // After the block's own afterAll: its clients, some of them behind the proxy, are gone by then.
  afterAll(() => proxy?.stop());

  it("initialize learns the connection id; a prompt streams chunks on envelopes$ before it resolves end_turn", async () => {
    const client = connect();
    const init = await client.initialize();
    expect(init.protocolVersion).toBe(1);
    expect(client.connectionId).toMatch(/^[0-9a-f-]{36}$/);

    const session = await client.newSession({ cwd: server().workspace, mcpServers: [] });
    expect(typeof session.sessionId).toBe("string");
    // qwen lists modes and models by `id` only, without display names; the result still parses.
    expect(session.modes?.availableModes.map((mode) => mode.id)).toEqual(expect.arrayContaining(["default", "auto"]));
    expect(session.models?.availableModels.length).toBeGreaterThan(0);

    const seen = record(client);
    let textAtResolve = "";
    const result = await client.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "hello interop world" }] }).then((r) => {
      textAtResolve = agentChunks(seen.all, session.sessionId).join("");
      return r;
    });
    expect(result.stopReason).toBe("end_turn");
    expect(textAtResolve).toBe(`${FAKE_REPLY_MARKER} hello interop world`);
    expect(agentChunks(seen.all, session.sessionId).filter(Boolean).length).toBeGreaterThan(1);
    // The prompt's own reply went through envelopes$ once, before the promise resolved.
    expect(seen.all.filter((e) => isResponse(e) && (e.result as { stopReason?: unknown } | undefined)?.stopReason === "end_turn")).toHaveLength(1);
    const echo = updates(seen.all, session.sessionId).filter((p) => p.update?.sessionUpdate === "user_message_chunk");
    expect(echo).toHaveLength(1);
    seen.stop();
  });

  it("vendor notifications (_qwen/notify) arrive on envelopes$ as ordinary notifications", async () => {
    const client = connect();
    await client.initialize();
    const session = await client.newSession({ cwd: server().workspace, mcpServers: [] });
    const seen = record(client);
    await client.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "vendor notify please" }] });
    await waitFor(() => vendorNotifies(seen.all, "turn_complete").length > 0, 10_000, "_qwen/notify turn_complete");
    const notify = seen.all.find((e) => isNotification(e) && e.method === "_qwen/notify");
    expect(notify && isNotification(notify) && !isRequest(notify)).toBe(true);
    // The session stream was opened with Last-Event-ID 0: the server closes its replay with replay_complete.
    expect(vendorNotifies(seen.all, "turn_complete")).toHaveLength(1);
    seen.stop();
  });

  it("a permission request is answered by handlers.requestPermission and the tool runs", async () => {
    const asked: RequestPermissionParams[] = [];
    const client = connect({
      handlers: {
        requestPermission: (params) => {
          asked.push(params);
          const once = params.options.find((option) => option.kind === "allow_once");
          return once ? { outcome: { outcome: "selected", optionId: once.optionId } } : { outcome: { outcome: "cancelled" } };
        },
      },
    });
    await client.initialize();
    const session = await client.newSession({ cwd: server().workspace, mcpServers: [] });
    // qwen starts sessions in mode `auto`, which writes without asking.
    await client.setSessionConfigOption({ sessionId: session.sessionId, configId: "mode", value: "default" });

    const seen = record(client);
    const result = await client.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "TOOLCALL write the file" }] });
    expect(result.stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.sessionId).toBe(session.sessionId);
    expect(asked[0]?.options.map((o) => o.kind).sort()).toEqual(["allow_always", "allow_once", "reject_once"]);
    const requests = seen.all.filter((e) => isRequest(e) && e.method === "session/request_permission");
    expect(requests).toHaveLength(1);
    const written = join(server().workspace, FAKE_TOOLCALL_FILE);
    expect(existsSync(written)).toBe(true);
    expect(readFileSync(written, "utf8")).toBe(FAKE_TOOLCALL_CONTENT);
    const toolUpdates = updates(seen.all, session.sessionId).filter((p) => p.update?.sessionUpdate === "tool_call_update");
    expect(toolUpdates.some((p) => (p.update as { status?: unknown } | undefined)?.status === "completed")).toBe(true);
    seen.stop();
  });

  it("session/cancel during a slow prompt ends the turn with stopReason cancelled", async () => {
    const client = connect();
    await client.initialize();
    const session = await client.newSession({ cwd: server().workspace, mcpServers: [] });
    const seen = record(client);
    const chunk = firstAgentChunk(client, session.sessionId);
    const prompt = client.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "SLOW then cancel" }] });
    await chunk;
    // A notification: the server accepts it (202) and sends no reply of its own.
    await expect(client.cancel({ sessionId: session.sessionId })).resolves.toBeUndefined();
    const result = await prompt;
    expect(result.stopReason).toBe("cancelled");
    // The turn stopped early: the model's last chunk (the one with the marker) never streamed.
    expect(agentChunks(seen.all, session.sessionId).join("")).not.toContain(FAKE_REPLY_MARKER);
    // The session is still usable after a cancel.
    const next = await client.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "after the cancel" }] });
    expect(next.stopReason).toBe("end_turn");
    seen.stop();
  });

  it("session/list shows the session; unstableCloseSession closes it and its stream", async () => {
    const client = connect({ baseUrl: proxy.baseUrl });
    await client.initialize();
    const session = await client.newSession({ cwd: server().workspace, mcpServers: [] });
    await waitFor(() => proxy.streams().some((s) => s.session === session.sessionId && s.open), 5_000, "the session stream");

    const listed = await client.listSessions();
    const mine = listed.sessions.find((s) => s.sessionId === session.sessionId);
    expect(mine).toBeDefined();
    expect(mine?.cwd).toBe(server().workspace);

    const closed = await client.unstableCloseSession({ sessionId: session.sessionId });
    expect(closed).toEqual({});
    await waitFor(() => proxy.streams().filter((s) => s.session === session.sessionId).every((s) => !s.open), 5_000, "the session stream to end");
    // Closing is final: the client does not reopen the stream.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(proxy.streams().filter((s) => s.session === session.sessionId)).toHaveLength(1);
    // The connection itself lives on.
    expect(client.state).toBe("open");
    await expect(client.listSessions()).resolves.toBeDefined();
  });

  it("a session stream dropped mid-prompt resumes with Last-Event-ID: nothing lost, nothing repeated", async () => {
    const client = connect({ baseUrl: proxy.baseUrl });
    await client.initialize();
    const session = await client.newSession({ cwd: server().workspace, mcpServers: [] });
    const seen = record(client);
    const chunk = firstAgentChunk(client, session.sessionId);
    const prompt = client.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "SLOW resume me" }] });
    await chunk;
    expect(proxy.cutSessionStreams(session.sessionId)).toBe(1);
    const result = await prompt;
    expect(result.stopReason).toBe("end_turn");

    // Every chunk the model sent, once, in order.
    const expected = ["slow 1 ", "slow 2 ", "slow 3 ", "slow 4 ", "slow 5 ", `${FAKE_REPLY_MARKER} SLOW resume me`];
    expect(agentChunks(seen.all, session.sessionId).filter(Boolean)).toEqual(expected);
    expect(updates(seen.all, session.sessionId).filter((p) => p.update?.sessionUpdate === "user_message_chunk")).toHaveLength(1);

    // On the wire: the second GET asked for exactly what followed the last id of the first one.
    const streams = proxy.streams().filter((s) => s.session === session.sessionId);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    const [first, second] = streams;
    expect(first?.lastEventId).toBe("0");
    expect(first?.cut).toBe(true);
    const lastBeforeCut = first?.ids.at(-1);
    expect(second?.lastEventId).toBe(lastBeforeCut);
    expect(second?.ids[0]).toBe(String(Number(lastBeforeCut) + 1));
    // The server retry hint (3 s) put chunks into the gap, and they were replayed.
    const replays = vendorNotifies(seen.all, "replay_complete").map((p) => p.data ?? {});
    expect(replays.some((d) => typeof d.replayedCount === "number" && d.replayedCount > 0)).toBe(true);
    seen.stop();
  });

  it("disconnect sends DELETE: afterwards a raw POST with that connection id gets 404", async () => {
    const client = connect();
    await client.initialize();
    const id = client.connectionId;
    if (id === undefined) throw new Error("no connection id");
    await client.newSession({ cwd: server().workspace, mcpServers: [] });
    await client.disconnect();
    await expect(client.closed).resolves.toEqual({ reason: "disconnected" });
    const after = await rawPost(server(), id, { jsonrpc: "2.0", id: 1, method: "session/list", params: {} });
    expect(after.status).toBe(404);
  });

  it("a 404 for a deleted connection surfaces as AcpConnectionClosedError (connection-lost)", async () => {
    const client = connect();
    await client.initialize();
    const id = client.connectionId;
    if (id === undefined) throw new Error("no connection id");
    const gone = await fetch(`${server().baseUrl}${RFD_PROFILE.path}`, {
      method: "DELETE",
      headers: { [CONNECTION_HEADER]: id },
    });
    expect(gone.status).toBe(202);

    const failure = await client
      .newSession({ cwd: server().workspace, mcpServers: [] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AcpConnectionClosedError);
    expect((failure as AcpConnectionClosedError).reason).toBe("connection-lost");
    const info = await client.closed;
    expect(info.reason).toBe("connection-lost");
    expect(info.error).toBeInstanceOf(AcpConnectionClosedError);
    // Later calls fail fast with the same typed error; re-initialising is a new client.
    await expect(client.listSessions()).rejects.toBeInstanceOf(AcpConnectionClosedError);
  });

  describe("token auth", () => {
    const { server, connect } = qwenForBlock({ serve: { token: TOKEN } });

    it("the right token works", async () => {
      const client = connect({ token: TOKEN });
      await client.initialize();
      const session = await client.newSession({ cwd: server().workspace, mcpServers: [] });
      const result = await client.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "with token" }] });
      expect(result.stopReason).toBe("end_turn");
    });

    it.each([
      ["missing", undefined],
      ["wrong", "not-the-token"],
    ])("a %s token is a typed 401 that never shows a token", async (_label, token) => {
      const client = connect(token === undefined ? {} : { token });
      const failure = await client.initialize().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AcpHttpError);
      expect((failure as AcpHttpError).status).toBe(401);
      const message = (failure as AcpHttpError).message;
      expect(message).not.toContain(TOKEN);
      if (token !== undefined) expect(message).not.toContain(token);
      expect(JSON.stringify(failure)).not.toContain(TOKEN);
    });
  });
});
