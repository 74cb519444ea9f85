/**
 * The sandbox client against small loopback servers that misbehave on purpose: they
 * record headers, never answer, or send headers and then stall the body.
 */
import {
  CallAbortedError,
  CallTimeoutError,
  NotConnectedError,
  SandboxAgentClient,
} from "../../../lib/sandbox/index.js";
import {
  neverAnswer,
  serveLoopback,
  type LoopbackHandler,
  type LoopbackServer,
} from "../../support/loopback-server.js";
import { settled } from "../../support/rejection.js";

/** Answers every request with `body` as JSON. */
function answering(body: unknown): LoopbackHandler {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
}

/** Sends the headers and the first bytes of a longer body, then nothing more. */
const stalling: LoopbackHandler = (_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
  res.write('{"path":"/tmp/x",');
};

describe("control-plane headers", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await serveLoopback(answering({ status: "ok", path: "/tmp/x", bytesWritten: 2 }));
  });
  afterAll(() => server.close());

  it("does not join a user Content-Type or Authorization with the client's own", async () => {
    const client = new SandboxAgentClient({
      baseUrl: server.url,
      serverApi: "v1",
      autoConnect: false,
      token: "tok",
      headers: { "Content-Type": "text/plain", Authorization: "Basic dXNlcg==", "X-Extra": "kept" },
    });
    await client.fs.writeFile("/tmp/x", "hi");
    const put = server.requests.at(-1);
    expect(put?.headers["content-type"]).toBe("application/octet-stream");
    expect(put?.headers.authorization).toBe("Bearer tok");
    expect(put?.headers["x-extra"]).toBe("kept");
    await client.health();
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer tok");
  });

  it("keeps a user Authorization when no token is given", async () => {
    const client = new SandboxAgentClient({
      baseUrl: server.url,
      serverApi: "v1",
      autoConnect: false,
      headers: { Authorization: "Basic dXNlcg==" },
    });
    await client.health();
    expect(server.requests.at(-1)?.headers.authorization).toBe("Basic dXNlcg==");
  });
});

describe("control-plane timeoutMs covers the body", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await serveLoopback(stalling);
  });
  afterAll(() => server.close());

  const client = (): SandboxAgentClient =>
    new SandboxAgentClient({ baseUrl: server.url, serverApi: "v1", autoConnect: false });

  it("ends fs.readFile on a body that stalls after the headers", async () => {
    expect(await settled(client().fs.readFile("/tmp/x", { timeoutMs: 200 }))).toBeInstanceOf(CallTimeoutError);
  });

  it("ends fs.stat on a body that stalls after the headers", async () => {
    expect(await settled(client().fs.stat("/tmp/x", { timeoutMs: 200 }))).toBeInstanceOf(CallTimeoutError);
  });

  it("ends a stalled body read when the call's signal aborts", async () => {
    const controller = new AbortController();
    const reading = client().fs.readFile("/tmp/x", { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await settled(reading)).toBeInstanceOf(CallAbortedError);
  });
});

describe("timeoutMs values", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await serveLoopback(answering({ status: "ok" }));
  });
  afterAll(() => server.close());

  const client = (): SandboxAgentClient =>
    new SandboxAgentClient({ baseUrl: server.url, serverApi: "v1", autoConnect: false });

  it("treats Infinity and 2^31 - 1 or more as no timeout", async () => {
    await expect(client().health({ timeoutMs: Infinity })).resolves.toEqual({ status: "ok" });
    await expect(client().health({ timeoutMs: 2 ** 31 - 1 })).resolves.toEqual({ status: "ok" });
    await expect(client().health({ timeoutMs: 2 ** 40 })).resolves.toEqual({ status: "ok" });
  });

  it("rejects a negative or NaN timeoutMs with a TypeError, sending nothing", async () => {
    const before = server.requests.length;
    await expect(client().health({ timeoutMs: -1 })).rejects.toBeInstanceOf(TypeError);
    await expect(client().fs.stat("/x", { timeoutMs: Number.NaN })).rejects.toBeInstanceOf(TypeError);
    await expect(client().connect({ timeoutMs: -5 })).rejects.toBeInstanceOf(TypeError);
    expect(server.requests.length).toBe(before);
  });
});

describe("waits for a connection are bounded", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await serveLoopback(neverAnswer);
  });
  afterAll(() => server.close());

  it("connect({ timeoutMs }) rejects with CallTimeoutError and leaves the client disconnected", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.url, agent: "mock", serverApi: "v1", autoConnect: false });
    expect(await settled(client.connect({ timeoutMs: 200 }))).toBeInstanceOf(CallTimeoutError);
    expect(client.state).toBe("disconnected");
    await client.disconnect();
  });

  it("connect({ signal }) rejects with CallAbortedError when the signal aborts", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.url, agent: "mock", serverApi: "v1", autoConnect: false });
    const controller = new AbortController();
    const connecting = client.connect({ signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await settled(connecting)).toBeInstanceOf(CallAbortedError);
    expect(client.state).toBe("disconnected");
    // The cancelled attempt left nothing behind: a new connect may start.
    const again = client.connect({ timeoutMs: 100 });
    expect(await settled(again)).toBeInstanceOf(CallTimeoutError);
  });

  it("honours a session call's timeoutMs while it waits for the auto-connect", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.url, agent: "mock", serverApi: "v1" });
    try {
      expect(await settled(client.newSession({}, { timeoutMs: 200 }))).toBeInstanceOf(CallTimeoutError);
      expect(await settled(client.prompt("s", "hi", { timeoutMs: 200 }))).toBeInstanceOf(CallTimeoutError);
    } finally {
      await client.disconnect();
    }
  });

  it("fails a call waiting for a connect that disconnect() cancels with NotConnectedError", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.url, agent: "mock", serverApi: "v1" });
    const waiting = client.newSession();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.disconnect();
    const error = await settled(waiting);
    expect(error).toBeInstanceOf(NotConnectedError);
    await expect(client.ready).rejects.toBeInstanceOf(CallAbortedError);
  });
});
