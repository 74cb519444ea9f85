// A tiny OpenAI-compatible chat-completions server on loopback. Agents that speak
// the OpenAI protocol (qwen serve) can run end to end in tests against it, with
// no credentials and nothing leaving 127.0.0.1.
//
// The reply is chosen from the text of the last user message, but only while the
// conversation ends on that user message; once a tool result follows it, the model
// must answer with plain text or a TOOLCALL prompt would loop forever.
//   SLOW      the text chunks are spaced `slowDelayMs` apart (stream-resume tests)
//   TOOLCALL  one streamed `write_file` call into the workspace (permission tests)
//   otherwise a few short chunks: `${FAKE_REPLY_MARKER} <first words of the prompt>`
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";

/** Every default reply starts with this, so tests can tell the model's text from echoes of the prompt. */
export const FAKE_REPLY_MARKER = "FAKE-REPLY:";
/** The file name the TOOLCALL switch asks the agent to create inside the workspace. */
export const FAKE_TOOLCALL_FILE = "created-by-fake-model.txt";
/** The content the TOOLCALL switch asks the agent to write. */
export const FAKE_TOOLCALL_CONTENT = "written by the fake model\n";

export interface FakeOpenAiOptions {
  /** Model id reported by `GET /v1/models` and in completions. Default `mock-model`. */
  model?: string;
  /** Loopback port; default 0 (the OS picks one). */
  port?: number;
  /** Gap between streamed chunks of ordinary replies, in ms. Default 10. */
  chunkDelayMs?: number;
  /** Gap between streamed chunks when the prompt says SLOW, in ms. Default 700. */
  slowDelayMs?: number;
  /** Absolute workspace directory; TOOLCALL writes `FAKE_TOOLCALL_FILE` there. Can be set later. */
  workspace?: string;
}

/** What the fake model saw in one chat request; handy when a test needs to know why the agent did something. */
export interface FakeOpenAiCall {
  stream: boolean;
  /** Text of the last user message, or "" when there is none. */
  lastUserText: string;
  /** Whether the conversation ended on that user message (only then do the switches apply). */
  endsWithUser: boolean;
  /** Names of the tools the request offered. */
  tools: readonly string[];
  reply: "text" | "slow" | "toolcall";
}

export interface FakeOpenAi {
  /** Base URL with the `/v1` suffix, as OpenAI clients expect, e.g. `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  readonly port: number;
  readonly model: string;
  /** The workspace TOOLCALL writes into, if known. */
  readonly workspace: string | undefined;
  setWorkspace(dir: string): void;
  /** Number of chat-completion requests answered or in progress. */
  requests(): number;
  calls(): readonly FakeOpenAiCall[];
  stop(): Promise<void>;
}

interface ChatMessage {
  role?: unknown;
  content?: unknown;
}

interface ChatRequest {
  stream?: unknown;
  messages?: unknown;
  tools?: unknown;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The user's own words in a message. OpenAI content is a string or a list of typed
 * parts, and qwen puts `<system-reminder>` blocks (skills, tools, date) in front of
 * the prompt in the same message; those are dropped so the echo and the switches
 * see only what the test sent.
 */
function contentText(content: unknown): string {
  const raw =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((part: unknown) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("\n")
        : "";
  return raw.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim();
}

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const tool of tools) {
    if (isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === "string") names.push(tool.function.name);
  }
  return names;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** The prompt's first words, echoed so a test can match the reply to the prompt it sent. */
function replyText(userText: string): string {
  const words = userText.trim().split(/\s+/).filter(Boolean).slice(0, 6).join(" ");
  return `${FAKE_REPLY_MARKER} ${words || "(empty prompt)"}`;
}

/** Splits the reply into a few pieces so the agent streams several chunks. */
function splitIntoChunks(text: string): string[] {
  const words = text.split(" ");
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += 2) chunks.push(words.slice(i, i + 2).join(" ") + (i + 2 < words.length ? " " : ""));
  return chunks;
}

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const model = options.model ?? "mock-model";
  const chunkDelayMs = options.chunkDelayMs ?? 10;
  const slowDelayMs = options.slowDelayMs ?? 700;
  let workspace = options.workspace;
  const calls: FakeOpenAiCall[] = [];
  const sockets = new Set<Socket>();
  let stopped = false;

  const completion = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let body: ChatRequest;
    try {
      const parsed: unknown = JSON.parse(await readBody(req));
      body = isRecord(parsed) ? parsed : {};
    } catch {
      sendJson(res, 400, { error: { message: "invalid JSON", type: "invalid_request_error" } });
      return;
    }
    const messages: ChatMessage[] = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
    const last = messages.at(-1);
    const lastUser = [...messages].reverse().find((m) => m.role === "user");
    const lastUserText = lastUser ? contentText(lastUser.content) : "";
    const endsWithUser = last !== undefined && last === lastUser;
    const tools = toolNames(body.tools);
    const stream = body.stream === true;
    // Background requests (memory extraction, suggestions) quote the conversation,
    // so a switch word alone is not enough: TOOLCALL also needs the tool on offer.
    let reply: FakeOpenAiCall["reply"] = "text";
    if (endsWithUser && lastUserText.includes("TOOLCALL") && tools.includes("write_file") && workspace !== undefined) reply = "toolcall";
    else if (endsWithUser && lastUserText.includes("SLOW")) reply = "slow";
    calls.push({ stream, lastUserText, endsWithUser, tools, reply });

    const id = `chatcmpl-fake-${calls.length}`;
    const created = Math.floor(Date.now() / 1000);
    const text = endsWithUser ? replyText(lastUserText) : `${FAKE_REPLY_MARKER} done`;
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const toolCall = {
      id: `call_fake_${calls.length}`,
      type: "function",
      function: {
        name: "write_file",
        arguments: JSON.stringify({ file_path: join(workspace ?? "", FAKE_TOOLCALL_FILE), content: FAKE_TOOLCALL_CONTENT }),
      },
    };

    if (!stream) {
      const message = reply === "toolcall" ? { role: "assistant", content: null, tool_calls: [toolCall] } : { role: "assistant", content: text };
      sendJson(res, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message, finish_reason: reply === "toolcall" ? "tool_calls" : "stop" }],
        usage,
      });
      return;
    }

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    // The agent may give up on a request (cancel); stop writing once it has.
    let gone = false;
    res.on("close", () => {
      gone = true;
    });
    const send = (delta: Record<string, unknown>, finish: string | null, withUsage = false) => {
      if (gone) return;
      const chunk = { id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...(withUsage ? { usage } : {}) };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    if (reply === "toolcall") {
      send({ role: "assistant", content: null, tool_calls: [{ index: 0, ...toolCall }] }, null);
      send({}, "tool_calls", true);
    } else {
      const delay = reply === "slow" ? slowDelayMs : chunkDelayMs;
      const pieces = reply === "slow" ? ["slow 1 ", "slow 2 ", "slow 3 ", "slow 4 ", "slow 5 ", text] : splitIntoChunks(text);
      for (const [i, piece] of pieces.entries()) {
        if (i > 0) await sleep(delay);
        if (gone || stopped) break;
        send(i === 0 ? { role: "assistant", content: piece } : { content: piece }, null);
      }
      send({}, "stop", true);
    }
    if (!gone) res.end("data: [DONE]\n\n");
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "POST" && path.endsWith("/chat/completions")) {
      completion(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: "server_error" } });
        else res.end();
      });
      return;
    }
    if (req.method === "GET" && path.endsWith("/models")) {
      sendJson(res, 200, { object: "list", data: [{ id: model, object: "model", created: 0, owned_by: "fake" }] });
      return;
    }
    // Anything else the client probes gets an OpenAI-shaped 404 at once, never a hang.
    req.resume();
    sendJson(res, 404, { error: { message: `no route ${req.method ?? ""} ${path}`, type: "invalid_request_error" } });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    model,
    get workspace() {
      return workspace;
    },
    setWorkspace(dir: string) {
      workspace = dir;
    },
    requests: () => calls.length,
    calls: () => [...calls],
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // Keep-alive sockets from the agent would otherwise hold close() open.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
