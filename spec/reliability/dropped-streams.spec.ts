/**
 * Dropped streams: the real 0.4.2 server behind a fault proxy that cuts the SSE response
 * at seeded random byte offsets. Every envelope must reach `envelopes$` exactly once, in order.
 */
import { describe, expect, it } from "@jest/globals";
import type { AcpEnvelope, AcpHttpClient, EventGap } from "../../lib/acp-http/index.js";
import { serverBehindFaultProxy } from "./support/fault-proxy.js";
import { messageChunk, range, report, sessionParams, textPrompt, v1Client, waitFor } from "./support/helpers.js";
import { mulberry32, randomInt } from "../support/prng.js";

const SOAK = process.env.RELIABILITY_SOAK === "1";
const PROMPTS = SOAK ? 100 : 20;
const PER_PROMPT = 500;

const env = serverBehindFaultProxy();

interface Recorder {
  envelopes: AcpEnvelope[];
  gaps: EventGap[];
  states: string[];
}

function recordAll(client: AcpHttpClient): Recorder {
  const recorder: Recorder = { envelopes: [], gaps: [], states: [] };
  client.envelopes$.subscribe((envelope) => recorder.envelopes.push(envelope));
  client.gaps$.subscribe((gap) => recorder.gaps.push(gap));
  client.state$.subscribe((state) => recorder.states.push(state));
  return recorder;
}

const chunksOf = (envelopes: readonly AcpEnvelope[], sessionId: string): string[] =>
  envelopes.flatMap((envelope) => {
    const chunk = messageChunk(envelope);
    return chunk && chunk.sessionId === sessionId ? [chunk.text] : [];
  });

describe("dropped streams through a cutting proxy", () => {
  it(`delivers ${PROMPTS * PER_PROMPT} notifications exactly once and in order across >= 100 random cuts`, async () => {
    const random = mulberry32(0x5eed);
    const client = v1Client(env.proxy.baseUrl, "cuts", { reconnect: { initialDelayMs: 0, maxDelayMs: 5, jitter: 0, maxRetries: 50 } });
    const recorder = recordAll(client);
    const started = Date.now();
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    const cutsBefore = env.proxy.cuts().length;
    // Mean budget ~25 KB: about one cut per 90 chunk frames.
    env.proxy.setCutBudget(() => randomInt(random, 1, 50_000));
    const stops: string[] = [];
    for (let p = 0; p < PROMPTS; p++) {
      const result = await client.prompt(textPrompt(sessionId, `chunks ${PER_PROMPT}`));
      stops.push(result.stopReason);
    }
    env.proxy.setCutBudget(undefined);
    const elapsed = Date.now() - started;
    const cuts = env.proxy.cuts().slice(cutsBefore);
    const chunks = chunksOf(recorder.envelopes, sessionId);
    const expected = Array.from({ length: PROMPTS }, () => range(PER_PROMPT)).flat();
    const responses = recorder.envelopes.filter((envelope) => !("method" in envelope));
    report("dropped streams", {
      notifications: chunks.length,
      expected: expected.length,
      cuts: cuts.length,
      midFrameCuts: cuts.filter((cut) => cut.midFrame).length,
      cutsBeforeAnyByte: cuts.filter((cut) => cut.bytes === 0).length,
      streamsOpened: env.proxy.streamsOpened(),
      gaps: recorder.gaps.length,
      ms: elapsed,
    });
    expect(stops).toEqual(Array.from({ length: PROMPTS }, () => "end_turn"));
    expect(cuts.length).toBeGreaterThanOrEqual(100);
    expect(cuts.filter((cut) => cut.midFrame).length).toBeGreaterThan(50);
    expect(recorder.gaps).toEqual([]);
    expect(chunks).toEqual(expected);
    // Every response (initialize, session/new, each prompt) once, too.
    expect(responses.length).toBe(PROMPTS + 2);
    expect(new Set(responses.map((response) => String(response.id))).size).toBe(responses.length);
    expect(client.state).toBe("open");
    await client.disconnect();
  }, 180_000);

  it("survives a cut before the first event id (the stream is replayed from the start)", async () => {
    const client = v1Client(env.proxy.baseUrl, "cut-first");
    const recorder = recordAll(client);
    const idsBefore = env.proxy.lastEventIds().length;
    // "event: message\nid: 1\n..." - 10 bytes stop inside the first frame, before its id line.
    const budgets = [10];
    env.proxy.setCutBudget(() => budgets.shift());
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    await client.prompt(textPrompt(sessionId, "chunks 20"));
    env.proxy.setCutBudget(undefined);
    const ids = env.proxy.lastEventIds().slice(idsBefore);
    expect(env.proxy.cuts().at(-1)).toEqual({ bytes: 10, midFrame: true });
    // Nothing was accepted before the cut, so the reconnect carries no cursor either.
    expect(ids.slice(0, 2)).toEqual([undefined, undefined]);
    expect(chunksOf(recorder.envelopes, sessionId)).toEqual(range(20));
    expect(recorder.envelopes.filter((envelope) => !("method" in envelope))).toHaveLength(3);
    expect(recorder.gaps).toEqual([]);
    await client.disconnect();
  }, 30_000);

  it("keeps its cursor over two cuts in a row with no event in between", async () => {
    const client = v1Client(env.proxy.baseUrl, "cut-twice", { reconnect: { initialDelayMs: 20, jitter: 0, maxRetries: 5 } });
    const recorder = recordAll(client);
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    await client.prompt(textPrompt(sessionId, "chunks 5"));
    const cursor = client.lastEventId;
    expect(cursor).toMatch(/^\d+$/);
    await waitFor(() => env.proxy.openStreams() === 1, 5000, "only this client's stream to be open");
    const idsBefore = env.proxy.lastEventIds().length;
    // The next two streams die before a single byte of body; the third one lives.
    expect(env.proxy.cutStreams()).toBe(1);
    const budgets: (number | undefined)[] = [0, 0];
    env.proxy.setCutBudget(() => budgets.shift());
    await waitFor(() => env.proxy.lastEventIds().length >= idsBefore + 3 && env.proxy.openStreams() === 1, 5000, "the third stream");
    env.proxy.setCutBudget(undefined);
    expect(env.proxy.lastEventIds().slice(idsBefore, idsBefore + 3)).toEqual([cursor, cursor, cursor]);
    expect(env.proxy.cuts().slice(-2)).toEqual([
      { bytes: 0, midFrame: false },
      { bytes: 0, midFrame: false },
    ]);
    await client.prompt(textPrompt(sessionId, "chunks 5"));
    expect(chunksOf(recorder.envelopes, sessionId)).toEqual([...range(5), ...range(5)]);
    expect(recorder.states).toContain("reconnecting");
    expect(recorder.gaps).toEqual([]);
    await client.disconnect();
  }, 30_000);
});
