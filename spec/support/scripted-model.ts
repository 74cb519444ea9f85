// A scripted model API on loopback for the real agents (Claude Code, Codex) the suites drive
// through the real server. It speaks two published wire formats:
//   - Anthropic Messages (`POST /v1/messages`, streaming SSE: message_start, content_block_start /
//     _delta / _stop for text, thinking and tool_use with streamed input_json_delta, message_delta
//     with stop_reason, message_stop; errors as a JSON body with an HTTP status, or as an `error`
//     event inside a stream that already began);
//   - OpenAI Responses (`POST /v1/responses`, streaming SSE: response.created, output items for
//     messages and function calls, text and argument deltas, response.completed or response.failed).
//
// A test scripts a turn with `script(marker, replies)`: the marker is a word the test's prompt
// carries. A request belongs to the script whose marker is in the newest user text of the
// conversation; which reply it gets is decided by state, not by position: the first reply whose
// tool calls have no result in the conversation yet. (Claude Code merges a tool result and the next
// prompt into one user message, with the results first, so block order says nothing.) A request of
// no script (titles, summaries, warm-ups) gets a short harmless answer. Every request is recorded,
// with whether the client closed the stream before it ended (a cancel that really stopped the model).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One block of a scripted reply. */
export type ScriptedBlock =
  | { type: "text"; chunks: string[] }
  | { type: "thinking"; chunks: string[] }
  | { type: "tool"; name: string; input: Record<string, unknown> };

/** A model error: an HTTP status with the provider's error body, or an error event mid-stream. */
export interface ScriptedError {
  status: number;
  /** Anthropic: `overloaded_error`, `authentication_error`, ...; OpenAI: the error code. */
  type: string;
  message: string;
  /** Send the error as an event after the stream began (HTTP 200) instead of as the status. */
  inStream?: boolean;
}

/** One reply of the model: blocks streamed in order, or an error. */
export interface ScriptedReply {
  blocks?: ScriptedBlock[];
  error?: ScriptedError;
  /** Gap between streamed events, ms (default 5); a slow reply can be cancelled mid-stream. */
  delayMs?: number;
}

/** What the endpoint saw in one request. */
export interface ModelRequest {
  api: "anthropic" | "responses" | "other";
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The marker of the script that answered, if any. */
  marker: string | undefined;
  /** Index of the reply given within that script. */
  step: number | undefined;
  /** The names of the tools the request offered. */
  tools: string[];
  /** True once the whole answer was written. */
  finished: boolean;
  /** True when the client closed the connection before the answer was complete. */
  closedEarly: boolean;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>` (Anthropic clients add `/v1/...`; OpenAI providers take `${baseUrl}/v1`). */
  readonly baseUrl: string;
  /** Scripts the turns whose prompt carries `marker`. */
  script(marker: string, replies: ScriptedReply[]): void;
  /** Every request so far, in arrival order. */
  requests(): readonly ModelRequest[];
  /** The requests a script answered, for `marker`. */
  requestsFor(marker: string): readonly ModelRequest[];
  /** Resolves once `check` holds (polled), or rejects after `timeoutMs`. */
  waitFor(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The tool call id the script gives block `index` of reply `step` (stable, so state can be read back). */
export const toolCallId = (marker: string, step: number, index: number, api: "anthropic" | "responses"): string =>
  `${api === "anthropic" ? "toolu" : "call"}_${marker.replace(/\W/g, "")}_${step}_${index}`;

const HARMLESS = "OK.";

export async function startScriptedModel(): Promise<ScriptedModel> {
  const scripts = new Map<string, ScriptedReply[]>();
  const seen: ModelRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown = undefined;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const api = req.method === "POST" && path.endsWith("/messages") ? "anthropic"
      : req.method === "POST" && path.endsWith("/responses") ? "responses"
      : "other";
    const record: ModelRequest = {
      api,
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body,
      marker: undefined,
      step: undefined,
      tools: toolNames(body),
      finished: false,
      closedEarly: false,
    };
    seen.push(record);
    res.once("close", () => {
      if (!record.finished) record.closedEarly = true;
    });
    if (api === "other") return answerOther(path, req, res, record);

    const reading = api === "anthropic" ? readAnthropic(body) : readResponses(body);
    // The marker written last: after a cancel Claude Code sends the cancelled prompt, a notice and the
    // new prompt in one message.
    const text = reading.newestUserText;
    const marker = [...scripts.keys()]
      .filter((m) => text.includes(m))
      .sort((a, b) => text.lastIndexOf(b) - text.lastIndexOf(a))[0];
    let reply: ScriptedReply = { blocks: [{ type: "text", chunks: [HARMLESS] }] };
    if (marker !== undefined) {
      const replies = scripts.get(marker) ?? [];
      // The first reply whose tool calls are not all answered yet; the last one once all are.
      let step = replies.findIndex((r, i) =>
        toolIndexes(r).some((index) => !reading.answeredToolIds.has(toolCallId(marker, i, index, api))),
      );
      if (step < 0) step = replies.length - 1;
      record.marker = marker;
      record.step = step;
      reply = replies[step] ?? reply;
    }
    const stream = isStreaming(body);
    if (api === "anthropic") await sendAnthropic(res, record, reply, stream, modelOf(body));
    else await sendResponses(res, record, reply, modelOf(body));
  }

  function answerOther(path: string, req: IncomingMessage, res: ServerResponse, record: ModelRequest): void {
    if (path.endsWith("/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ input_tokens: 12 }));
    } else if (path.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [], has_more: false, models: [] }));
    } else if (req.method === "HEAD") {
      res.writeHead(200);
      res.end();
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    }
    record.finished = true;
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    script: (marker, replies) => {
      if (replies.length === 0) throw new Error("a script needs at least one reply");
      scripts.set(marker, replies);
    },
    requests: () => seen,
    requestsFor: (marker) => seen.filter((r) => r.marker === marker),
    waitFor: async (check, what, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`scripted model: timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function toolIndexes(reply: ScriptedReply): number[] {
  return (reply.blocks ?? []).flatMap((block, index) => (block.type === "tool" ? [index] : []));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStreaming(body: unknown): boolean {
  return isRecord(body) && body.stream === true;
}

function modelOf(body: unknown): string {
  return isRecord(body) && typeof body.model === "string" ? body.model : "scripted-model";
}

function toolNames(body: unknown): string[] {
  if (!isRecord(body) || !Array.isArray(body.tools)) return [];
  return body.tools.flatMap((tool) => {
    if (!isRecord(tool)) return [];
    const name = tool.name ?? (isRecord(tool.function) ? tool.function.name : undefined) ?? tool.type;
    return typeof name === "string" ? [name] : [];
  });
}

interface Reading {
  /** The newest user-written text of the conversation (tool results and reminders aside). */
  newestUserText: string;
  /** Ids of the tool calls the conversation already has a result for. */
  answeredToolIds: Set<string>;
}

/** Claude Code's conversation: user messages with text and tool_result blocks. */
function readAnthropic(body: unknown): Reading {
  const answered = new Set<string>();
  let newest = "";
  const messages = isRecord(body) && Array.isArray(body.messages) ? body.messages : [];
  for (const message of messages) {
    if (!isRecord(message) || message.role !== "user") continue;
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (!Array.isArray(content)) continue;
    const texts: string[] = [];
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block.type === "tool_result" && typeof block.tool_use_id === "string") answered.add(block.tool_use_id);
      if (block.type === "text" && typeof block.text === "string" && !block.text.startsWith("<system-reminder>")) {
        texts.push(block.text);
      }
    }
    if (texts.length > 0) newest = texts.join("\n");
  }
  return { newestUserText: newest, answeredToolIds: answered };
}

/** Codex's conversation: input items (messages, function_call, function_call_output). */
function readResponses(body: unknown): Reading {
  const answered = new Set<string>();
  let newest = "";
  const input = isRecord(body) && Array.isArray(body.input) ? body.input : [];
  for (const item of input) {
    if (!isRecord(item)) continue;
    if (item.type === "function_call_output" && typeof item.call_id === "string") answered.add(item.call_id);
    if (item.role === "user" && Array.isArray(item.content)) {
      const texts = item.content.flatMap((part) =>
        isRecord(part) && typeof part.text === "string" && !part.text.startsWith("<") ? [part.text] : [],
      );
      if (texts.length > 0) newest = texts.join("\n");
    }
  }
  return { newestUserText: newest, answeredToolIds: answered };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes one SSE event unless the client is gone; false once it is. */
function writeEvent(res: ServerResponse, event: string | undefined, data: unknown): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
  return true;
}

async function sendAnthropic(
  res: ServerResponse,
  record: ModelRequest,
  reply: ScriptedReply,
  stream: boolean,
  model: string,
): Promise<void> {
  const error = reply.error;
  if (error && !error.inStream) {
    res.writeHead(error.status, { "content-type": "application/json", "request-id": "req_scripted" });
    res.end(JSON.stringify({ type: "error", error: { type: error.type, message: error.message } }));
    record.finished = true;
    return;
  }
  const id = `msg_scripted_${record.step ?? "x"}_${Date.now()}`;
  const blocks = reply.blocks ?? [];
  const usage = { input_tokens: 25, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const stopReason = blocks.some((b) => b.type === "tool") ? "tool_use" : "end_turn";
  const toolInput = (block: ScriptedBlock) => (block.type === "tool" ? block.input : {});
  if (!stream) {
    const content = blocks.map((block, index) =>
      block.type === "text" ? { type: "text", text: block.chunks.join("") }
      : block.type === "thinking" ? { type: "thinking", thinking: block.chunks.join(""), signature: "c2NyaXB0ZWQ=" }
      : { type: "tool_use", id: toolCallId(record.marker ?? "", record.step ?? 0, index, "anthropic"), name: block.name,
        input: toolInput(block) },
    );
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id, type: "message", role: "assistant", model, content, stop_reason: stopReason,
      stop_sequence: null, usage: { ...usage, output_tokens: 10 } }));
    record.finished = true;
    return;
  }
  const headers = { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": "req_scripted" };
  res.writeHead(200, headers);
  const delay = reply.delayMs ?? 5;
  const send = async (event: string, data: Record<string, unknown>): Promise<boolean> => {
    if (!writeEvent(res, event, { type: event, ...data })) return false;
    // Complete once the last event is out: a client may close as soon as it has it.
    if (event === "message_stop") record.finished = true;
    if (delay > 0) await pause(delay);
    return !res.destroyed;
  };
  if (!(await send("message_start", { message: { id, type: "message", role: "assistant", model, content: [],
    stop_reason: null, stop_sequence: null, usage } }))) return;
  if (!(await send("ping", {}))) return;
  let outputTokens = 0;
  for (const [index, block] of blocks.entries()) {
    if (block.type === "text") {
      if (!(await send("content_block_start", { index, content_block: { type: "text", text: "" } }))) return;
      for (const text of block.chunks) {
        outputTokens++;
        if (!(await send("content_block_delta", { index, delta: { type: "text_delta", text } }))) return;
      }
    } else if (block.type === "thinking") {
      const start = { index, content_block: { type: "thinking", thinking: "", signature: "" } };
      if (!(await send("content_block_start", start))) return;
      for (const thinking of block.chunks) {
        outputTokens++;
        if (!(await send("content_block_delta", { index, delta: { type: "thinking_delta", thinking } }))) return;
      }
      const signature = { type: "signature_delta", signature: "c2NyaXB0ZWQ=" };
      if (!(await send("content_block_delta", { index, delta: signature }))) return;
    } else {
      const toolId = toolCallId(record.marker ?? "", record.step ?? 0, index, "anthropic");
      const start = { index, content_block: { type: "tool_use", id: toolId, name: block.name, input: {} } };
      if (!(await send("content_block_start", start))) return;
      // The input streams as JSON text in pieces, as the API does.
      const json = JSON.stringify(block.input);
      const cut = Math.max(1, Math.floor(json.length / 2));
      for (const partial_json of [json.slice(0, cut), json.slice(cut)]) {
        outputTokens++;
        if (!(await send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }))) return;
      }
    }
    if (!(await send("content_block_stop", { index }))) return;
  }
  if (error) {
    writeEvent(res, "error", { type: "error", error: { type: error.type, message: error.message } });
    res.end();
    record.finished = true;
    return;
  }
  if (!(await send("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: Math.max(1, outputTokens) } }))) return;
  if (!(await send("message_stop", {}))) return;
  res.end();
  record.finished = true;
}

async function sendResponses(res: ServerResponse, record: ModelRequest, reply: ScriptedReply, model: string) {
  const error = reply.error;
  if (error && !error.inStream) {
    res.writeHead(error.status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: error.message, type: error.type, code: error.type, param: null } }));
    record.finished = true;
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const delay = reply.delayMs ?? 5;
  let sequence = 0;
  const send = async (type: string, data: Record<string, unknown>): Promise<boolean> => {
    if (!writeEvent(res, type, { type, sequence_number: sequence++, ...data })) return false;
    if (type === "response.completed") record.finished = true;
    if (delay > 0) await pause(delay);
    return !res.destroyed;
  };
  const responseId = `resp_scripted_${record.step ?? "x"}_${Date.now()}`;
  const base = { id: responseId, object: "response", created_at: Math.floor(Date.now() / 1000), model };
  if (!(await send("response.created", { response: { ...base, status: "in_progress", output: [] } }))) return;
  const output: Record<string, unknown>[] = [];
  for (const [index, block] of (reply.blocks ?? []).entries()) {
    if (block.type === "tool") {
      const callId = toolCallId(record.marker ?? "", record.step ?? 0, index, "responses");
      const item = { type: "function_call", id: `fc_${callId}`, call_id: callId, name: block.name, arguments: "" };
      if (!(await send("response.output_item.added", { output_index: output.length, item }))) return;
      const args = JSON.stringify(block.input);
      const cut = Math.max(1, Math.floor(args.length / 2));
      for (const delta of [args.slice(0, cut), args.slice(cut)]) {
        const event = { item_id: item.id, output_index: output.length, delta };
        if (!(await send("response.function_call_arguments.delta", event))) return;
      }
      const done = { ...item, arguments: args, status: "completed" };
      const argsDone = { item_id: item.id, output_index: output.length, arguments: args };
      if (!(await send("response.function_call_arguments.done", argsDone))) return;
      if (!(await send("response.output_item.done", { output_index: output.length, item: done }))) return;
      output.push(done);
      continue;
    }
    const reasoning = block.type === "thinking";
    const itemId = `${reasoning ? "rs" : "msg"}_${responseId}_${index}`;
    const text = block.chunks.join("");
    if (reasoning) {
      const item = { type: "reasoning", id: itemId, summary: [] };
      if (!(await send("response.output_item.added", { output_index: output.length, item }))) return;
      const part = { item_id: itemId, output_index: output.length, summary_index: 0 };
      const emptySummary = { ...part, part: { type: "summary_text", text: "" } };
      if (!(await send("response.reasoning_summary_part.added", emptySummary))) return;
      for (const delta of block.chunks) {
        if (!(await send("response.reasoning_summary_text.delta", { ...part, delta }))) return;
      }
      if (!(await send("response.reasoning_summary_text.done", { ...part, text }))) return;
      const done = { ...item, summary: [{ type: "summary_text", text }] };
      if (!(await send("response.output_item.done", { output_index: output.length, item: done }))) return;
      output.push(done);
      continue;
    }
    const item = { type: "message", id: itemId, status: "in_progress", role: "assistant", content: [] };
    if (!(await send("response.output_item.added", { output_index: output.length, item }))) return;
    const where = { item_id: itemId, output_index: output.length, content_index: 0 };
    const emptyPart = { type: "output_text", text: "", annotations: [] };
    if (!(await send("response.content_part.added", { ...where, part: emptyPart }))) return;
    for (const delta of block.chunks) {
      if (!(await send("response.output_text.delta", { ...where, delta }))) return;
    }
    if (!(await send("response.output_text.done", { ...where, text }))) return;
    const part = { type: "output_text", text, annotations: [] };
    if (!(await send("response.content_part.done", { ...where, part }))) return;
    const done = { ...item, status: "completed", content: [part] };
    if (!(await send("response.output_item.done", { output_index: output.length, item: done }))) return;
    output.push(done);
  }
  if (error) {
    const failed = { ...base, status: "failed", output, error: { code: error.type, message: error.message } };
    writeEvent(res, "response.failed", { type: "response.failed", sequence_number: sequence++, response: failed });
    res.end();
    record.finished = true;
    return;
  }
  const usage = { input_tokens: 25, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 35 };
  if (!(await send("response.completed", { response: { ...base, status: "completed", output, usage } }))) return;
  res.end();
  record.finished = true;
}
