import { jest } from "@jest/globals";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { NotConnectedError, SandboxAgentClient, SandboxAgentHttpError } from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { startV2ContractServer, type V2ContractServer } from "../../support/v2-contract-server.js";

/** A minimal ustar archive: regular files only, 512-byte blocks, two zero blocks at the end. */
function tar(files: Array<{ name: string; content: string }>): Uint8Array {
  const blocks: Uint8Array[] = [];
  const enc = new TextEncoder();
  for (const file of files) {
    const body = enc.encode(file.content);
    const header = new Uint8Array(512);
    const put = (offset: number, length: number, value: string): void => header.set(enc.encode(value).subarray(0, length), offset);
    const octal = (offset: number, length: number, value: number): void => put(offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
    put(0, 100, file.name);
    octal(100, 8, 0o644);
    octal(108, 8, 0);
    octal(116, 8, 0);
    octal(124, 12, body.length);
    octal(136, 12, Math.floor(Date.now() / 1000));
    header.fill(0x20, 148, 156);
    put(156, 1, "0");
    put(257, 6, "ustar\0");
    put(263, 2, "00");
    let sum = 0;
    for (const byte of header) sum += byte;
    put(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
    blocks.push(header);
    const padded = new Uint8Array(Math.ceil(body.length / 512) * 512);
    padded.set(body);
    blocks.push(padded);
  }
  blocks.push(new Uint8Array(1024));
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const block of blocks) {
    out.set(block, at);
    at += block.length;
  }
  return out;
}

const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

async function httpError(promise: Promise<unknown>): Promise<SandboxAgentHttpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandboxAgentHttpError);
  return error as SandboxAgentHttpError;
}

describe("control plane against the real 0.4.2 server", () => {
  let server: SandboxAgentServer;
  let client: SandboxAgentClient;
  let dir: string;

  beforeAll(async () => {
    server = await startSandboxAgent();
    client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false });
    dir = mkdtempSync(join(server.home, "fs-"));
  });
  afterAll(async () => {
    await client?.disconnect();
    await server?.stop();
  });

  it("health", async () => {
    expect(await client.health()).toMatchObject({ status: "ok" });
  });

  it("listAgents and getAgent('mock')", async () => {
    const agents = await client.listAgents();
    expect(agents.map((a) => a.id)).toContain("mock");
    const mock = await client.getAgent("mock");
    expect(mock).toMatchObject({ id: "mock", installed: true });
  });

  it("installAgent('mock') without reinstall is a no-op", async () => {
    const result = await client.installAgent("mock");
    expect(result.alreadyInstalled).toBe(true);
    expect(Array.isArray(result.artifacts)).toBe(true);
  });

  it("getAgent of an unknown agent is a 400 of kind invalid-request with code unsupported_agent", async () => {
    const error = await httpError(client.getAgent("nosuch"));
    expect(error.status).toBe(400);
    expect(error.kind).toBe("invalid-request");
    expect(error.code).toBe("unsupported_agent");
    expect(error.problem?.type).toMatch(/unsupported_agent$/);
  });

  it("filesystem round trips", async () => {
    const file = join(dir, "a.txt");
    const written = await client.fs.writeFile(file, "hello fs");
    expect(written).toMatchObject({ bytesWritten: 8 });
    expect(decode(await client.fs.readFile(file))).toBe("hello fs");
    await client.fs.writeFile(file, new Uint8Array([0, 1, 2, 255]));
    expect([...(await client.fs.readFile(file))]).toEqual([0, 1, 2, 255]);
    expect(await client.fs.stat(file)).toMatchObject({ entryType: "file", size: 4 });

    const sub = join(dir, "sub");
    expect(await client.fs.mkdir(sub)).toMatchObject({ path: expect.stringContaining("sub") as string });
    expect(await client.fs.stat(sub)).toMatchObject({ entryType: "directory" });

    const moved = join(sub, "b.txt");
    expect(await client.fs.move(file, moved)).toMatchObject({ from: expect.stringContaining("a.txt") as string, to: expect.stringContaining("b.txt") as string });
    const entries = await client.fs.listEntries(dir);
    expect(entries.map((e) => e.name).sort()).toEqual(["sub"]);
    expect((await client.fs.listEntries(sub)).map((e) => [e.name, e.entryType])).toEqual([["b.txt", "file"]]);

    const upload = await client.fs.uploadBatch(tar([{ name: "x.txt", content: "from tar" }, { name: "nested/y.txt", content: "nested" }]), { path: join(dir, "up") });
    expect(upload.truncated).toBe(false);
    expect(upload.paths.length).toBe(2);
    expect(decode(await client.fs.readFile(join(dir, "up", "x.txt")))).toBe("from tar");
    expect(decode(await client.fs.readFile(join(dir, "up", "nested", "y.txt")))).toBe("nested");

    await client.fs.deleteEntry(moved);
    await client.fs.deleteEntry(join(dir, "up"), { recursive: true });
    expect((await client.fs.listEntries(sub)).length).toBe(0);
  });

  it("a call's timeoutMs arms one timer, the server version probe it waits for included", async () => {
    // A client that has not asked the server for its contract yet: this call waits for that probe.
    const fresh = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false });
    // A deadline no other timer of the client uses: the timers armed for it are this call's.
    const timeoutMs = 987_654;
    const armed = jest.spyOn(globalThis, "setTimeout");
    try {
      expect(await fresh.fs.stat(dir, { timeoutMs })).toMatchObject({ entryType: "directory" });
      const deadlines = armed.mock.calls.filter(([, ms]) => typeof ms === "number" && ms > timeoutMs - 60_000);
      expect(deadlines.map(([, ms]) => ms)).toEqual([timeoutMs]);
    } finally {
      armed.mockRestore();
      await fresh.disconnect();
    }
  });

  it("reading a missing file is a 400 invalid_request problem, read as kind path-not-found", async () => {
    const error = await httpError(client.fs.readFile(join(dir, "missing.txt")));
    expect(error.status).toBe(400);
    expect(error.problem?.type).toMatch(/invalid_request$/);
    expect(error.kind).toBe("path-not-found");
  });
});

describe("token auth against the real 0.4.2 server", () => {
  const TOKEN = "s3cret-token-value-42";
  let server: SandboxAgentServer;

  beforeAll(async () => {
    server = await startSandboxAgent({ token: TOKEN });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("a wrong token is a 401 token_invalid error that does not carry the token", async () => {
    const wrong = "wrong-token-value-99";
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false, serverApi: "v1", token: wrong });
    const error = await httpError(client.listAgents());
    expect(error.status).toBe(401);
    expect(error).toMatchObject({ kind: "unauthorized", code: "token_invalid" });
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain(TOKEN);
  });

  it("the right token works", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false, serverApi: "v1", token: TOKEN });
    expect((await client.listAgents()).map((a) => a.id)).toContain("mock");
  });
});

describe("control plane against the v2 contract server", () => {
  let server: V2ContractServer;
  let client: SandboxAgentClient;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "v2-fs-"));
    server = await startV2ContractServer({ home: dir });
    client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock" });
    await client.ready;
  });
  afterAll(async () => {
    await client?.disconnect();
    await server?.stop();
  });

  it("health over HTTP", async () => {
    expect(await client.health()).toEqual({ status: "ok" });
  });

  it("fs read and write over HTTP", async () => {
    const file = join(dir, "v2.txt");
    expect(await client.fs.writeFile(file, "v2 bytes")).toMatchObject({ bytesWritten: 8 });
    expect(decode(await client.fs.readFile(file))).toBe("v2 bytes");
    const error = await httpError(client.fs.readFile(join(dir, "nope.txt")));
    expect(error.status).toBe(400);
    expect(error.kind).toBe("path-not-found");
  });

  it("listAgents, getAgent, installAgent, stat, mkdir, listEntries through extensions", async () => {
    expect((await client.listAgents()).map((a) => a.id)).toEqual(expect.arrayContaining(["mock", "claude"]));
    expect(await client.getAgent("mock")).toMatchObject({ id: "mock" });
    expect(await client.installAgent("mock")).toMatchObject({ alreadyInstalled: expect.any(Boolean) as boolean });
    const sub = join(dir, "made");
    await client.fs.mkdir(sub);
    expect(await client.fs.stat(sub)).toMatchObject({ entryType: "directory" });
    await client.fs.writeFile(join(sub, "f.txt"), "abc");
    expect(await client.fs.stat(join(sub, "f.txt"))).toMatchObject({ entryType: "file", size: 3 });
    expect((await client.fs.listEntries(sub)).map((e) => e.name)).toEqual(["f.txt"]);
    const error = await httpError(client.getAgent("nosuch"));
    expect(error).toMatchObject({ kind: "invalid-request", code: "unsupported_agent" });
  });

  it("needs the connection for the agents and the filesystem's metadata calls, not for health or file bytes", async () => {
    const other = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock" });
    await other.ready;
    await other.disconnect();
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["listAgents", () => other.listAgents()],
      ["getAgent", () => other.getAgent("mock")],
      ["installAgent", () => other.installAgent("mock")],
      ["fs.listEntries", () => other.fs.listEntries(dir)],
      ["fs.stat", () => other.fs.stat(dir)],
      ["fs.mkdir", () => other.fs.mkdir(join(dir, "never"))],
    ];
    for (const [name, call] of calls) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      expect({ name, error }).toEqual({ name, error: expect.any(NotConnectedError) as unknown });
    }
    expect(await other.health()).toEqual({ status: "ok" });
    await other.fs.writeFile(join(dir, "bytes.txt"), "b");
    expect(decode(await other.fs.readFile(join(dir, "bytes.txt")))).toBe("b");
  });
});
