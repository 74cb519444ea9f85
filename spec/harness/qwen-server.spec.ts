// Checks the qwen serve harness and its fake model with plain fetch and a small SSE
// reader, so that a failing SDK test against qwen can be told apart from a broken harness.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_REPLY_MARKER, FAKE_TOOLCALL_CONTENT, FAKE_TOOLCALL_FILE, startFakeOpenAi } from "../support/fake-openai.js";
import type { FakeOpenAi } from "../support/fake-openai.js";
import { processExists, QWEN_INSTALL_TIMEOUT_MS, qwenCliEntry, startQwenServe } from "../support/qwen-server.js";
import type { QwenServe } from "../support/qwen-server.js";

// qwen serve needs ~5 s on an idle two-core machine before its ACP child is ready; a prompt
// takes 1-2 s. The hook outlasts startQwenServe's own 30 s deadline so that a slow start
// fails with the daemon's output (and cleans up) rather than with a bare hook timeout.
const START_TIMEOUT_MS = 40_000;
const STEP_TIMEOUT_MS = 15_000;

interface RpcMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

interface SseFrame {
  /** The SSE `id:` line, if the frame had one. */
  id: string | undefined;
  message: RpcMessage;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Collects the frames of one SSE response as they arrive. Frames without `data:`
 * (`retry:`, heartbeat comments) are skipped; `waitFor` resolves on the first
 * matching frame, including ones that arrived before it was called.
 */
class SseReader {
  readonly frames: SseFrame[] = [];
  ended = false;
  private wake: (() => void)[] = [];

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {}

  static async open(url: string, headers: Record<string, string>): Promise<SseReader> {
    const abort = new AbortController();
    const response = await fetch(url, { headers: { Accept: "text/event-stream", ...headers }, signal: abort.signal });
    const reader = new SseReader(response, abort);
    if (response.ok && response.body) void reader.pump(response.body);
    else reader.finish();
    return reader;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = body.getReader();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += decoder.decode(read.value, { stream: true });
        let end: RegExpExecArray | null;
        while ((end = /\r?\n\r?\n/.exec(buffer)) !== null) {
          this.push(buffer.slice(0, end.index));
          buffer = buffer.slice(end.index + end[0].length);
        }
      }
    } catch {
      // Aborted by close(), or the server dropped the stream.
    }
    this.finish();
  }

  private push(block: string): void {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("id:")) id = line.slice(3).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length === 0) return;
    this.frames.push({ id, message: JSON.parse(data.join("\n")) as RpcMessage });
    this.notify();
  }

  private finish(): void {
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    for (const wake of this.wake.splice(0)) wake();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.wake.push(resolve));
  }

  async waitFor(match: (frame: SseFrame) => boolean, timeoutMs = 10_000): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (this.ended) throw new Error(`stream ended before a matching frame; got ${JSON.stringify(this.frames)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.changed(), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  }

  async waitForEnd(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stream still open after ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.changed(), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  }

  close(): void {
    this.abort.abort();
  }
}

const isReply = (id: number) => (frame: SseFrame) => frame.message.id === id && frame.message.method === undefined;

function updateOf(frame: SseFrame): Record<string, unknown> | undefined {
  if (frame.message.method !== "session/update" || !isRecord(frame.message.params)) return undefined;
  const update = frame.message.params.update;
  return isRecord(update) ? update : undefined;
}

function chunkText(frame: SseFrame): string | undefined {
  const update = updateOf(frame);
  if (update?.sessionUpdate !== "agent_message_chunk" || !isRecord(update.content)) return undefined;
  return typeof update.content.text === "string" ? update.content.text : undefined;
}

/** A plain-fetch ACP client for one connection: just enough to drive the harness. */
class AcpProbe {
  connectionId: string | undefined;
  private nextId = 1;

  constructor(private readonly server: QwenServe) {}

  get url(): string {
    return `${this.server.baseUrl}/acp`;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...(this.server.token !== undefined ? { Authorization: `Bearer ${this.server.token}` } : {}),
      ...(this.connectionId !== undefined ? { "Acp-Connection-Id": this.connectionId } : {}),
      ...extra,
    };
  }

  /** POSTs a request and returns its id with the HTTP response. */
  async request(method: string, params: unknown, extraHeaders: Record<string, string> = {}): Promise<{ id: number; response: Response }> {
    const id = this.nextId++;
    const response = await this.send({ jsonrpc: "2.0", id, method, params }, extraHeaders);
    return { id, response };
  }

  send(message: RpcMessage, extraHeaders: Record<string, string> = {}): Promise<Response> {
    return fetch(this.url, {
      method: "POST",
      headers: this.headers({ "Content-Type": "application/json", ...extraHeaders }),
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(10_000),
    });
  }

  openStream(extraHeaders: Record<string, string> = {}): Promise<SseReader> {
    return SseReader.open(this.url, this.headers(extraHeaders));
  }
}

describe("fake OpenAI server", () => {
  let model: FakeOpenAi;
  const workspace = "/tmp/fake-openai-workspace";

  beforeAll(async () => {
    model = await startFakeOpenAi({ workspace, slowDelayMs: 40 });
  });
  afterAll(async () => {
    await model?.stop();
  });

  const chat = (body: Record<string, unknown>) =>
    fetch(`${model.baseUrl}/chat/completions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ model: "mock-model", ...body }) });

  /** Reads an OpenAI SSE reply into its chunk objects, with arrival times. */
  async function streamed(body: Record<string, unknown>): Promise<{ chunks: Record<string, unknown>[]; times: number[]; done: boolean }> {
    const response = await chat({ ...body, stream: true });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const chunks: Record<string, unknown>[] = [];
    const times: number[] = [];
    let done = false;
    let buffer = "";
    const decoder = new TextDecoder();
    const reader = response.body?.getReader();
    for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
      buffer += decoder.decode(read.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const data = buffer.slice(0, end).replace(/^data: /, "");
        buffer = buffer.slice(end + 2);
        if (data === "[DONE]") done = true;
        else {
          const parsed: unknown = JSON.parse(data);
          if (isRecord(parsed)) chunks.push(parsed);
          times.push(Date.now());
        }
      }
    }
    return { chunks, times, done };
  }

  const deltaOf = (chunk: Record<string, unknown>): Record<string, unknown> => {
    const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    return isRecord(choice) && isRecord(choice.delta) ? choice.delta : {};
  };

  it("lists its model", async () => {
    const body: unknown = await (await fetch(`${model.baseUrl}/models`)).json();
    expect(body).toMatchObject({ data: [{ id: "mock-model" }] });
  });

  it("answers a non-streaming request with the marker and the prompt's first words", async () => {
    const response = await chat({ messages: [{ role: "user", content: "hello non streaming world" }] });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: `${FAKE_REPLY_MARKER} hello non streaming world` }, finish_reason: "stop" }],
    });
  });

  it("streams a short reply in several chunks, ignoring system reminders in front of the prompt", async () => {
    const content = [
      { type: "text", text: "<system-reminder>\nSLOW TOOLCALL are only in a reminder\n</system-reminder>" },
      { type: "text", text: "echo these words please" },
    ];
    const { chunks, done } = await streamed({ messages: [{ role: "user", content }] });
    const text = chunks.map((c) => deltaOf(c).content).filter((t): t is string => typeof t === "string").join("");
    expect(text).toBe(`${FAKE_REPLY_MARKER} echo these words please`);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: "stop" }], usage: { total_tokens: 15 } });
    expect(done).toBe(true);
  });

  it("spaces chunks apart for SLOW", async () => {
    const { times } = await streamed({ messages: [{ role: "user", content: "SLOW please" }] });
    const first = times[0] ?? 0;
    const lastText = times.at(-2) ?? 0;
    expect(lastText - first).toBeGreaterThanOrEqual(4 * 40);
  });

  it("streams a write_file call into the workspace for TOOLCALL when the tool is offered", async () => {
    const tools = [{ type: "function", function: { name: "write_file", parameters: {} } }];
    const { chunks } = await streamed({ messages: [{ role: "user", content: "TOOLCALL now" }], tools });
    const calls = deltaOf(chunks[0] ?? {}).tool_calls;
    expect(calls).toMatchObject([{ index: 0, type: "function", function: { name: "write_file" } }]);
    const args: unknown = Array.isArray(calls) && isRecord(calls[0]) && isRecord(calls[0].function) ? JSON.parse(String(calls[0].function.arguments)) : undefined;
    expect(args).toEqual({ file_path: join(workspace, FAKE_TOOLCALL_FILE), content: FAKE_TOOLCALL_CONTENT });
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: "tool_calls" }] });

    // Once the tool result is in, the model must answer in text or the agent would loop.
    const after = await streamed({
      messages: [
        { role: "user", content: "TOOLCALL now" },
        { role: "assistant", content: null, tool_calls: calls },
        { role: "tool", tool_call_id: "x", content: "ok" },
      ],
      tools,
    });
    expect(deltaOf(after.chunks[0] ?? {}).content).toContain(FAKE_REPLY_MARKER);
  });

  it("counts requests", () => {
    expect(model.requests()).toBe(model.calls().length);
    expect(model.calls().map((c) => c.reply)).toEqual(["text", "text", "slow", "toolcall", "text"]);
  });
});

// qwen-code is installed on demand (once per machine); its own hook, so the install is outside the start deadline.
beforeAll(() => qwenCliEntry(), QWEN_INSTALL_TIMEOUT_MS);

describe("qwen serve harness", () => {
  let server: QwenServe | undefined;
  let secured: QwenServe | undefined;
  let sharedModel: FakeOpenAi | undefined;
  const pids: number[] = [];

  const qwen = (): QwenServe => {
    if (!server) throw new Error("qwen serve did not start");
    return server;
  };

  beforeAll(async () => {
    sharedModel = await startFakeOpenAi();
    // Started side by side: each start is mostly waiting on its own ACP child.
    const started = await Promise.allSettled([startQwenServe(), startQwenServe({ token: "s3cret-token", model: sharedModel })]);
    server = started[0].status === "fulfilled" ? started[0].value : undefined;
    secured = started[1].status === "fulfilled" ? started[1].value : undefined;
    for (const s of [server, secured]) if (s) pids.push(s.pid, ...(s.acpChildPid !== undefined ? [s.acpChildPid] : []));
    const failure = started.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure) throw failure.reason;
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.allSettled([server?.stop(), secured?.stop()]);
    await sharedModel?.stop();
  }, STEP_TIMEOUT_MS);

  it("is ready once started: /health answers and the ACP child runs", async () => {
    const s = qwen();
    expect(s.baseUrl).toBe(`http://127.0.0.1:${s.port}`);
    expect((await fetch(`${s.baseUrl}/health`)).status).toBe(200);
    expect(s.acpChildPid).toBeDefined();
    expect(processExists(s.acpChildPid ?? -1)).toBe(true);
    expect(existsSync(join(s.home, ".qwen", "settings.json"))).toBe(true);
    expect(s.workspace.startsWith("/")).toBe(true);
  });

  describe("one connection, end to end", () => {
    let probe: AcpProbe;
    let connection: SseReader | undefined;
    let session: SseReader | undefined;
    let sessionId = "";

    beforeAll(() => {
      probe = new AcpProbe(qwen());
    });
    afterAll(() => {
      connection?.close();
      session?.close();
    });

    it("initialize answers 200 with an Acp-Connection-Id header", async () => {
      const { id, response } = await probe.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      expect(response.status).toBe(200);
      probe.connectionId = response.headers.get("acp-connection-id") ?? undefined;
      expect(probe.connectionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id, result: { protocolVersion: 1 } });
    });

    it("session/new answers 202 and its reply arrives on the connection stream", async () => {
      connection = await probe.openStream();
      expect(connection.response.status).toBe(200);
      expect(connection.response.headers.get("content-type")).toContain("text/event-stream");

      const { id, response } = await probe.request("session/new", { cwd: qwen().workspace, mcpServers: [] });
      expect(response.status).toBe(202);
      const reply = await connection.waitFor(isReply(id), STEP_TIMEOUT_MS);
      expect(reply.id).toBeUndefined();
      const result = reply.message.result;
      expect(isRecord(result) && typeof result.sessionId === "string").toBe(true);
      sessionId = isRecord(result) && typeof result.sessionId === "string" ? result.sessionId : "";
    }, STEP_TIMEOUT_MS);

    it("a prompt answers 202 and streams id-stamped updates and its result on the session stream", async () => {
      session = await probe.openStream({ "Acp-Session-Id": sessionId, "Last-Event-ID": "0" });
      expect(session.response.status).toBe(200);

      const started = Date.now();
      const { id, response } = await probe.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Streaming check from the harness" }] });
      expect(response.status).toBe(202);
      const result = await session.waitFor(isReply(id), STEP_TIMEOUT_MS);
      const promptMs = Date.now() - started;
      expect(result.message.result).toMatchObject({ stopReason: "end_turn" });

      const chunks = session.frames.filter((f) => chunkText(f) !== undefined);
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.map(chunkText).join("")).toBe(`${FAKE_REPLY_MARKER} Streaming check from the harness`);
      // Session notifications carry a per-session, increasing event id; replies carry none.
      const ids = session.frames.filter((f) => f.message.method === "session/update").map((f) => Number(f.id));
      expect(ids.every((n) => Number.isInteger(n) && n > 0)).toBe(true);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(result.id).toBeUndefined();
      expect(promptMs).toBeLessThan(STEP_TIMEOUT_MS);
    }, STEP_TIMEOUT_MS);

    it("TOOLCALL in mode default brings a permission request, and allowing it writes the file", async () => {
      const mode = await probe.request("session/set_config_option", { sessionId, configId: "mode", value: "default" });
      expect(mode.response.status).toBe(202);
      await session?.waitFor(isReply(mode.id), STEP_TIMEOUT_MS);

      const { id } = await probe.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "TOOLCALL write the file" }] });
      const ask = await session?.waitFor((f) => f.message.method === "session/request_permission", STEP_TIMEOUT_MS);
      expect(ask?.id).toMatch(/^\d+$/);
      const answer = await probe.send({ jsonrpc: "2.0", id: ask?.message.id ?? null, result: { outcome: { outcome: "selected", optionId: "proceed_once" } } });
      expect(answer.status).toBe(202);
      const result = await session?.waitFor(isReply(id), STEP_TIMEOUT_MS);
      expect(result?.message.result).toMatchObject({ stopReason: "end_turn" });
      expect(readFileSync(join(qwen().workspace, FAKE_TOOLCALL_FILE), "utf8")).toBe(FAKE_TOOLCALL_CONTENT);
    }, STEP_TIMEOUT_MS);

    it("DELETE answers 202 and ends both streams", async () => {
      const response = await fetch(probe.url, { method: "DELETE", headers: probe.headers() });
      expect(response.status).toBe(202);
      await connection?.waitForEnd();
      await session?.waitForEnd();
      const after = await probe.request("session/list", {});
      expect(after.response.status).toBe(404);
    });
  });

  it("with a token, /acp refuses requests without the bearer and accepts them with it", async () => {
    if (!secured) throw new Error("qwen serve with a token did not start");
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } };
    const post = (headers: Record<string, string>) =>
      fetch(`${secured?.baseUrl ?? ""}/acp`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(init) });
    expect((await post({})).status).toBe(401);
    expect((await post({ Authorization: "Bearer wrong" })).status).toBe(401);
    const ok = await post({ Authorization: "Bearer s3cret-token" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("acp-connection-id")).toBeTruthy();
    expect(secured.model).toBe(sharedModel);
  });

  it("stop() leaves no process behind and removes its temp dirs; a second stop() is harmless", async () => {
    const stopping = [server, secured].filter((s): s is QwenServe => s !== undefined);
    await Promise.all(stopping.map((s) => s.stop()));
    await Promise.all(stopping.map((s) => s.stop()));
    expect(pids.length).toBeGreaterThanOrEqual(4);
    expect(pids.filter(processExists)).toEqual([]);
    for (const s of stopping) {
      expect(existsSync(s.workspace)).toBe(false);
      expect(existsSync(s.home)).toBe(false);
    }
  }, STEP_TIMEOUT_MS);
});
