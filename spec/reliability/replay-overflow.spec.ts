/**
 * Replay overflow: the 0.4.2 server keeps the last 1024 events per serverId. When a client
 * misses more than that, the loss cannot be recovered; it must be reported, with its range,
 * on `gaps$` (protocol layer) and as `events-lost` (sandbox layer), never hidden.
 */
import { afterEach, describe, expect, it } from "@jest/globals";
import type { AcpEnvelope, EventGap } from "../../lib/acp-http/index.js";
import { SandboxAgentClient, type SandboxEvent } from "../../lib/sandbox/index.js";
import { serverBehindFaultProxy } from "./support/fault-proxy.js";
import { messageChunk, report, sessionParams, textPrompt, v1Client, waitFor } from "./support/helpers.js";

const RING = 1024;
const BURST = 3000;

const env = serverBehindFaultProxy();

describe("replay overflow", () => {
  // A test that fails while streams are held must not leave the proxy holding the next test's requests.
  afterEach(() => env.proxy.releaseStreams());

  it(`reports the ${BURST + 1 - RING} events the server could no longer replay on gaps$, with their range`, async () => {
    const client = v1Client(env.proxy.baseUrl, "overflow", { reconnect: { initialDelayMs: 10, jitter: 0, maxRetries: 3 } });
    const envelopes: AcpEnvelope[] = [];
    const gaps: EventGap[] = [];
    client.envelopes$.subscribe((envelope) => envelopes.push(envelope));
    client.gaps$.subscribe((gap) => gaps.push(gap));
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    const before = Number(client.lastEventId);
    // The stream goes away and cannot come back while the burst runs.
    env.proxy.holdStreams();
    env.proxy.cutStreams();
    const postsBefore = env.proxy.completedResponses();
    const prompt = client.prompt(textPrompt(sessionId, `chunks ${BURST}`));
    // The POST answers once the agent has written every chunk and its response.
    await waitFor(() => env.proxy.completedResponses() > postsBefore, 20_000, "the prompt's POST");
    // The client's reconnect reaches the proxy on its own schedule: wait for it (bounded), then check it is the only one.
    await waitFor(() => env.proxy.heldStreams() > 0, 10_000, "the client's stream reconnect");
    expect(env.proxy.heldStreams()).toBe(1);
    env.proxy.releaseStreams();
    const result = await prompt;
    expect(result.stopReason).toBe("end_turn");
    const latest = Number(client.lastEventId);
    const seqs = envelopes.flatMap((envelope) => {
      const chunk = messageChunk(envelope);
      return chunk && chunk.sessionId === sessionId ? [Number(chunk.text.slice(1))] : [];
    });
    report("replay overflow", { before, latest, gaps, delivered: seqs.length, burst: BURST });
    // Burst ids: before+1 .. before+BURST are chunks, before+BURST+1 is the prompt's response.
    expect(latest).toBe(before + BURST + 1);
    expect(gaps).toEqual([{ stream: "connection", firstMissing: before + 1, lastMissing: latest - RING }]);
    const lost = latest - RING - before;
    // What arrived is exactly what the ring still held: the last chunks, in order, none twice.
    expect(seqs).toEqual(Array.from({ length: BURST - lost }, (_, i) => lost + i));
    expect(seqs.length + lost).toBe(BURST);
    await client.disconnect();
  }, 60_000);

  it("surfaces the same loss as an `events-lost` event at the sandbox layer", async () => {
    const client = new SandboxAgentClient({ baseUrl: env.proxy.baseUrl, agent: "mock", autoConnect: false, reconnect: { initialDelayMs: 10, jitter: 0, maxRetries: 3 } });
    const events: SandboxEvent[] = [];
    client.events$.subscribe((event) => events.push(event));
    await client.connect();
    const session = await client.newSession({ cwd: env.server.home });
    await client.prompt(session.sessionId, "chunks 1");
    env.proxy.holdStreams();
    env.proxy.cutStreams();
    const postsBefore = env.proxy.completedResponses();
    const prompt = client.prompt(session.sessionId, `chunks ${BURST}`);
    await waitFor(() => env.proxy.completedResponses() > postsBefore, 20_000, "the prompt's POST");
    env.proxy.releaseStreams();
    await prompt;
    const lost = events.filter((event): event is Extract<SandboxEvent, { kind: "events-lost" }> => event.kind === "events-lost");
    const updates = events.filter((event) => event.kind === "update" && event.sessionId === session.sessionId);
    report("replay overflow (sandbox layer)", { lost, updates: updates.length });
    expect(lost).toHaveLength(1);
    const gap = lost[0];
    expect(gap && gap.lastMissing - gap.firstMissing + 1).toBe(BURST + 1 - RING);
    // One chunk before the hold, then what the ring still held.
    expect(updates.length).toBe(1 + RING - 1);
    await client.disconnect();
  }, 60_000);
});
