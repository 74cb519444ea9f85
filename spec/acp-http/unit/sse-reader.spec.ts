import { readSseBody, type SseFrame } from "../../../lib/internal/sse.js";
import { mulberry32, randomInt } from "../../support/prng.js";

/**
 * `readSseBody` is checked against a reference parse of the whole text, written
 * straight from the WHATWG event-stream rules, over many ways of cutting the bytes.
 * Frame ids are per event: a frame without an `id:` field has none (the cursor then
 * leaves its position alone).
 */

interface Parsed {
  frames: SseFrame[];
  retries: number[];
}

function referenceParse(text: string): Parsed {
  const frames: SseFrame[] = [];
  const retries: number[] = [];
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = source.split(/\r\n|\r|\n/);
  lines.pop(); // the text after the last line end is not a complete line
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  for (const line of lines) {
    if (line === "") {
      if (data.length > 0) {
        const joined = data.join("\n");
        const isMessage = event === undefined || event === "message";
        if (isMessage && joined !== "") frames.push({ id, event, data: joined });
      }
      data = [];
      event = undefined;
      id = undefined;
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value === "" ? undefined : value;
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) retries.push(Number(value));
  }
  return { frames, retries };
}

function bodyOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

async function parseChunks(chunks: readonly Uint8Array[], maxEventChars?: number): Promise<Parsed & { activity: number }> {
  const parsed = { frames: [] as SseFrame[], retries: [] as number[], activity: 0 };
  await readSseBody(
    bodyOf(chunks),
    {
      onFrame: (frame) => parsed.frames.push(frame),
      onRetry: (ms) => parsed.retries.push(ms),
      onActivity: () => parsed.activity++,
    },
    maxEventChars,
  );
  return parsed;
}

function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [0, ...cuts, bytes.length];
  const chunks: Uint8Array[] = [];
  for (let i = 1; i < points.length; i++) chunks.push(bytes.subarray(points[i - 1], points[i]));
  return chunks;
}

function randomCuts(random: () => number, length: number, count: number): number[] {
  const cuts = new Set<number>();
  for (let i = 0; i < count; i++) cuts.add(randomInt(random, 0, length));
  return [...cuts].sort((a, b) => a - b);
}

const encode = (text: string) => new TextEncoder().encode(text);
const EOLS = ["\n", "\r", "\r\n"] as const;
const SAMPLES = ["plain", "é", "€uro", "😀 emoji", "日本語", "a:b: c", " leading space", "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", ""];

/** A random event-stream text with every feature the parser must handle. */
function randomStream(random: () => number, items: number): string {
  const pick = <T>(list: readonly T[]): T => list[randomInt(random, 0, list.length - 1)] as T;
  const eol = () => pick(EOLS);
  let text = random() < 0.3 ? "\uFEFF" : "";
  for (let i = 0; i < items; i++) {
    const roll = random();
    if (roll < 0.1) text += `: heartbeat${eol()}`;
    else if (roll < 0.15) text += `retry: ${randomInt(random, 0, 5000)}${eol()}`;
    else if (roll < 0.18) text += `retry: soon${eol()}`;
    else if (roll < 0.22) text += eol();
    else if (roll < 0.25) text += `unknown: field${eol()}`;
    else {
      if (random() < 0.2) text += `event: ${pick(["message", "ping", "", "update"])}${eol()}`;
      if (random() < 0.7) text += `id: ${i}${eol()}`;
      const lines = randomInt(random, 0, 3);
      for (let l = 0; l < lines; l++) text += random() < 0.1 ? `data${eol()}` : `data:${random() < 0.8 ? " " : ""}${pick(SAMPLES)}${eol()}`;
      text += eol();
    }
  }
  return text;
}

/** Every feature, each line end, 2-, 3- and 4-byte characters, small enough to cut at every byte. */
const FIXTURE = [
  "\uFEFF: comment first\n",
  "retry: 1500\r\n",
  "id: 1\r\ndata: {\"a\":\"é€😀\"}\r\n\r\n",
  "event: ping\nid: 2\ndata: ignored named event\n\n",
  "id: 3\rdata: first\rdata: second\r\rdata:\n\n",
  ": heartbeat\n\n",
  "event: message\nid: 4\ndata:no-space\n\n",
  "id: 5\ndata: 日本語\r\n\r\n",
  "data: trailing",
].join("");

describe("readSseBody", () => {
  it("parses the fixture as the reference does", async () => {
    const bytes = encode(FIXTURE);
    const parsed = await parseChunks([bytes]);
    expect(parsed.frames).toEqual([
      { id: "1", event: undefined, data: "{\"a\":\"é€😀\"}" },
      { id: "3", event: undefined, data: "first\nsecond" },
      { id: "4", event: "message", data: "no-space" },
      { id: "5", event: undefined, data: "日本語" },
    ]);
    expect(parsed.retries).toEqual([1500]);
    expect({ frames: parsed.frames, retries: parsed.retries }).toEqual(referenceParse(FIXTURE));
  });

  it("gives the same frames whatever single byte the body is cut at, inside UTF-8 characters and between CR and LF included", async () => {
    const bytes = encode(FIXTURE);
    const expected = referenceParse(FIXTURE);
    // The fixture really has what this test claims to cut through.
    expect(FIXTURE).toContain("\r\n");
    expect(FIXTURE).toContain("😀");
    for (let cut = 0; cut <= bytes.length; cut++) {
      const parsed = await parseChunks(splitAt(bytes, [cut]));
      expect({ cut, frames: parsed.frames, retries: parsed.retries }).toEqual({ cut, ...expected });
    }
  });

  it("gives the same frames when the body arrives one byte at a time", async () => {
    const bytes = encode(FIXTURE);
    const chunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
    const parsed = await parseChunks(chunks);
    expect({ frames: parsed.frames, retries: parsed.retries }).toEqual(referenceParse(FIXTURE));
  });

  it("matches the reference on random streams cut at random points (seeded)", async () => {
    const random = mulberry32(0x5eed);
    let frameTotal = 0;
    for (let round = 0; round < 300; round++) {
      const text = randomStream(random, randomInt(random, 1, 40));
      const bytes = encode(text);
      const cuts = randomCuts(random, bytes.length, randomInt(random, 0, Math.min(bytes.length, 25)));
      const expected = referenceParse(text);
      const parsed = await parseChunks(splitAt(bytes, cuts));
      expect({ round, frames: parsed.frames, retries: parsed.retries }).toEqual({ round, ...expected });
      frameTotal += expected.frames.length;
    }
    // The generator is not degenerate: it produced plenty of frames to compare.
    expect(frameTotal).toBeGreaterThan(1000);
  });

  it.each([
    ["LF", "\n"],
    ["CR", "\r"],
    ["CRLF", "\r\n"],
  ])("accepts %s line ends", async (_name, eol) => {
    const text = `id: 7${eol}data: one${eol}data: two${eol}${eol}id: 8${eol}data: three${eol}${eol}`;
    const parsed = await parseChunks([encode(text)]);
    expect(parsed.frames).toEqual([
      { id: "7", event: undefined, data: "one\ntwo" },
      { id: "8", event: undefined, data: "three" },
    ]);
  });

  it("dispatches a CR-terminated event as soon as its blank line arrives, without waiting for more bytes", async () => {
    const frames: SseFrame[] = [];
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const done = readSseBody(body, { onFrame: (frame) => frames.push(frame) });
    controller.enqueue(encode("id: 1\rdata: now\r\r"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames).toEqual([{ id: "1", event: undefined, data: "now" }]);
    // A LF that follows belongs to the CR before it: no extra blank line, no second dispatch.
    controller.enqueue(encode("\nid: 2\r\ndata: next\r\n\r\n"));
    controller.close();
    await done;
    expect(frames.map((frame) => frame.id)).toEqual(["1", "2"]);
  });

  it("ignores comments and heartbeats but counts them as activity", async () => {
    const parsed = await parseChunks([encode(": heartbeat\n\n"), encode(":\n\n"), encode("data: x\n\n")]);
    expect(parsed.frames).toEqual([{ id: undefined, event: undefined, data: "x" }]);
    expect(parsed.activity).toBe(3);
  });

  it("reports retry: values and ignores malformed ones", async () => {
    const parsed = await parseChunks([encode("retry: 3000\n\nretry: later\n\nretry: 0\n\n")]);
    expect(parsed.retries).toEqual([3000, 0]);
    expect(parsed.frames).toEqual([]);
  });

  it("skips events with no data or empty data", async () => {
    const parsed = await parseChunks([encode("id: 1\n\ndata:\n\nevent: message\n\ndata: kept\n\n")]);
    expect(parsed.frames).toEqual([{ id: undefined, event: undefined, data: "kept" }]);
  });

  it("ignores named events other than message", async () => {
    const parsed = await parseChunks([encode("event: ping\ndata: 1\n\nevent: endpoint\ndata: 2\n\nevent: message\ndata: 3\n\n")]);
    expect(parsed.frames).toEqual([{ id: undefined, event: "message", data: "3" }]);
  });

  it("drops an incomplete event at the end of the body", async () => {
    const parsed = await parseChunks([encode("data: complete\n\ndata: cut off\n")]);
    expect(parsed.frames.map((frame) => frame.data)).toEqual(["complete"]);
  });

  it("dispatches the last event of a body that ends right after its CR-terminated blank line", async () => {
    const parsed = await parseChunks([encode("data: last\r\r")]);
    expect(parsed.frames).toEqual([{ id: undefined, event: undefined, data: "last" }]);
  });

  it("reads a 10 MB event cut into random chunks", async () => {
    const random = mulberry32(10);
    const unit = "é€😀abcdefghijk"; // 2 + 3 + 4 + 11 = 20 bytes
    const data = unit.repeat((10 * 1024 * 1024) / 20);
    const bytes = encode(`id: 1\ndata: ${data}\n\nid: 2\ndata: after\n\n`);
    expect(bytes.length).toBeGreaterThan(10 * 1024 * 1024);
    const cuts: number[] = [];
    for (let at = randomInt(random, 1, 65536); at < bytes.length; at += randomInt(random, 1, 131072)) cuts.push(at);
    const parsed = await parseChunks(splitAt(bytes, cuts));
    expect(parsed.frames).toHaveLength(2);
    expect(parsed.frames[0]?.data.length).toBe(data.length);
    expect(parsed.frames[0]?.data === data).toBe(true);
    expect(parsed.frames[1]).toEqual({ id: "2", event: undefined, data: "after" });
  });

  it("rejects an event larger than the limit, after delivering the frames before it", async () => {
    const frames: SseFrame[] = [];
    const body = bodyOf([encode("data: small\n\n"), encode(`data: ${"x".repeat(500)}`), encode("\n\n")]);
    await expect(readSseBody(body, { onFrame: (frame) => frames.push(frame) }, 100)).rejects.toThrow(/max buffer size/);
    expect(frames.map((frame) => frame.data)).toEqual(["small"]);
  });

  it("rejects when the body fails mid-read", async () => {
    const frames: SseFrame[] = [];
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const done = readSseBody(body, { onFrame: (frame) => frames.push(frame) });
    controller.enqueue(encode("data: before\n\n"));
    controller.error(new TypeError("terminated"));
    await expect(done).rejects.toThrow("terminated");
    expect(frames.map((frame) => frame.data)).toEqual(["before"]);
  });
});
