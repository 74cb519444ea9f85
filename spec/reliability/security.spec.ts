/**
 * Security: the token never shows up in a URL, an error, a thrown object's fields or a log line;
 * CR/LF in header values is refused before anything is sent; the token can rotate; a 401 is a
 * typed error without a retry storm.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { AcpHttpClient, AcpHttpError, AcpInvalidHeaderError, type AcpLogger } from "../../lib/acp-http/index.js";
import { SandboxAgentClient, type Logger } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { createFakeFetch } from "./support/fake-fetch.js";
import { outcome, report, sessionParams, textPrompt, v1Client, waitFor } from "./support/helpers.js";
import { SANDBOX_AGENT_V2 } from "../support/sandbox-agent-transport.js";

const TOKEN = `tok-${"S3CR3T".repeat(4)}-${process.pid}`;

let server: SandboxAgentServer;
const lines: string[] = [];
const urls: string[] = [];
const thrown: unknown[] = [];
let requestCount = 0;

const capture: Logger & AcpLogger = {
  debug: (message, details) => lines.push(`debug ${message} ${JSON.stringify(details ?? {})}`),
  warn: (message, details) => lines.push(`warn ${message} ${JSON.stringify(details ?? {})}`),
};

const recordingFetch: typeof fetch = async (input, init) => {
  requestCount++;
  urls.push(new Request(input, init).url);
  return fetch(input, init);
};

/** Everything an error exposes: message, stack, String, JSON, own enumerable fields, its causes. */
function exposure(error: unknown, depth = 0): string {
  if (depth > 5 || error === undefined || error === null) return "";
  if (typeof error !== "object") return String(error);
  const parts = [String(error), JSON.stringify(error), (error as Error).stack ?? ""];
  for (const [key, value] of Object.entries(error)) parts.push(key, typeof value === "object" ? JSON.stringify(value) ?? "" : String(value));
  return parts.join("\n") + exposure((error as { cause?: unknown }).cause, depth + 1);
}

async function collect<T>(promise: Promise<T>): Promise<void> {
  const result = await outcome(promise);
  if (!result.ok) thrown.push(result.error);
}

beforeAll(async () => {
  server = await startSandboxAgent({ token: TOKEN });
});

afterAll(async () => {
  await server?.stop();
});

describe("the token does not leak", () => {
  it("through URLs, errors, thrown objects or log lines, over a run that exercises success and failure paths", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", token: TOKEN, fetch: recordingFetch, debug: capture, autoConnect: false });
    await client.connect();
    const session = await client.newSession({ cwd: server.home });
    await client.prompt(session.sessionId, "chunks 2");
    await collect(client.prompt(session.sessionId, "error -32000 scripted failure"));
    await collect(client.prompt(session.sessionId, "sleep 2000", { timeoutMs: 50 }));
    await collect(client.fs.readFile(`${server.home}/does/not/exist`));
    await collect(client.fs.stat(`${server.home}/nope`));
    await collect(client.getAgent("no-such-agent"));
    await collect(client.prompt(session.sessionId, "exit 3"));
    await collect(client.prompt(session.sessionId, "chunks 1"));
    await client.disconnect();
    await collect(client.prompt(session.sessionId, "chunks 1"));
    // A wrong token: the 401 error must not carry either token.
    const wrong = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", token: `${TOKEN}-wrong`, fetch: recordingFetch, debug: capture, autoConnect: false });
    await collect(wrong.connect());
    await collect(wrong.health());
    // The protocol client with its own logger, including a lost stream.
    const protocol = v1Client(server.baseUrl, "leak", { token: TOKEN, fetch: recordingFetch, logger: capture, reconnect: { maxRetries: 0 } });
    await protocol.initialize();
    const { sessionId } = await protocol.newSession(sessionParams());
    await collect(protocol.prompt(textPrompt(sessionId, "error 7 nope")));
    await collect(protocol.request("no/such/method", {}));
    await protocol.disconnect();
    await collect(protocol.prompt(textPrompt(sessionId, "chunks 1")));
    const everything = [...urls, ...lines, ...thrown.map((error) => exposure(error))].join("\n");
    report("token leak check", { requests: requestCount, urls: urls.length, logLines: lines.length, errors: thrown.length, errorNames: thrown.map((error) => (error as Error).name) });
    expect(thrown.length).toBeGreaterThanOrEqual(10);
    expect(lines.length).toBeGreaterThan(0);
    expect(urls.length).toBeGreaterThan(10);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain("S3CR3T");
    // Sanity: the capture would have seen it (the token really was sent, in a header).
    expect(thrown.some((error) => error instanceof Error && /401/.test(exposure(error)))).toBe(true);
  }, 60_000);
});

describe("CR/LF in header values", () => {
  const evil = ["value\r\nx-injected: 1", "value\nx-injected: 1", "value\r"];

  it.each(evil)("static header %j: refused before any request", async (value) => {
    const fake = createFakeFetch();
    expect(() => new AcpHttpClient({ baseUrl: "http://h.test", ...SANDBOX_AGENT_V2, fetch: fake.fetch, headers: { "x-custom": value } })).toThrow(AcpInvalidHeaderError);
    const sandbox = await outcome(
      (async () => {
        const client = new SandboxAgentClient({ baseUrl: "http://h.test", agent: "mock", serverApi: "v1", fetch: fake.fetch, headers: { "x-custom": value }, autoConnect: false });
        await client.connect();
      })(),
    );
    expect(sandbox.ok).toBe(false);
    if (!sandbox.ok) expect(exposure(sandbox.error)).not.toContain("x-injected");
    expect(fake.requests).toHaveLength(0);
  });

  it.each(evil)("token function yielding %j: the request rejects typed, no request made", async (value) => {
    const fake = createFakeFetch();
    const client = new AcpHttpClient({ baseUrl: "http://h.test", ...SANDBOX_AGENT_V2, fetch: fake.fetch, token: () => value });
    const result = await outcome(client.initialize());
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toBeInstanceOf(AcpInvalidHeaderError);
      expect(exposure(result.error)).not.toContain("x-injected");
    }
    expect(fake.requests).toHaveLength(0);
    await client.disconnect();
  });
});

describe("token rotation and 401", () => {
  it("a function-form token is read before every request, so it can rotate", async () => {
    const fake = createFakeFetch();
    let current = "first-token";
    const client = new AcpHttpClient({ baseUrl: "http://rot.test", ...SANDBOX_AGENT_V2, fetch: fake.fetch, token: () => current });
    await client.initialize();
    await waitFor(() => fake.streams.length === 1, 2000, "the stream");
    current = "second-token";
    await client.notify("x/one", {});
    current = "third-token";
    await client.notify("x/two", {});
    const auth = fake.requests.map((request) => `${request.method} ${request.headers.authorization}`);
    expect(auth).toEqual(["POST Bearer first-token", "GET Bearer first-token", "POST Bearer second-token", "POST Bearer third-token"]);
    await client.disconnect();
  });

  it("a 401 on the stream GET closes the connection as `unauthorized` after one retry with a fresh token (real server)", async () => {
    let calls = 0;
    const gets: string[] = [];
    const counting: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.method === "GET") gets.push(request.url);
      return fetch(input, init);
    };
    // Right for the first request (the POST that creates the connection), revoked afterwards.
    const client = v1Client(server.baseUrl, "revoked", { token: () => (calls++ === 0 ? TOKEN : "revoked"), fetch: counting, reconnect: { maxRetries: 5, initialDelayMs: 10 } });
    await client.initialize();
    const closed = await client.closed;
    report("401 on stream", { gets: gets.length, reason: closed.reason });
    expect(closed.reason).toBe("unauthorized");
    expect(closed.error?.cause).toBeInstanceOf(AcpHttpError);
    expect((closed.error?.cause as AcpHttpError).status).toBe(401);
    // A token function is asked once more and the GET re-sent once; refused again, it closes (no third GET).
    expect(gets).toHaveLength(2);
    await client.disconnect();
  }, 30_000);

  it("a 401 on a POST rejects that request with AcpHttpError 401 and is not retried", async () => {
    const posts: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.method === "POST") posts.push(Date.now());
      return fetch(input, init);
    };
    const client = v1Client(server.baseUrl, "bad-post", { token: "wrong", fetch: counting });
    const result = await outcome(client.initialize());
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toBeInstanceOf(AcpHttpError);
      expect((result.error as AcpHttpError).status).toBe(401);
    }
    expect(posts).toHaveLength(1);
    await client.disconnect();
  }, 30_000);
});
