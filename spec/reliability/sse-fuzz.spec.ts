/**
 * SSE fuzzing with a deterministic seed, through an injected fetch: random chunk boundaries,
 * LF/CR/CRLF line ends, comments, `retry:` lines, multi-line `data:`, empty events, invalid
 * JSON, valid JSON that is not JSON-RPC, a 10 MB event and UTF-8 split across chunks.
 */
import { describe, expect, it } from "@jest/globals";
import { AcpHttpClient, type AcpEnvelope, type AcpParseError } from "../../lib/acp-http/index.js";
import { createFakeFetch } from "./support/fake-fetch.js";
import { report, waitFor } from "./support/helpers.js";
import { mulberry32, randomInt } from "../support/prng.js";
import { SANDBOX_AGENT_V2 } from "../support/sandbox-agent-transport.js";

const SEEDS = process.env.RELIABILITY_SOAK === "1" ? [1, 2, 3, 4, 5, 6, 7, 8] : [0xf00d, 42];
const FRAMES = 2000;
const UNICODE = ["é", "漢字", "🎉", "ß", "Ω", "𝄞", "a", "\u2028", "\\n"];

interface Plan {
  text: string;
  envelopes: unknown[];
  /** Ids of the frames that must each yield exactly one parse error. */
  badIds: string[];
  counts: Record<string, number>;
}

/** Builds the wire text and the reference result of parsing it. */
function plan(seed: number): Plan {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const counts: Record<string, number> = {};
  const count = (kind: string) => (counts[kind] = (counts[kind] ?? 0) + 1);
  const envelopes: unknown[] = [];
  const badIds: string[] = [];
  let text = "";
  let lastEnd = "\n";
  let nextId = 1;
  const line = (content: string) => {
    let end = pick(["\n", "\r", "\r\n"]);
    // A blank line right after a lone CR would merge into one CRLF line end.
    if (content === "" && lastEnd === "\r" && end === "\n") end = "\r\n";
    text += content + end;
    lastEnd = end;
  };
  const word = () => Array.from({ length: randomInt(random, 0, 6) }, () => pick(UNICODE)).join("");
  const dataFrame = (data: string, multiLine: boolean) => {
    if (random() < 0.3) line(pick(["event: message", "event:message"]));
    line(`id: ${nextId}`);
    const id = String(nextId++);
    if (multiLine) for (const part of data.split("\n")) line(`data: ${part}`);
    else line(`data: ${data}`);
    if (random() < 0.1) line(": trailing comment");
    line("");
    return id;
  };
  const bigAt = Math.floor(FRAMES / 2);
  for (let i = 0; i < FRAMES; i++) {
    const roll = random();
    if (i === bigAt) {
      const envelope = { jsonrpc: "2.0", method: "big/update", params: { blob: `${"x".repeat(10 * 2 ** 20)}${word()}🎉` } };
      dataFrame(JSON.stringify(envelope), false);
      envelopes.push(envelope);
      count("10MB event");
    } else if (roll < 0.45) {
      const envelope = { jsonrpc: "2.0", method: "session/update", params: { sessionId: `s${i}`, text: word(), n: i } };
      const multi = random() < 0.3;
      dataFrame(multi ? JSON.stringify(envelope, null, 1) : JSON.stringify(envelope), multi);
      envelopes.push(envelope);
      count(multi ? "multi-line data" : "notification");
    } else if (roll < 0.5) {
      const envelope = { jsonrpc: "2.0", method: "note/no-params" };
      dataFrame(JSON.stringify(envelope), false);
      envelopes.push(envelope);
      count("notification without params");
    } else if (roll < 0.58) {
      badIds.push(dataFrame(pick(["{not json", '{"jsonrpc":"2.0","method":', "undefined", "{}}", `"${word()}`]), false));
      count("invalid JSON");
    } else if (roll < 0.66) {
      badIds.push(dataFrame(pick(["[1,2,3]", '{"foo":1}', '"a string"', "42", "null", '{"jsonrpc":"1.0","method":"x"}', '{"jsonrpc":"2.0","method":7}', '{"jsonrpc":"2.0","id":{},"result":1}']), false));
      count("JSON that is not JSON-RPC");
    } else if (roll < 0.74) {
      line(pick([": heartbeat", ":", `: ${word()}`]));
      line("");
      count("comment");
    } else if (roll < 0.8) {
      line(`retry: ${randomInt(random, 1, 5000)}`);
      line("");
      count("retry line");
    } else if (roll < 0.88) {
      line(pick(["data:", "data: ", "event: message"]));
      line("");
      count("empty event");
    } else if (roll < 0.94) {
      // A named event of another protocol: not ours, skipped, no parse error.
      line("event: ping");
      line(`data: ${JSON.stringify({ jsonrpc: "2.0", method: "never/delivered" })}`);
      line("");
      count("named non-message event");
    } else {
      line(`unknownfield: ${word()}`);
      line("");
      count("unknown field");
    }
  }
  return { text, envelopes, badIds, counts };
}

/** Random chunk boundaries; counts the splits that fall inside a UTF-8 sequence. */
function chunk(bytes: Uint8Array, random: () => number): { chunks: Uint8Array[]; utf8Splits: number } {
  const chunks: Uint8Array[] = [];
  let utf8Splits = 0;
  let at = 0;
  while (at < bytes.length) {
    // Inside the 10 MB run of "x" chunks may be large; everywhere else they are 1..32 bytes.
    const inBlob = bytes[at] === 0x78 && bytes[at + 1] === 0x78 && bytes[at + 2] === 0x78;
    const size = inBlob ? randomInt(random, 1, 2 ** 20) : randomInt(random, 1, 32);
    const end = Math.min(bytes.length, at + size);
    chunks.push(bytes.subarray(at, end));
    if (end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) utf8Splits++;
    at = end;
  }
  return { chunks, utf8Splits };
}

describe("SSE fuzzing", () => {
  it.each(SEEDS)("seed %p: envelopes equal the reference parse, one parse error per bad frame, the stream lives on", async (seed) => {
    const fake = createFakeFetch();
    const client = new AcpHttpClient({ baseUrl: "http://fuzz.test", ...SANDBOX_AGENT_V2, fetch: fake.fetch, reconnect: { maxRetries: 0 } });
    const envelopes: AcpEnvelope[] = [];
    const errors: AcpParseError[] = [];
    client.envelopes$.subscribe((envelope) => envelopes.push(envelope));
    client.parseErrors$.subscribe((error) => errors.push(error));
    await client.initialize();
    await waitFor(() => fake.streams.length === 1, 2000, "the event stream");
    const stream = fake.streams[0];
    if (!stream) throw new Error("no stream");
    const wire = plan(seed);
    const sentinel = { jsonrpc: "2.0", method: "fuzz/done" };
    const bytes = new TextEncoder().encode(`${wire.text}data: ${JSON.stringify(sentinel)}\n\n`);
    const { chunks, utf8Splits } = chunk(bytes, mulberry32(seed ^ 0x9e3779b9));
    const started = Date.now();
    for (const piece of chunks) stream.push(piece);
    await waitFor(() => envelopes.some((envelope) => "method" in envelope && envelope.method === "fuzz/done"), 60_000, "the sentinel");
    const notifications = envelopes.slice(1, -1);
    report(`sse fuzz seed ${seed}`, { bytes: bytes.length, chunks: chunks.length, utf8Splits, frames: wire.counts, parseErrors: errors.length, ms: Date.now() - started });
    expect(utf8Splits).toBeGreaterThan(0);
    // envelopes[0] is the initialize response.
    expect(notifications).toEqual(wire.envelopes);
    expect(errors.map((error) => error.eventId)).toEqual(wire.badIds);
    expect(errors.every((error) => error.source === "stream" && error.stream === "connection")).toBe(true);
    expect(client.state).toBe("open");
    expect(fake.requests.filter((request) => request.method === "GET")).toHaveLength(1);
    expect(client.lastEventId).toBe(String(wire.envelopes.length + wire.badIds.length));
    await client.disconnect();
  }, 120_000);
});
