import { readSseBody, type SseFrame } from "../../../lib/internal/sse.js";

/**
 * A big event in small network chunks (bench scenario 14): the reader decodes each chunk once,
 * however many lines it carries or cuts, and hands the event on whole, UTF-8 sequences cut by the
 * chunk edges included.
 */

function streamOf(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < parts.length) controller.enqueue(parts[index++] as Uint8Array);
      else controller.close();
    },
  });
}

function cut(bytes: Uint8Array, size: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) parts.push(bytes.subarray(offset, offset + size));
  return parts;
}

async function read(parts: Uint8Array[]): Promise<{ frames: SseFrame[]; decodes: number }> {
  const frames: SseFrame[] = [];
  // Every decode of the run counted (the reader's own TextDecoder is made inside it).
  const original = Object.getOwnPropertyDescriptor(TextDecoder.prototype, "decode") as PropertyDescriptor;
  const decode = original.value as TextDecoder["decode"];
  let decodes = 0;
  Object.defineProperty(TextDecoder.prototype, "decode", {
    ...original,
    value: function (this: TextDecoder, ...args: Parameters<TextDecoder["decode"]>) {
      decodes++;
      return decode.apply(this, args);
    },
  });
  try {
    await readSseBody(streamOf(parts), { onFrame: (frame) => frames.push(frame) });
    return { frames, decodes };
  } finally {
    Object.defineProperty(TextDecoder.prototype, "decode", original);
  }
}

describe("readSseBody with big events and small chunks", () => {
  it("decodes each network chunk once, not each line", async () => {
    let text = "";
    for (let i = 0; i < 5000; i++) text += `id: ${i + 1}\ndata: {"n":${i}}\n\n`;
    const parts = cut(new TextEncoder().encode(text), 700);
    const { frames, decodes } = await read(parts);
    expect(frames).toHaveLength(5000);
    expect(frames[4999]).toEqual(expect.objectContaining({ id: "5000", data: '{"n":4999}' }));
    // One per chunk, and the final flush of the streaming decoder.
    expect(decodes).toBe(parts.length + 1);
  });

  it("hands on a 4 MB event cut into 1 KiB chunks whole, multi-byte characters across the cuts included", async () => {
    const block = `${"abcdefghij".repeat(99)}é€😀 `;
    const data = block.repeat(4000);
    const bytes = new TextEncoder().encode(`event: message\nid: 7\ndata: ${data}\n\n`);
    const parts = cut(bytes, 1024);
    const { frames, decodes } = await read(parts);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.id).toBe("7");
    expect(frames[0]?.data.length).toBe(data.length);
    expect(frames[0]?.data === data).toBe(true);
    expect(decodes).toBe(parts.length + 1);
  });
});
