import {
  AcpConnectionClosedError,
  AcpHttpError,
  AcpTimeoutError,
  PROTOCOL_VERSION,
  RFD_PROFILE,
  type AcpHttpClientOptions,
  type CursorAdvance,
} from "../../../lib/acp-http/index.js";
import { reattach } from "../../../lib/acp-http/reattach.js";
import { SessionLedger } from "../../../lib/acp-http/recovery.js";
import { FakeAcpServer, bodyOf, never, problemResponse, rpcResult, type RecordedRequest } from "../../support/fake-acp-server.js";
import { BASE_URL, createHarness, disconnectAll, notification, settle, watch, type Harness } from "./client-harness.js";

afterEach(disconnectAll);

const STORED = "conn-stored";

/** A client reattaching to a stored connection of an RFD-profile server: it sends nothing until asked. */
function reattached(extra: Partial<AcpHttpClientOptions> = {}): Harness & { cursors: CursorAdvance[] } {
  const cursors: CursorAdvance[] = [];
  const h = createHarness(
    { ...RFD_PROFILE, connectionId: STORED, onCursor: (advance) => cursors.push(advance), ...extra },
    { connectionIdHeader: "Acp-Connection-Id" },
  );
  return { ...h, cursors };
}

type Update = { params?: { update?: { content?: { text?: string } } } };
const texts = (h: Harness): string[] => h.envelopes.map((e) => (e as Update).params?.update?.content?.text ?? "?");

describe("attachSession (RFD reattach from a stored per-session cursor)", () => {
  it("opens the session stream from the stored cursor and the connection stream, with no POST", async () => {
    const h = reattached();
    const attached = watch(h.client.attachSession("sess-1", { lastEventId: "13" }));
    const [first, second] = [await h.server.stream(1), await h.server.stream(2)];
    const session = [first, second].find((s) => s.request.headers.has("acp-session-id"));
    const connection = [first, second].find((s) => !s.request.headers.has("acp-session-id"));
    expect(session?.request.headers.get("acp-session-id")).toBe("sess-1");
    expect(session?.request.headers.get("acp-connection-id")).toBe(STORED);
    expect(session?.request.headers.get("last-event-id")).toBe("13");
    expect(connection?.request.headers.get("acp-connection-id")).toBe(STORED);
    expect(connection?.request.headers.has("last-event-id")).toBe(false);
    await settle();
    expect(attached.settled && attached.error === undefined).toBe(true);
    expect(h.server.requestsOf("POST")).toHaveLength(0);

    // The replay continues the cursor; the id-less marker that ends it is a plain notification.
    session?.send(14, notification(14));
    session?.send(undefined, { jsonrpc: "2.0", method: "_qwen/notify", params: { kind: "replay_complete" } });
    session?.send(15, notification(15));
    await settle();
    expect(texts(h)).toEqual(["chunk 14", "?", "chunk 15"]);
    expect(h.cursors.map((c) => [c.sessionId, c.lastEventId])).toEqual([
      ["sess-1", "14"],
      ["sess-1", "15"],
    ]);
    expect(h.client.state).toBe("open");
  });

  it("without a cursor asks for the whole history; attaching twice opens one stream", async () => {
    const h = reattached();
    const one = h.client.attachSession("sess-1");
    const two = h.client.attachSession("sess-1");
    await Promise.all([one, two]);
    await settle();
    const sessions = h.server.requestsOf("GET").filter((r) => r.headers.has("acp-session-id"));
    expect(sessions.map((r) => r.headers.get("last-event-id"))).toEqual(["0"]);
    await expect(h.client.attachSession("sess-1", { lastEventId: "99" })).resolves.toBeUndefined();
    expect(h.server.requestsOf("GET").filter((r) => r.headers.has("acp-session-id"))).toHaveLength(1);
  });

  it("a 404 (the server no longer knows the connection) rejects typed and closes as connection-lost", async () => {
    const h = reattached();
    h.server.onGet = () => problemResponse(404, { error: "Unknown Acp-Connection-Id" });
    const failure = await h.client.attachSession("sess-1", { lastEventId: "3" }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AcpConnectionClosedError);
    expect((failure as AcpConnectionClosedError).reason).toBe("connection-lost");
    expect((failure as AcpConnectionClosedError).method).toBe("attachSession");
    expect((failure as Error).cause).toBeInstanceOf(AcpHttpError);
    expect(((failure as Error).cause as AcpHttpError).status).toBe(404);
    await expect(h.client.closed).resolves.toMatchObject({ reason: "connection-lost" });
    // The server does not know the connection: no DELETE for it.
    expect(h.server.requestsOf("DELETE")).toHaveLength(0);
  });

  it("a 403 (no longer owned) rejects with the AcpHttpError; the connection lives on", async () => {
    const h = reattached();
    h.server.onGet = (request) =>
      request.headers.has("acp-session-id")
        ? problemResponse(403, { error: "Session not owned by this connection" })
        : h.server.openStream(request).response;
    const failure = await h.client.attachSession("sess-1").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AcpHttpError);
    expect((failure as AcpHttpError).status).toBe(403);
    await settle();
    expect(h.client.closeInfo).toBeUndefined();
  });

  it("a server that never answers the GET: timeoutMs bounds the wait and closes the session stream", async () => {
    const h = reattached();
    h.server.onGet = (request) =>
      request.headers.has("acp-session-id") ? never() : h.server.openStream(request).response;
    const failure = await h.client.attachSession("sess-1", { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AcpTimeoutError);
    // Attaching again opens a new stream: the one given up on is gone.
    void h.client.attachSession("sess-1", { timeoutMs: 20 }).catch(() => undefined);
    await settle();
    expect(h.server.requestsOf("GET").filter((r) => r.headers.has("acp-session-id"))).toHaveLength(2);
  });

  it("a disconnect while attaching rejects; no session streams or no connection id is a TypeError", async () => {
    const h = reattached();
    h.server.onGet = () => never();
    const pending = h.client.attachSession("sess-1").catch((e: unknown) => e);
    await settle();
    await h.client.disconnect();
    const failure = await pending;
    expect(failure).toBeInstanceOf(AcpConnectionClosedError);
    expect((failure as AcpConnectionClosedError).reason).toBe("disconnected");

    const plain = createHarness({}, {});
    await expect(plain.client.attachSession("sess-1")).rejects.toBeInstanceOf(TypeError);
    const noId = createHarness({ ...RFD_PROFILE }, {});
    await expect(noId.client.attachSession("sess-1")).rejects.toThrow(/no connection id/);
  });
});

describe("a client on a stored connection: the previous client's requests are still on the wire", () => {
  /** A response of the previous client's request `id`, as the session stream replays it. */
  const stale = (id: number) => ({ jsonrpc: "2.0", id, result: { stopReason: "end_turn", stale: id } });

  it("replayed answers to the previous client's requests neither settle nor block the new client's", async () => {
    const h = reattached();
    await h.client.attachSession("sess-1", { lastEventId: "40" });
    const session = await h.server.stream(1);
    const other = await h.server.stream(2);
    const stream = session.request.headers.has("acp-session-id") ? session : other;
    // The previous client (ids from 1 up) asked twice; the replay holds both answers.
    stream.send(41, stale(1));
    stream.send(42, stale(2));
    await settle();
    // While the new client's request waits, more of the previous client's answers arrive, then its own.
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      for (let id = 3; id <= 50; id++) stream.send(40 + id, stale(id));
      return rpcResult(message.id, { fresh: true });
    };
    // Each answer may be held while the session's stream still delivers (no echo on this profile): wait for
    // the answers themselves, bounded by the calls' own timeouts.
    const [first, second] = await Promise.all(
      ["a", "b"].map((modeId) => h.client.request("session/set_mode", { sessionId: "sess-1", modeId }, { timeoutMs: 3000 })),
    );
    expect(first).toEqual({ fresh: true });
    expect(second).toEqual({ fresh: true });
    const sent = h.server.requestsOf("POST").map((request) => Number(bodyOf(request).id));
    expect(sent.every((id) => id > 50 && Number.isSafeInteger(id))).toBe(true);
    expect(new Set(sent).size).toBe(2);
  });

  it("ids from a random base with connectionId or lastEventId (or randomRequestIds), from 1 otherwise", async () => {
    const firstIdOf = async (options: Partial<AcpHttpClientOptions>) => {
      const h = createHarness(options);
      await h.client.initialize();
      return Number(bodyOf(h.server.requestsOf("POST")[0] as RecordedRequest).id);
    };
    expect(await firstIdOf({})).toBe(1);
    expect(await firstIdOf({ lastEventId: "17" })).toBeGreaterThanOrEqual(2 ** 20);
    expect(await firstIdOf({ randomRequestIds: true })).toBeGreaterThanOrEqual(2 ** 20);
    expect(await firstIdOf({ lastEventId: "17", randomRequestIds: false })).toBe(1);
  });

  it("sends the protocol version on every request, though it ran no initialize (stored, else the client's own)", async () => {
    const answer = (request: RecordedRequest) => rpcResult(bodyOf(request).id, {});
    const h = reattached({ protocolVersion: 7 });
    h.server.onPost = answer;
    await h.client.attachSession("sess-1", { lastEventId: "1" });
    await h.client.request("session/set_mode", { sessionId: "sess-1", modeId: "a" });
    const gets = h.server.requestsOf("GET");
    expect(gets.length).toBeGreaterThan(0);
    for (const request of [...gets, ...h.server.requestsOf("POST")]) {
      expect(request.headers.get("acp-protocol-version")).toBe("7");
    }
    const plain = reattached();
    plain.server.onPost = answer;
    await plain.client.request("session/set_mode", { sessionId: "sess-1", modeId: "a" });
    expect(plain.server.requestsOf("POST")[0]?.headers.get("acp-protocol-version")).toBe(String(PROTOCOL_VERSION));
  });

  it("reattach() hands the stored connection's protocol version to the client it opens", async () => {
    const server = new FakeAcpServer({ connectionIdHeader: "Acp-Connection-Id" });
    const options = { ...RFD_PROFILE, baseUrl: BASE_URL, fetch: server.fetch };
    const stored = { connectionId: STORED, protocolVersion: "2026-01", sessions: [{ sessionId: "s1", cwd: "/w" }] };
    const back = await reattach(options, stored);
    expect(back).toMatchObject({ reattached: true, resumed: ["s1"] });
    const gets = server.requestsOf("GET");
    expect(gets.length).toBeGreaterThan(0);
    expect(gets.map((request) => request.headers.get("acp-protocol-version"))).toEqual(gets.map(() => "2026-01"));
    await back.client.disconnect();
  });
});

describe("SessionLedger.of (the reattach fallback's ledger)", () => {
  it("recovers sessions it never saw opened: initialize with the given params, then session/load each", async () => {
    const ledger = SessionLedger.of({ clientInfo: { name: "x", version: "1" } }, [
      { sessionId: "s1", cwd: "/w", mcpServers: [{ name: "m" }] },
      { sessionId: "s2", cwd: "/v" },
    ]);
    expect(ledger.recoverable).toBe(true);
    const calls: Array<[string, unknown]> = [];
    const result = await ledger.recover({
      policy: { initialDelayMs: 1, maxDelayMs: 1, factor: 1, jitter: 0, maxRetries: 0, stallTimeoutMs: undefined },
      signal: new AbortController().signal,
      logger: { debug() {}, warn() {} },
      reset: () => undefined,
      request: async (method, params) => {
        calls.push([method, params]);
        return {};
      },
      connectionId: () => "fresh",
    });
    expect(calls).toEqual([
      ["initialize", { clientInfo: { name: "x", version: "1" } }],
      ["session/load", { sessionId: "s1", cwd: "/w", mcpServers: [{ name: "m" }] }],
      ["session/load", { sessionId: "s2", cwd: "/v", mcpServers: [] }],
    ]);
    expect(result).toEqual({ connectionId: "fresh", loaded: ["s1", "s2"], failed: [], attempts: 1 });
  });

  it("an initialize result without loadSession (fed to note): the sessions fail, none is loaded", async () => {
    const ledger = SessionLedger.of({}, [{ sessionId: "s1", cwd: "/w" }]);
    ledger.note("initialize", {}, { agentCapabilities: {} });
    const { loaded, failed } = await ledger.loadAll({ request: async () => ({}) });
    expect(loaded).toEqual([]);
    expect(failed).toEqual([{ sessionId: "s1", error: "the agent does not advertise loadSession" }]);
  });
});
