import { AcpNetworkError } from "../../../lib/acp-http/index.js";
import { readPostAnswer } from "../../../lib/acp-http/http-transport.js";

/** A body that sends `head`, then fails (a connection reset mid-body) or never ends. */
function body(head: string, end: "error" | "never"): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(head));
      if (end === "error") controller.error(new TypeError("terminated"));
    },
  });
}

describe("readPostAnswer", () => {
  it("a 202 is accepted without waiting for a body the server ends late", async () => {
    const response = new Response(body("", "never"), { status: 202 });
    await expect(readPostAnswer(response, undefined, "session/prompt")).resolves.toEqual({ status: 202, json: undefined });
  });

  it("a 202 body still open a timer tick later is cancelled; one that ends by then keeps its socket", async () => {
    // Cancelling a body undici has not finished destroys its keep-alive socket.
    const cancelled: string[] = [];
    const stream = (name: string, closeAfterMs?: number) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          if (closeAfterMs !== undefined) setTimeout(() => controller.close(), closeAfterMs);
        },
        cancel() {
          cancelled.push(name);
        },
      });
    await readPostAnswer(new Response(stream("open"), { status: 202 }), undefined, "x");
    await readPostAnswer(new Response(stream("ends a tick later", 0), { status: 202 }), undefined, "x");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cancelled).toEqual(["open"]);
  });

  it("a body cut short is an AcpNetworkError naming the operation", async () => {
    const response = new Response(body('{"jsonrpc":"2.0","id":1,', "error"), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
    const failure = await readPostAnswer(response, undefined, "initialize").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AcpNetworkError);
    expect((failure as AcpNetworkError).operation).toBe("initialize");
  });

  it("a JSON answer is returned as text; an oversized one only as size and head", async () => {
    const json = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } });
    const ok = new Response(json, { status: 200, headers: { "content-type": "application/json" } });
    await expect(readPostAnswer(ok, 1000, "x")).resolves.toEqual({ status: 200, json });
    const big = await readPostAnswer(new Response(json, { status: 200 }), 10, "x");
    expect(big.json).toBeUndefined();
    expect(big.tooLarge?.bytes).toBe(json.length);
  });
});
