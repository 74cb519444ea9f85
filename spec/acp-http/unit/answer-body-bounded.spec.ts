/**
 * Answer and error bodies are read through a byte count: one that goes past its bound is cut there
 * (the rest cancelled), so a body that never ends neither grows memory nor leaves its request waiting.
 * A loopback fake server, because no real server writes an endless answer on purpose.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AcpHttpClient, AcpHttpError, AcpMessageTooLargeError } from "../../../lib/acp-http/index.js";

const MiB = 1 << 20;
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

/** Writes `head`, then blank chunks for as long as the client reads; counts the bytes written. */
function endless(res: ServerResponse, head: string, written: { bytes: number; closed: boolean }): void {
  res.write(head);
  res.on("close", () => (written.closed = true));
  const pump = (): void => {
    while (!res.destroyed && written.bytes < 512 * MiB) {
      written.bytes += CHUNK.length;
      if (!res.write(CHUNK)) return void res.once("drain", pump);
    }
  };
  pump();
}

describe("answer and error bodies are read up to a bound", () => {
  const written = { bytes: 0, closed: false };
  let baseUrl: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const server = createServer((req, res) => {
      let text = "";
      req.on("data", (chunk) => (text += chunk));
      req.on("end", () => {
        if (req.method !== "POST") return void res.writeHead(405).end();
        const message = JSON.parse(text) as { id: number; method: string };
        const json = { "content-type": "application/json", "acp-connection-id": "c1" };
        if (message.method === "initialize") {
          const result = { protocolVersion: 1, agentCapabilities: {} };
          return void res.writeHead(200, json).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
        }
        if (message.method === "_test/endless-error") {
          res.writeHead(500, { "content-type": "text/plain" });
          return endless(res, "upstream broke: ", written);
        }
        res.writeHead(200, json);
        endless(res, `{"jsonrpc":"2.0","id":${message.id},"result":{"pad":"`, written);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stop = async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
  });
  afterAll(() => stop());
  beforeEach(() => {
    written.bytes = 0;
    written.closed = false;
  });

  it("a POST answer that never ends fails its request as too large, reported on parseErrors$", async () => {
    const client = new AcpHttpClient({ baseUrl, maxMessageBytes: MiB });
    const parseErrors: unknown[] = [];
    client.parseErrors$.subscribe((event) => parseErrors.push(event));
    await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
    const error = await client.request("_test/endless", {}, { timeoutMs: 20_000 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(AcpMessageTooLargeError);
    expect(error).toMatchObject({ source: "response-body", limit: MiB });
    expect((error as AcpMessageTooLargeError).bytes).toBeGreaterThan(MiB);
    expect(parseErrors).toHaveLength(1);
    expect(JSON.stringify(parseErrors[0])).toContain('{\\"jsonrpc\\":\\"2.0\\"');
    // The rest of the body is cancelled: the server's response is closed, not read on.
    const deadline = Date.now() + 5000;
    while (!written.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(written.closed).toBe(true);
    expect(written.bytes).toBeLessThan(64 * MiB);
    await client.disconnect();
  });

  it("an error body that never ends is cut: the request fails with its AcpHttpError and the body's head", async () => {
    const client = new AcpHttpClient({ baseUrl, maxMessageBytes: MiB });
    await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
    const error = await client.request("_test/endless-error", {}, { timeoutMs: 20_000 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(AcpHttpError);
    expect(error).toMatchObject({ status: 500 });
    expect((error as AcpHttpError).bodyText).toMatch(/^upstream broke: /);
    await client.disconnect();
  });
});
