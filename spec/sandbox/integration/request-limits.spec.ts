// The server's limits on one request (the profile's `limits`), against the real 0.4.2 server: a
// file or archive body over its 2 MiB is refused before it is sent with a typed error naming the
// limit (the server would close the socket mid-upload, or answer 413), a 413 the server does send
// reads as the same kind, and process input over its per-request limit goes as several requests.
import { randomBytes } from "node:crypto";
import { BodyTooLargeError, SandboxAgentClient, SandboxAgentHttpError } from "../../../lib/sandbox/index.js";
import { V1_LIMITS } from "../../../lib/sandbox/server/profiles.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { untilExited } from "../processes/helpers.js";

let server: SandboxAgentServer;
let client: SandboxAgentClient;

beforeAll(async () => {
  server = await startSandboxAgent();
  client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false });
});
afterAll(() => server?.stop());

/** A ustar archive of one regular file. */
function tarOf(name: string, body: Uint8Array): Uint8Array {
  const header = new Uint8Array(512);
  const put = (offset: number, value: string): void => header.set(new TextEncoder().encode(value), offset);
  const octal = (offset: number, length: number, value: number): void =>
    put(offset, `${value.toString(8).padStart(length - 1, "0")}\0`);
  put(0, name);
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, body.length);
  octal(136, 12, 0);
  header.fill(0x20, 148, 156);
  put(156, "0");
  put(257, "ustar\0");
  put(263, "00");
  const sum = header.reduce((total, byte) => total + byte, 0);
  put(148, `${sum.toString(8).padStart(6, "0")}\0 `);
  const out = new Uint8Array(512 + Math.ceil(body.length / 512) * 512 + 1024);
  out.set(header);
  out.set(body, 512);
  return out;
}

describe("request bodies and the server's limits", () => {
  const limit = V1_LIMITS.maxRequestBodyBytes;

  it("writes a file of exactly the body limit, and refuses one byte more before sending it", async () => {
    await expect(client.fs.writeFile("at-limit.bin", randomBytes(limit))).resolves.toMatchObject({
      bytesWritten: limit,
    });
    const over = client.fs.writeFile("over-limit.bin", randomBytes(limit + 1));
    await expect(over).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(over).rejects.toMatchObject({
      kind: "body-too-large",
      operation: "fs.writeFile",
      bytes: limit + 1,
      limitBytes: limit,
    });
    await expect(over).rejects.toThrow(/2097152/);
    // Nothing was sent: the file does not exist.
    await expect(client.fs.stat("over-limit.bin")).rejects.toMatchObject({ kind: "path-not-found" });
  });

  it("refuses an archive over the body limit before sending it, and uploads one within it", async () => {
    const big = client.fs.uploadBatch(tarOf("big.bin", randomBytes(4_000_000)), { path: "big-upload" });
    await expect(big).rejects.toMatchObject({ name: "BodyTooLargeError", kind: "body-too-large", limitBytes: limit });
    await expect(client.fs.stat("big-upload/big.bin")).rejects.toMatchObject({ kind: "path-not-found" });
    const small = await client.fs.uploadBatch(tarOf("small.bin", randomBytes(1_000_000)), { path: "small-upload" });
    expect(small.paths.some((path) => path.endsWith("small.bin"))).toBe(true);
  });
});

describe("process input and the server's per-request input limit", () => {
  it("writes input over the limit as pieces, in order, all of it", async () => {
    const data = randomBytes(V1_LIMITS.maxInputBytesPerRequest * 3 + 123);
    const script = `head -c ${data.length} > input.bin`;
    const info = await client.processes.spawn({ command: "sh", args: ["-c", script], interactive: true });
    await expect(client.processes.input(info.id, data)).resolves.toEqual({ bytesWritten: data.length });
    const exited = await untilExited(() => client.processes.get(info.id));
    expect(exited.exitCode).toBe(0);
    const written = await client.fs.readFile("input.bin");
    expect(Buffer.from(written).equals(data)).toBe(true);
  });

  it("reads the server's own 413 as the same kind (a limit lowered with setConfig)", async () => {
    const config = await client.processes.getConfig();
    await client.processes.setConfig({ ...config, maxInputBytesPerRequest: 1024 });
    try {
      const info = await client.processes.spawn({ command: "sh", args: ["-c", "cat > /dev/null"], interactive: true });
      const refused = client.processes.input(info.id, randomBytes(4096));
      await expect(refused).rejects.toBeInstanceOf(SandboxAgentHttpError);
      await expect(refused).rejects.toMatchObject({ status: 413, kind: "body-too-large" });
      await client.processes.kill(info.id);
    } finally {
      await client.processes.setConfig(config);
    }
  });
});
