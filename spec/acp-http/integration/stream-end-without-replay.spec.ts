/**
 * RFD profile: a session's answers come on its own event stream (the POST gets 202). When the server
 * ends that stream and gives no event ids, a reconnect cannot ask it to replay what it wrote while no
 * stream was attached, so a prompt's answer may never come: the prompt must fail with a typed
 * interruption within a bound, with `recover` on or off, and the stream must still reopen for later
 * events. A reopen refused with 404 (a restarted server) is a lost connection instead. A server that
 * gives event ids resumes the stream, and a cut stream (not ended by the server) is reopened with the
 * prompt still waiting: the servers seen hold a session's output for the next GET.
 */
import {
  AcpConnectionClosedError,
  AcpHttpClient,
  AcpInterruptedError,
  RFD_PROFILE,
  type PromptResult,
} from "../../../lib/acp-http/index.js";
import {
  FakeAcpServer,
  accepted,
  bodyOf,
  never,
  problemResponse,
  rpcResult,
  type FakeSseStream,
  type RecordedRequest,
} from "../../support/fake-acp-server.js";

const CONNECTION_ID = "conn-1";
const SESSION_ID = "sess-1";
/** How long a prompt may take to fail once its stream is gone: the bound this spec holds the client to. */
const BOUND_MS = 5000;

let clients: AcpHttpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.map((client) => client.disconnect()));
  clients = [];
});

interface Rig {
  server: FakeAcpServer;
  client: AcpHttpClient;
  /** The session's first event stream (opened after `session/new`). */
  sessionStream: FakeSseStream;
}

/**
 * An RFD-profile server (in memory) that answers `initialize` and `session/new` in the POST body and
 * accepts every other POST with 202: their answers can only come on a stream.
 */
async function rig(
  recover: boolean,
  reconnect = { initialDelayMs: 5, maxDelayMs: 5, jitter: 0, maxRetries: 3 },
): Promise<Rig> {
  const server = new FakeAcpServer({ connectionId: CONNECTION_ID, connectionIdHeader: "Acp-Connection-Id" });
  server.onPost = (request) => {
    const message = bodyOf(request);
    if (message.method === "initialize") return rpcResult(message.id, { protocolVersion: 1, agentCapabilities: { loadSession: true } });
    if (message.method === "session/new") return rpcResult(message.id, { sessionId: SESSION_ID });
    return accepted();
  };
  const client = new AcpHttpClient({
    ...RFD_PROFILE,
    baseUrl: "http://agent.test",
    fetch: server.fetch,
    recover,
    reconnect,
    closeTimeoutMs: 200,
    logger: { debug: () => undefined, warn: () => undefined },
  });
  clients.push(client);
  await client.initialize();
  await client.newSession({ cwd: "/work", mcpServers: [] });
  const sessionStream = await server.until(() => sessionStreams(server)[0]);
  return { server, client, sessionStream };
}

function sessionStreams(server: FakeAcpServer): FakeSseStream[] {
  return server.streams.filter((stream) => stream.request.headers.get("acp-session-id") === SESSION_ID);
}

function prompt(client: AcpHttpClient, text = "hi"): Promise<PromptResult> {
  return client.prompt({ sessionId: SESSION_ID, prompt: [{ type: "text", text }] });
}

/** The n-th POST of `method` (1-based), once it has arrived. */
/**
 * Holds the POST of `session/prompt` open (every other POST gets `other()`); the returned function
 * answers the held POST with a response once it has arrived.
 */
function holdPromptPost(server: FakeAcpServer, other: () => Response | Promise<Response>): (response: Response) => void {
  let release: ((response: Response) => void) | undefined;
  server.onPost = (request) => {
    if (bodyOf(request).method !== "session/prompt") return other();
    return new Promise<Response>((resolve) => (release = resolve));
  };
  return (response) => {
    if (!release) throw new Error("the prompt's POST has not arrived");
    release(response);
  };
}

function postOf(server: FakeAcpServer, method: string, n = 1): Promise<RecordedRequest> {
  return server.until(() => server.requestsOf("POST").filter((request) => bodyOf(request).method === method)[n - 1]);
}

/** How `promise` settled, or `"pending"` if it had not within `ms`; with the time it took. */
async function outcome<T>(promise: Promise<T>, ms = BOUND_MS): Promise<{ value?: T; error?: unknown; pending?: true; ms: number }> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<{ pending: true }>((resolve) => (timer = setTimeout(() => resolve({ pending: true }), ms)));
  try {
    const settled = await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      deadline,
    ]);
    return { ...settled, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

function update(text: string): unknown {
  return {
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: SESSION_ID, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
  };
}

describe("a session stream that ends on a server that cannot replay it", () => {
  it.each([false, true])(
    "fails the prompt waiting on it with AcpInterruptedError (kind stream-lost) within 5 s, recover %s, and reopens the stream",
    async (recover) => {
      const { server, client, sessionStream } = await rig(recover);
      const turn = prompt(client);
      const post = await postOf(server, "session/prompt");
      // The POST was accepted (202): the answer could only come on the session stream, which ends cleanly.
      sessionStream.send(undefined, update("working"));
      sessionStream.end();

      const settled = await outcome(turn);
      expect(settled.pending).toBeUndefined();
      expect(settled.error).toBeInstanceOf(AcpInterruptedError);
      expect(settled.error).toMatchObject({ kind: "stream-lost", method: "session/prompt" });
      expect(settled.ms).toBeLessThan(BOUND_MS);
      // Given up as an abort is: the agent is told (RFD_PROFILE has cancelRequests on).
      const cancel = await postOf(server, "$/cancel_request");
      expect(bodyOf(cancel).params).toEqual({ requestId: bodyOf(post).id });

      // The session's stream is opened again for the events that come later; the client lives on.
      const reopened = await server.until(() => sessionStreams(server)[1]);
      expect(reopened.request.headers.get("acp-session-id")).toBe(SESSION_ID);
      expect(client.state).not.toBe("closed");
      const next = prompt(client, "again");
      const nextPost = await postOf(server, "session/prompt", 2);
      reopened.send(undefined, { jsonrpc: "2.0", id: bodyOf(nextPost).id, result: { stopReason: "end_turn" } });
      await expect(outcome(next)).resolves.toMatchObject({ value: { stopReason: "end_turn" } });
    },
  );

  it("also fails a prompt whose POST was still open when the stream ended and then got 202", async () => {
    const { server, client, sessionStream } = await rig(false);
    const release = holdPromptPost(server, accepted);
    const turn = prompt(client);
    await postOf(server, "session/prompt");
    sessionStream.end();
    await server.until(() => sessionStreams(server)[1]);
    release(accepted());

    const settled = await outcome(turn);
    expect(settled.error).toBeInstanceOf(AcpInterruptedError);
    expect(settled.error).toMatchObject({ kind: "stream-lost" });
  });

  it("leaves alone a request answered in its POST body", async () => {
    const { server, client, sessionStream } = await rig(false);
    const release = holdPromptPost(server, never);
    const turn = prompt(client);
    const post = await postOf(server, "session/prompt");
    sessionStream.end();
    await server.until(() => sessionStreams(server)[1]);
    release(rpcResult(bodyOf(post).id, { stopReason: "end_turn" }));

    await expect(outcome(turn)).resolves.toMatchObject({ value: { stopReason: "end_turn" } });
  });

  it("leaves alone a prompt of another session, whose stream is still open", async () => {
    const { server, client, sessionStream } = await rig(false);
    server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "session/new") return rpcResult(message.id, { sessionId: "sess-2" });
      return accepted();
    };
    await client.newSession({ cwd: "/work", mcpServers: [] });
    const other = await server.until(() => server.streams.find((s) => s.request.headers.get("acp-session-id") === "sess-2"));
    const otherTurn = client.prompt({ sessionId: "sess-2", prompt: [{ type: "text", text: "hi" }] });
    otherTurn.catch(() => undefined); // judged below; a failed assertion before must not leave it unhandled
    const otherPost = await postOf(server, "session/prompt");
    const turn = prompt(client);
    await postOf(server, "session/prompt", 2);
    sessionStream.end();
    await expect(outcome(turn)).resolves.toMatchObject({ error: expect.any(AcpInterruptedError) as unknown });

    other.send(undefined, { jsonrpc: "2.0", id: bodyOf(otherPost).id, result: { stopReason: "end_turn" } });
    await expect(outcome(otherTurn)).resolves.toMatchObject({ value: { stopReason: "end_turn" } });
  });
});

describe("a session stream that ends on a server without replay, and what its reopen shows", () => {
  it("fails the prompt as stream-lost within 5 s even when the reopen never answers", async () => {
    const { server, client, sessionStream } = await rig(false);
    server.onGet = (request) => (request.headers.has("acp-session-id") ? never() : server.openStream(request).response);
    const turn = prompt(client);
    await postOf(server, "session/prompt");
    sessionStream.end();

    const settled = await outcome(turn);
    expect(settled.error).toMatchObject({ name: "AcpInterruptedError", kind: "stream-lost" });
    expect(settled.ms).toBeLessThan(BOUND_MS);
  });

  it("with recover on, a reopen refused with 404 (the server restarted) fails it as connection-rebuilt, and the next prompt waits for the recovery", async () => {
    const { server, client, sessionStream } = await rig(true);
    const turn = prompt(client);
    await postOf(server, "session/prompt");
    // The restarted server no longer knows the connection; a new initialize gets a new one.
    const gone = () => problemResponse(404, { title: "Unknown Acp-Connection-Id", status: 404 });
    server.onGet = (request) => (request.headers.get("acp-connection-id") === CONNECTION_ID ? gone() : server.openStream(request).response);
    server.onPost = (request) => {
      const message = bodyOf(request);
      if (message.method === "initialize") {
        server.connectionId = "conn-2";
        return rpcResult(message.id, { protocolVersion: 1, agentCapabilities: { loadSession: true } });
      }
      if (request.headers.get("acp-connection-id") === CONNECTION_ID) return gone();
      if (message.method === "session/load") return rpcResult(message.id, {});
      return accepted();
    };
    sessionStream.end();

    const settled = await outcome(turn);
    expect(settled.error).toBeInstanceOf(AcpInterruptedError);
    expect(settled.error).toMatchObject({ kind: "connection-rebuilt" });
    const next = prompt(client, "again");
    const nextPost = await postOf(server, "session/prompt", 2);
    expect(nextPost.headers.get("acp-connection-id")).toBe("conn-2");
    const stream = await server.until(() => server.streams.find((s) => s.isOpen && s.request.headers.get("acp-connection-id") === "conn-2" && s.request.headers.get("acp-session-id") === SESSION_ID));
    stream.send(undefined, { jsonrpc: "2.0", id: bodyOf(nextPost).id, result: { stopReason: "end_turn" } });
    await expect(outcome(next)).resolves.toMatchObject({ value: { stopReason: "end_turn" } });
  });

  it("a reopen refused for good (403: not owned here) fails the prompt as stream-lost, even after a cut", async () => {
    const { server, client, sessionStream } = await rig(false);
    const turn = prompt(client);
    await postOf(server, "session/prompt");
    server.onGet = (request) =>
      request.headers.has("acp-session-id") ? problemResponse(403, { title: "Session not owned by this connection", status: 403 }) : server.openStream(request).response;
    sessionStream.error();

    const settled = await outcome(turn);
    expect(settled.error).toMatchObject({ name: "AcpInterruptedError", kind: "stream-lost" });
    expect(client.state).not.toBe("closed");
  });

  it("with recover off, a reopen refused with 404 closes the client and fails the prompt as connection-lost", async () => {
    const { server, client, sessionStream } = await rig(false);
    const turn = prompt(client);
    await postOf(server, "session/prompt");
    server.onGet = () => problemResponse(404, { title: "Unknown Acp-Connection-Id", status: 404 });
    sessionStream.end();

    const settled = await outcome(turn);
    expect(settled.error).toBeInstanceOf(AcpConnectionClosedError);
    expect(settled.error).toMatchObject({ reason: "connection-lost" });
  });
});

describe("a session stream that is cut (not ended by the server) on a server without event ids", () => {
  it.each([false, true])("leaves the prompt waiting, and its answer arrives on the reopened stream, recover %s", async (recover) => {
    const { server, client, sessionStream } = await rig(recover);
    const turn = prompt(client);
    const post = await postOf(server, "session/prompt");
    sessionStream.error();

    // The server held the answer while no stream was attached and sends it to the next GET.
    const reopened = await server.until(() => sessionStreams(server)[1]);
    reopened.send(undefined, { jsonrpc: "2.0", id: bodyOf(post).id, result: { stopReason: "end_turn" } });
    await expect(outcome(turn)).resolves.toMatchObject({ value: { stopReason: "end_turn" } });
  });
});

describe("a session stream cut for less than the bound, whose reopen lands after it (a server that holds output)", () => {
  it("keeps the prompt waiting until the reopen, and its answer arrives there", async () => {
    // The default schedule's shape: the first reopen fails while the server is down; the next one
    // lands after the 3 s bound, with the server back and holding the answer.
    const slow = { initialDelayMs: 1500, maxDelayMs: 4000, factor: 2, jitter: 0, maxRetries: 6 };
    const { server, client, sessionStream } = await rig(false, slow);
    let failedReopens = 0;
    server.onGet = (request) => {
      if (!request.headers.has("acp-session-id") || failedReopens > 0) return server.openStream(request).response;
      failedReopens += 1; // down for the first reopen only (about 1.5 s after the cut)
      return Promise.reject(new TypeError("fetch failed"));
    };
    const turn = prompt(client);
    const post = await postOf(server, "session/prompt");
    const cutAt = Date.now();
    sessionStream.error();

    const reopened = await server.until(() => sessionStreams(server).find((s) => s !== sessionStream && s.isOpen));
    expect(Date.now() - cutAt).toBeGreaterThan(3000);
    reopened.send(undefined, { jsonrpc: "2.0", id: bodyOf(post).id, result: { stopReason: "end_turn" } });
    await expect(outcome(turn)).resolves.toMatchObject({ value: { stopReason: "end_turn" } });
  }, 20_000);
});

describe("a session stream that is cut on a server that neither holds its output nor gives ids", () => {
  it("fails the prompt as stream-lost within 5 s when the stream is not back, not when the reconnect policy gives up", async () => {
    // A patient policy: 100 reopens 200 ms apart would keep the prompt waiting 20 s.
    const patient = { initialDelayMs: 200, maxDelayMs: 200, jitter: 0, maxRetries: 100 };
    const { server, client, sessionStream } = await rig(false, patient);
    let down = true;
    server.onGet = (request) =>
      down && request.headers.has("acp-session-id")
        ? Promise.reject(new TypeError("fetch failed"))
        : server.openStream(request).response;
    const turn = prompt(client);
    await postOf(server, "session/prompt");
    sessionStream.error();

    const settled = await outcome(turn);
    expect(settled.pending).toBeUndefined();
    expect(settled.error).toMatchObject({ name: "AcpInterruptedError", kind: "stream-lost" });
    expect(settled.ms).toBeLessThan(BOUND_MS);
    expect(client.state).not.toBe("closed");

    // The stream still comes back for what follows.
    down = false;
    const reopened = await server.until(() => sessionStreams(server).find((s) => s !== sessionStream && s.isOpen));
    const next = prompt(client, "again");
    const nextPost = await postOf(server, "session/prompt", 2);
    reopened.send(undefined, { jsonrpc: "2.0", id: bodyOf(nextPost).id, result: { stopReason: "end_turn" } });
    await expect(outcome(next)).resolves.toMatchObject({ value: { stopReason: "end_turn" } });
  }, 20_000);
});

describe("a session stream that ends on a server that replays from Last-Event-ID", () => {
  it.each([false, true])("still delivers the prompt's answer after the reconnect, recover %s", async (recover) => {
    const { server, client, sessionStream } = await rig(recover);
    const turn = prompt(client);
    const post = await postOf(server, "session/prompt");
    sessionStream.send(1, update("one"));
    sessionStream.end();

    const reopened = await server.until(() => sessionStreams(server)[1]);
    expect(reopened.request.headers.get("last-event-id")).toBe("1");
    // The server resumes after id 1: what it wrote meanwhile, then the answer (responses carry no id, as qwen's).
    reopened.send(2, update("two"));
    reopened.send(undefined, { jsonrpc: "2.0", id: bodyOf(post).id, result: { stopReason: "end_turn" } });
    await expect(outcome(turn)).resolves.toMatchObject({ value: { stopReason: "end_turn" } });
  });
});
