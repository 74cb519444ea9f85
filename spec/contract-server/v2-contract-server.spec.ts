/**
 * Checks the contract server against /work/shared/contract/v2-acp-http.md with plain fetch, so the
 * server can be trusted as the peer of the SDK's own tests.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  startV2ContractServer,
  type V2ContractServer,
  type V2ContractServerOptions,
} from "../support/v2-contract-server.js";

type Json = Record<string, unknown>;

interface PostResult {
  status: number;
  connId: string | null;
  contentType: string | null;
  text: string;
  json: Json;
}

interface SseFrame {
  event?: string;
  id?: string;
  data: Json;
}

const meta = (agent: string, extra: Json = {}): Json => ({ "sandboxagent.dev": { agent, ...extra } });
const initialize = (id: unknown = 1, agent = "mock"): Json => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {}, _meta: meta(agent) },
});
const prompt = (id: unknown, sessionId: string, text: string): Json => ({
  jsonrpc: "2.0",
  id,
  method: "session/prompt",
  params: { sessionId, prompt: [{ type: "text", text }] },
});

let server: V2ContractServer;
let home: string;
const started: V2ContractServer[] = [];

async function start(options: V2ContractServerOptions = {}): Promise<V2ContractServer> {
  const instance = await startV2ContractServer({ mockChunkDelayMs: 5, home, ...options });
  started.push(instance);
  return instance;
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "v2-contract-home-"));
  server = await start();
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((instance) => instance.stop()));
  await rm(home, { recursive: true, force: true });
});

function parseJson(text: string): Json {
  if (text === "") return {};
  const value: unknown = JSON.parse(text);
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : { value };
}

async function post(body: unknown, options: { connId?: string; headers?: Record<string, string>; raw?: string; on?: V2ContractServer } = {}): Promise<PostResult> {
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (options.connId) headers["x-acp-connection-id"] = options.connId;
  const response = await fetch(`${(options.on ?? server).baseUrl}/v2/rpc`, {
    method: "POST",
    headers,
    body: options.raw ?? JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    connId: response.headers.get("x-acp-connection-id"),
    contentType: response.headers.get("content-type"),
    text,
    json: response.headers.get("content-type")?.includes("json") ? parseJson(text) : {},
  };
}

async function connect(on: V2ContractServer = server): Promise<string> {
  const result = await post(initialize(), { on });
  expect(result.status).toBe(200);
  return result.connId ?? "";
}

async function newSession(connId: string, extra: Json = {}, cwd = "/tmp", on: V2ContractServer = server): Promise<string> {
  const result = await post(
    { jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd, mcpServers: [], _meta: meta("mock", extra) } },
    { connId, on },
  );
  const sessionId = (result.json.result as Json | undefined)?.sessionId;
  expect(typeof sessionId).toBe("string");
  return String(sessionId);
}

const chunkText = (frame: SseFrame): string | undefined => {
  const update = (frame.data.params as Json | undefined)?.update as Json | undefined;
  return ((update?.content as Json | undefined)?.text as string | undefined) ?? undefined;
};

/** A small SSE reader: frames, comments, and a way to wait for either. */
class Stream {
  readonly frames: SseFrame[] = [];
  readonly comments: string[] = [];
  readonly ended: Promise<"ended" | "error">;
  private readonly controller = new AbortController();
  private listeners: Array<() => void> = [];

  private constructor(readonly response: Response) {
    this.ended = this.pump();
  }

  /** Retries a 409 briefly: the server frees the slot only once it notices the previous client left. */
  static async open(connId: string, headers: Record<string, string> = {}, on: V2ContractServer = server): Promise<Stream> {
    const controller = new AbortController();
    let response: Response | undefined;
    for (let attempt = 0; attempt < 50 && (response === undefined || response.status === 409); attempt++) {
      if (response) await new Promise((resolve) => setTimeout(resolve, 10));
      response = await fetch(`${on.baseUrl}/v2/rpc`, {
        headers: { accept: "text/event-stream", "x-acp-connection-id": connId, ...headers },
        signal: controller.signal,
      });
    }
    if (response?.status !== 200) throw new Error(`GET /v2/rpc answered ${response?.status}`);
    const stream = new Stream(response);
    stream.controller.signal.addEventListener("abort", () => controller.abort());
    return stream;
  }

  close(): void {
    this.controller.abort();
  }

  async waitFor(predicate: (frames: SseFrame[]) => boolean, timeoutMs = 2000): Promise<SseFrame[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.frames)) {
      if (Date.now() > deadline) throw new Error(`timed out; frames: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        this.listeners.push(resolve);
        setTimeout(resolve, 20);
      });
    }
    return this.frames;
  }

  private async pump(): Promise<"ended" | "error"> {
    const body = this.response.body;
    if (!body) return "ended";
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return "ended";
        buffer += decoder.decode(value, { stream: true });
        let split = buffer.indexOf("\n\n");
        while (split !== -1) {
          this.consume(buffer.slice(0, split));
          buffer = buffer.slice(split + 2);
          split = buffer.indexOf("\n\n");
        }
      }
    } catch {
      return "error";
    }
  }

  private consume(block: string): void {
    const fields: { event?: string; id?: string } = {};
    const dataLines: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) this.comments.push(line);
      else if (line.startsWith("event: ")) fields.event = line.slice(7);
      else if (line.startsWith("id: ")) fields.id = line.slice(4);
      else if (line.startsWith("data: ")) dataLines.push(line.slice(6));
    }
    if (dataLines.length > 0) {
      expect(dataLines).toHaveLength(1); // §1.5: one compact data line
      this.frames.push({ ...fields, data: parseJson(dataLines[0] ?? "") });
    }
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

describe("v2 contract server: §1.2 POST checks and bootstrap", () => {
  it("requires initialize with a meta agent before issuing a connection id", async () => {
    const notInit = await post({ jsonrpc: "2.0", id: 1, method: "session/new", params: {} });
    expect(notInit.status).toBe(400);
    expect(notInit.contentType).toBe("application/problem+json");
    expect(notInit.json.detail).toBe("invalid request: first ACP request without client id must be initialize");

    const responseOnly = await post({ jsonrpc: "2.0", id: 1, result: {} });
    expect(responseOnly.json.detail).toBe("invalid request: first ACP request must include method");

    const noAgent = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    expect(noAgent.status).toBe(400);
    expect(noAgent.json.detail).toBe('invalid request: initialize requires params._meta["sandboxagent.dev"].agent');

    const unknown = await post(initialize(1, "pi"));
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({
      type: "urn:sandbox-agent:error:unsupported_agent",
      title: "Unsupported Agent",
      detail: "unsupported agent: pi",
      agent: "pi",
    });

    const ok = await post(initialize(7));
    expect(ok.status).toBe(200);
    expect(ok.connId).toBe("acp_conn_1");
    expect(ok.json).toMatchObject({ jsonrpc: "2.0", id: 7 });

    const asNotification = await post({ jsonrpc: "2.0", method: "initialize", params: { _meta: meta("mock") } });
    expect(asNotification.status).toBe(202);
    expect(asNotification.text).toBe("");
    expect(asNotification.connId).toBe("acp_conn_2");

    const later = await post({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "x", agent: "mock" } }, { connId: "acp_conn_1" });
    expect(later.status).toBe(202);
    expect(later.connId).toBe("acp_conn_1");
  });

  it("applies header and envelope checks in table order", async () => {
    const wrongType = await post(initialize(), { headers: { "content-type": "text/plain", accept: "text/html" } });
    expect(wrongType.status).toBe(415);
    expect(wrongType.json.type).toBe("urn:sandbox-agent:error:unsupported_media_type");

    const notAcceptable = await post(initialize(), { headers: { accept: "text/html" } });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.json.type).toBe("urn:sandbox-agent:error:not_acceptable");

    const charset = await post(initialize(), {
      headers: { "content-type": "Application/JSON; charset=utf-8", accept: "text/html, application/*;q=0.5" },
    });
    expect(charset.status).toBe(200);

    const agentHeader = await post(initialize(), { headers: { "x-acp-agent": "mock" } });
    expect(agentHeader.status).toBe(400);
    expect(agentHeader.json.type).toBe("urn:sandbox-agent:error:invalid_request");

    const badJson = await post(null, { raw: "{not json" });
    expect(String(badJson.json.detail)).toMatch(/^invalid request: invalid JSON body: /);

    const batch = await post([initialize()]);
    expect(batch.json.detail).toBe("invalid request: JSON-RPC payload must be an object");

    const version = await post({ ...initialize(), jsonrpc: "1.0" });
    expect(version.json.detail).toBe("invalid request: jsonrpc must be '2.0'");

    const both = await post({ ...initialize(), result: {} });
    expect(both.status).toBe(400);
  });

  it("answers unknown connection ids with 404 client_not_found", async () => {
    const result = await post(prompt(1, "s", "x"), { connId: "acp_conn_99" });
    expect(result.status).toBe(404);
    expect(result.json).toEqual({
      type: "urn:sandbox-agent:error:client_not_found",
      title: "ACP client not found",
      status: 404,
      detail: "unknown ACP client id",
      sessionId: "acp_conn_99",
    });
    const stream = await fetch(`${server.baseUrl}/v2/rpc`, { headers: { "x-acp-connection-id": "acp_conn_99" } });
    expect(stream.status).toBe(404);
  });

  it("injects the §3 extensions into initialize responses", async () => {
    const result = await post(initialize());
    const capabilities = (result.json.result as Json).agentCapabilities as Json;
    const extensions = ((capabilities._meta as Json)["sandboxagent.dev"] as Json).extensions as Json;
    const { methods, ...flags } = extensions;
    expect(Object.keys(flags)).toHaveLength(18);
    expect(Object.values(flags).every((flag) => flag === true)).toBe(true);
    expect(methods).toHaveLength(17);
    expect((methods as string[])[0]).toBe("_sandboxagent/session/detach");
    expect((methods as string[])[16]).toBe("_sandboxagent/fs/upload_batch");
    expect(methods).not.toContain("_sandboxagent/agent/unparsed");
  });

  it("needs params.agent when no known session names the agent (§1.3)", async () => {
    const connId = await connect();
    const missing = await post({ jsonrpc: "2.0", id: 2, method: "authenticate", params: { methodId: "x" } }, { connId });
    expect(missing.status).toBe(400);
    expect(missing.json.detail).toBe("invalid request: authenticate requires params.agent when params.sessionId is absent");
    const ok = await post({ jsonrpc: "2.0", id: 3, method: "authenticate", params: { methodId: "x", agent: "mock" } }, { connId });
    expect(ok.json).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    const newWithout = await post({ jsonrpc: "2.0", id: 4, method: "session/new", params: { cwd: "/" } }, { connId });
    expect(newWithout.json.detail).toBe('invalid request: session/new requires params._meta["sandboxagent.dev"].agent');
  });
});

describe("v2 contract server: §1.5 SSE", () => {
  it("pushes every prompt chunk before the POST returns", async () => {
    const connId = await connect();
    const sessionId = await newSession(connId);
    const result = await post(prompt("p", sessionId, "hello   contract\nworld"), { connId });
    expect(result.json).toEqual({ jsonrpc: "2.0", id: "p", result: { stopReason: "end_turn" } });

    // Opened only after the POST returned: the replay must already hold every chunk.
    const stream = await Stream.open(connId);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream");
    const frames = await stream.waitFor((all) => all.length >= 4);
    expect(frames.map(chunkText)).toEqual(["mock: ", "hello ", "contract ", "world"]);
    expect(frames.map((frame) => frame.id)).toEqual(["1", "2", "3", "4"]);
    expect(frames.every((frame) => frame.event === "message")).toBe(true);
    stream.close();
  });

  it("rejects a second stream with 409 and frees the slot when the client leaves", async () => {
    const connId = await connect();
    const first = await Stream.open(connId);
    const second = await fetch(`${server.baseUrl}/v2/rpc`, { headers: { "x-acp-connection-id": connId } });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({
      type: "urn:sandbox-agent:error:conflict",
      detail: "conflict: ACP client already has an active SSE stream",
    });
    first.close();
    let third: Response | undefined;
    for (let attempt = 0; attempt < 50 && third?.status !== 200; attempt++) {
      await third?.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 10));
      third = await fetch(`${server.baseUrl}/v2/rpc`, { headers: { "x-acp-connection-id": connId } });
    }
    expect(third?.status).toBe(200);
    await third?.body?.cancel();
  });

  it("replays after Last-Event-ID and validates it", async () => {
    const connId = await connect();
    const sessionId = await newSession(connId);
    await post(prompt(1, sessionId, "one two three"), { connId });

    // Four frames: "mock: ", "one ", "two ", "three".
    const after2 = await Stream.open(connId, { "last-event-id": "2" });
    expect((await after2.waitFor((f) => f.length >= 2)).map((f) => f.id)).toEqual(["3", "4"]);
    after2.close();
    await after2.ended;

    for (const value of ["abc", "-1"]) {
      const bad = await fetch(`${server.baseUrl}/v2/rpc`, { headers: { "x-acp-connection-id": connId, "last-event-id": value } });
      expect(bad.status).toBe(400);
      expect((await bad.json()).detail).toBe("invalid request: Last-Event-ID must be a positive integer");
    }
    const missingHeader = await fetch(`${server.baseUrl}/v2/rpc`);
    expect(missingHeader.status).toBe(400);
    const wrongAccept = await fetch(`${server.baseUrl}/v2/rpc`, { headers: { "x-acp-connection-id": connId, accept: "application/json" } });
    expect(wrongAccept.status).toBe(406);

    const fromZero = await Stream.open(connId, { "last-event-id": "0" });
    expect(await fromZero.waitFor((f) => f.length >= 4)).toHaveLength(4);
    fromZero.close();
    await fromZero.ended;
    const empty = await Stream.open(connId, { "last-event-id": " " });
    expect(await empty.waitFor((f) => f.length >= 4)).toHaveLength(4);
    empty.close();
  });

  it("resumes after dropped streams, sends heartbeats, and carries test-injected envelopes", async () => {
    const quick = await start({ heartbeatMs: 30 });
    const connId = await connect(quick);
    const stream = await Stream.open(connId, {}, quick);
    quick.emitToConnection(connId, { jsonrpc: "2.0", method: "_sandboxagent/agent/unparsed", params: { error: "e", raw: "x" } });
    await stream.waitFor((f) => f.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(stream.comments).toContain(": heartbeat");

    quick.dropStreams();
    expect(await stream.ended).toBe("error");
    quick.emitToConnection(connId, { jsonrpc: "2.0", method: "x/y", params: {} });
    const resumed = await Stream.open(connId, { "last-event-id": "1" }, quick);
    const frames = await resumed.waitFor((f) => f.length >= 1);
    expect(frames[0]).toMatchObject({ id: "2", data: { method: "x/y" } });
    resumed.close();
  });
});

describe("v2 contract server: §1.6 DELETE and §1.7 timeouts", () => {
  it("is idempotent, ends the stream and fails in-flight POSTs with 502", async () => {
    const slow = await start({ mockChunkDelayMs: 100 });
    const connId = await connect(slow);
    const sessionId = await newSession(connId, {}, "/tmp", slow);
    const stream = await Stream.open(connId, {}, slow);
    const inFlight = post(prompt(1, sessionId, "a b c d e"), { connId, on: slow });
    await stream.waitFor((f) => f.length >= 1);

    const close = (id?: string) =>
      fetch(`${slow.baseUrl}/v2/rpc`, { method: "DELETE", headers: id ? { "x-acp-connection-id": id } : {} });
    expect((await close(connId)).status).toBe(204);
    const failed = await inFlight;
    expect(failed.status).toBe(502);
    expect(failed.json.type).toBe("urn:sandbox-agent:error:stream_error");
    expect(await stream.ended).toBe("ended");

    expect((await close(connId)).status).toBe(204);
    expect((await close("acp_conn_404")).status).toBe(204);
    expect((await close()).status).toBe(400);
    expect((await post(prompt(2, sessionId, "x"), { connId, on: slow })).status).toBe(404);
    expect(slow.connections()).toEqual([]);
  });

  it("answers 504 timeout when the agent is slower than the request timeout", async () => {
    const slow = await start({ mockChunkDelayMs: 200, requestTimeoutMs: 50 });
    const connId = await connect(slow);
    const sessionId = await newSession(connId, {}, "/tmp", slow);
    const result = await post(prompt(1, sessionId, "a b"), { connId, on: slow });
    expect(result.status).toBe(504);
    expect(result.json).toMatchObject({
      type: "urn:sandbox-agent:error:timeout",
      details: { message: "timed out waiting for ACP agent process response" },
    });
  });
});

describe("v2 contract server: §4-§5 runtime extensions", () => {
  it("terminate emits the cancelled chunk, then session/ended, and is idempotent", async () => {
    const connId = await connect();
    const sessionId = await newSession(connId);
    const stream = await Stream.open(connId);
    const terminate = { jsonrpc: "2.0", id: 5, method: "_sandboxagent/session/terminate", params: { sessionId } };
    const first = await post(terminate, { connId });
    expect(first.json.result).toEqual({ terminated: true, alreadyEnded: false, reason: "terminated", terminatedBy: "daemon" });
    const frames = await stream.waitFor((f) => f.length >= 2);
    expect(chunkText(frames[0] as SseFrame)).toBe("cancelled");
    expect(frames[1]?.data).toEqual({
      jsonrpc: "2.0",
      method: "_sandboxagent/session/ended",
      params: { session_id: sessionId, data: { reason: "terminated", terminated_by: "daemon" } },
    });
    const again = await post(terminate, { connId });
    expect(again.json.result).toMatchObject({ terminated: false, alreadyEnded: true });
    const info = await post({ jsonrpc: "2.0", id: 6, method: "_sandboxagent/session/get", params: { session_id: sessionId } }, { connId });
    expect(info.json.result).toMatchObject({ sessionId, ended: true, terminationInfo: { reason: "terminated", terminatedBy: "daemon" } });
    stream.close();
  });

  it("merges set_metadata and injects runtime keys into session/list", async () => {
    const connId = await connect();
    const sessionId = await newSession(connId, { variant: "high" }, "/work");
    const set = await post(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "_sandboxagent/session/set_metadata",
        params: { sessionId, metadata: { title: "sdk title", permissionMode: "ask", model: "mock", note: null } },
      },
      { connId },
    );
    expect(set.json.result).toEqual({});
    const otherSession = await newSession(connId, {}, "/elsewhere");

    const list = await post({ jsonrpc: "2.0", id: 3, method: "session/list", params: { cwd: "/work" } }, { connId });
    const result = list.json.result as Json;
    expect(result.nextCursor).toBeNull();
    const sessions = result.sessions as Json[];
    expect(sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    expect(sessions).not.toContainEqual(expect.objectContaining({ sessionId: otherSession }));
    const entry = sessions[0] as Json;
    expect(entry).toMatchObject({ sessionId, cwd: "/work", title: "sdk title" });
    expect((entry._meta as Json)["sandboxagent.dev"]).toMatchObject({
      agent: "mock",
      variant: "high",
      permissionMode: "ask",
      model: "mock",
      title: "sdk title",
      note: null,
      ended: false,
    });
    const injected = (entry._meta as Json)["sandboxagent.dev"] as Json;
    expect(Number.isInteger(injected.createdAt) && Number.isInteger(injected.updatedAt)).toBe(true);
    expect(Number.isInteger(injected.eventCount)).toBe(true);

    const unknown = await post(
      { jsonrpc: "2.0", id: 4, method: "_sandboxagent/session/set_metadata", params: { sessionId: "nope", metadata: {} } },
      { connId },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ type: "urn:sandbox-agent:error:client_not_found", sessionId: "nope" });
  });

  it("rewrites agent request ids and maps client answers back", async () => {
    const connId = await connect();
    const sessionId = await newSession(connId);
    const stream = await Stream.open(connId);
    await post(prompt(1, sessionId, "need permission"), { connId });
    const [request] = await stream.waitFor((f) => f.length >= 1);
    expect(request?.data).toMatchObject({ id: "agent_req_1", method: "session/request_permission" });
    const answer = { jsonrpc: "2.0", id: "agent_req_1", result: { outcome: { outcome: "cancelled" } } };
    expect((await post(answer, { connId })).status).toBe(202);
    const stale = await post(answer, { connId });
    expect(stale.status).toBe(400);
    expect(stale.json.detail).toBe("invalid request: JSON-RPC response id does not match any pending ACP agent request");
    stream.close();
  });

  it("serves fs extensions and the §8 file endpoints relative to $HOME", async () => {
    const connId = await connect();
    const write = await post(
      { jsonrpc: "2.0", id: 1, method: "_sandboxagent/fs/write_file", params: { path: "dir/a.txt", contentBase64: Buffer.from("hi").toString("base64") } },
      { connId },
    );
    expect(write.json.result).toEqual({ path: join(home, "dir/a.txt"), bytesWritten: 2 });
    expect(await readFile(join(home, "dir/a.txt"), "utf8")).toBe("hi");

    const escape = await post({ jsonrpc: "2.0", id: 2, method: "_sandboxagent/fs/stat", params: { path: "../x" } }, { connId });
    expect(escape.json.detail).toBe("invalid request: invalid relative path: ../x");
    const missing = await post({ jsonrpc: "2.0", id: 3, method: "_sandboxagent/fs/stat", params: { path: "nope" } }, { connId });
    expect(missing.json.detail).toBe(`invalid request: path not found: ${join(home, "nope")}`);

    await writeFile(join(home, "b.bin"), Buffer.from([1, 2, 3]));
    const read = await fetch(`${server.baseUrl}/v2/fs/file?path=b.bin`);
    expect(read.headers.get("content-type")).toBe("application/octet-stream");
    expect([...new Uint8Array(await read.arrayBuffer())]).toEqual([1, 2, 3]);
    const put = await fetch(`${server.baseUrl}/v2/fs/file?path=new/c.txt`, { method: "PUT", body: "abc" });
    expect(await put.json()).toEqual({ path: join(home, "new/c.txt"), bytesWritten: 3 });
    const both = await fetch(`${server.baseUrl}/v2/fs/file?path=b.bin&session_id=s&sessionId=s`);
    expect(both.status).toBe(400);
  });
});

describe("v2 contract server: §1.8 auth and §2.1 fixed bodies", () => {
  it("requires the exact bearer token, health included", async () => {
    const guarded = await start({ token: "secret" });
    const health = (authorization?: string) =>
      fetch(`${guarded.baseUrl}/v2/health`, { headers: authorization ? { authorization } : {} });
    const denied = await health();
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({
      type: "urn:sandbox-agent:error:token_invalid",
      title: "Token Invalid",
      status: 401,
      detail: "token invalid",
      details: { message: "missing or invalid bearer token" },
    });
    expect((await health("bearer secret")).status).toBe(401);
    expect((await health("Bearer wrong")).status).toBe(401);
    const ok = await health("Bearer secret");
    expect(await ok.json()).toEqual({ status: "ok" });
    expect((await post(initialize(), { on: guarded })).status).toBe(401);
  });

  it("answers /v1 with 410 and unknown routes with 404", async () => {
    const v1 = await fetch(`${server.baseUrl}/v1/sessions`);
    expect(v1.status).toBe(410);
    expect(await v1.json()).toEqual({
      type: "urn:sandbox-agent:error:v1_removed",
      title: "v1 API removed",
      status: 410,
      detail: "v1 API removed; use /v2",
    });
    const missing = await fetch(`${server.baseUrl}/v2/sessions`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      type: "urn:sandbox-agent:error:invalid_request",
      title: "Not Found",
      status: 404,
      detail: "endpoint not found",
    });
  });
});
