/** A request answered after 10 minutes, under fake time: nothing in the client fires on its own. */
import { describe, expect, it, jest } from "@jest/globals";
import { AcpHttpClient } from "../../lib/acp-http/index.js";
import { SANDBOX_AGENT_V2 } from "../support/sandbox-agent-transport.js";

describe("a request answered after 10 minutes (fake time)", () => {
  it("stays pending and then resolves; nothing in the client fires on its own", async () => {
    try {
      let answer: ((response: Response) => void) | undefined;
      let getAborted = false;
      const fetchFn: typeof fetch = async (input, init) => {
        const request = new Request(input, init);
        if (request.method === "GET") {
          request.signal.addEventListener("abort", () => (getAborted = true));
          return new Response(new ReadableStream<Uint8Array>({ start: () => undefined }), { headers: { "content-type": "text/event-stream", "x-acp-connection-id": "c1" } });
        }
        if (request.method === "DELETE") return new Response(null, { status: 204 });
        const body = JSON.parse(await request.text()) as { id?: number; method: string };
        if (body.method === "initialize") return Response.json({ jsonrpc: "2.0", id: body.id, result: { protocolVersion: 1 } }, { headers: { "x-acp-connection-id": "c1" } });
        return new Promise<Response>((resolve) => {
          answer = resolve;
          setTimeout(() => resolve(Response.json({ jsonrpc: "2.0", id: body.id, result: { late: true } })), 10 * 60_000);
        });
      };
      const client = new AcpHttpClient({ baseUrl: "http://fake.test", ...SANDBOX_AGENT_V2, fetch: fetchFn });
      await client.initialize();
      // The clock is faked from here: the ten minutes below pass in no time.
      jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
      let settled = false;
      const pending = client.request("slow/method", {}).finally(() => (settled = true));
      await jest.advanceTimersByTimeAsync(9 * 60_000 + 59_000);
      expect(settled).toBe(false);
      expect(answer).toBeDefined();
      expect(client.state).toBe("open");
      await jest.advanceTimersByTimeAsync(1_000);
      // The body is read on a later turn; a few more fake milliseconds let it through.
      for (let i = 0; i < 50 && !settled; i++) await jest.advanceTimersByTimeAsync(10);
      expect(settled).toBe(true);
      // No timer of the client's is left behind (no default deadline was ever set).
      expect(jest.getTimerCount()).toBe(0);
      await expect(pending).resolves.toEqual({ late: true });
      expect(getAborted).toBe(false);
      await client.disconnect();
    } finally {
      jest.useRealTimers();
    }
  });
});
