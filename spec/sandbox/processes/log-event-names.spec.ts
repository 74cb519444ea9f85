import { readSseBody, type SseFrame } from "../../../lib/internal/sse.js";
import { unnameEvents } from "../../../lib/sandbox/server/processes/log-follow.js";

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function frames(chunks: string[]): Promise<SseFrame[]> {
  const seen: SseFrame[] = [];
  await readSseBody(unnameEvents(body(chunks), "log"), { onFrame: (frame) => seen.push(frame) });
  return seen;
}

const wire = 'event: log\nid: 1\ndata: {"a":1}\n\n: heartbeat\n\nevent: log\nid: 2\ndata: {"b":"é"}\n\nevent: other\nid: 3\ndata: x\n\n';

describe("unnameEvents: the log stream's named events through the protocol layer's SSE reader", () => {
  it("without the adapter the reader drops the named events (why the adapter exists)", async () => {
    const seen: SseFrame[] = [];
    await readSseBody(body([wire]), { onFrame: (frame) => seen.push(frame) });
    expect(seen).toEqual([]);
  });

  it("dispatches `log` events, keeps other names dropped, in one chunk", async () => {
    expect(await frames([wire])).toEqual([
      { id: "1", event: undefined, data: '{"a":1}' },
      { id: "2", event: undefined, data: '{"b":"é"}' },
    ]);
  });

  it("gives the same frames for every split of the bytes, a multi-byte character included", async () => {
    const bytes = new TextEncoder().encode(wire);
    const expected = await frames([wire]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const seen: SseFrame[] = [];
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.slice(0, cut));
          controller.enqueue(bytes.slice(cut));
          controller.close();
        },
      });
      await readSseBody(unnameEvents(stream, "log"), { onFrame: (frame) => seen.push(frame) });
      expect({ cut, seen }).toEqual({ cut, seen: expected });
    }
  });

  it("keeps a final event that has no trailing newline", async () => {
    expect(await frames(["event: log\nid: 9\ndata: z\n", "\n"])).toEqual([{ id: "9", event: undefined, data: "z" }]);
  });
});
