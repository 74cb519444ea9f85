/**
 * Slow and stalled: a stream that stays open but goes quiet, and requests answered late.
 * Nothing times out unless the caller asked for it.
 */
import { describe, expect, it } from "@jest/globals";
import { AcpTimeoutError, type AcpHttpClient, type AcpConnectionState, type AcpEnvelope } from "../../lib/acp-http/index.js";
import { serverBehindFaultProxy } from "./support/fault-proxy.js";
import { messageChunk, range, report, sessionParams, sleep, textPrompt, v1Client, waitFor } from "./support/helpers.js";

const env = serverBehindFaultProxy();

function watch(client: AcpHttpClient): { envelopes: AcpEnvelope[]; states: AcpConnectionState[] } {
  const seen = { envelopes: [] as AcpEnvelope[], states: [] as AcpConnectionState[] };
  client.envelopes$.subscribe((envelope) => seen.envelopes.push(envelope));
  client.state$.subscribe((state) => seen.states.push(state));
  return seen;
}

const texts = (envelopes: readonly AcpEnvelope[]): string[] => envelopes.flatMap((envelope) => messageChunk(envelope)?.text ?? []);

describe("slow and stalled streams", () => {
  it("a stream that goes silent for 3 s and then resumes is kept (default policy: no stall timeout)", async () => {
    const client = v1Client(env.proxy.baseUrl, "quiet");
    const seen = watch(client);
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    const opened = env.proxy.streamsOpened();
    expect(env.proxy.pauseStreams()).toBeGreaterThanOrEqual(1);
    const prompt = client.prompt(textPrompt(sessionId, "slowchunks 10 50"));
    await sleep(3000);
    expect(texts(seen.envelopes)).toEqual([]);
    env.proxy.resumeStreams();
    expect((await prompt).stopReason).toBe("end_turn");
    // The prompt's answer came in its POST body while the stream was silent; the chunks that were
    // held up in the silent stream follow once it resumes, all of them, once each, in order.
    await waitFor(() => texts(seen.envelopes).length >= 10, 5000, "the held-up chunks");
    await sleep(200);
    expect(texts(seen.envelopes)).toEqual(range(10));
    expect(seen.envelopes.filter((envelope) => !("method" in envelope))).toHaveLength(3);
    expect(env.proxy.streamsOpened()).toBe(opened);
    expect(seen.states).not.toContain("reconnecting");
    await client.disconnect();
  }, 30_000);

  it("with stallTimeoutMs the silent stream is replaced, and nothing is lost or repeated", async () => {
    const client = v1Client(env.proxy.baseUrl, "stall", { reconnect: { stallTimeoutMs: 500, initialDelayMs: 10, jitter: 0 } });
    const seen = watch(client);
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    const opened = env.proxy.streamsOpened();
    env.proxy.pauseStreams();
    const started = Date.now();
    const prompt = client.prompt(textPrompt(sessionId, "slowchunks 10 50"));
    await waitFor(() => env.proxy.streamsOpened() > opened, 3000, "a new stream");
    const replacedAfter = Date.now() - started;
    expect((await prompt).stopReason).toBe("end_turn");
    env.proxy.resumeStreams();
    report("stall timeout", { replacedAfterMs: replacedAfter, streams: env.proxy.streamsOpened() - opened + 1 });
    expect(replacedAfter).toBeGreaterThanOrEqual(450);
    expect(texts(seen.envelopes)).toEqual(range(10));
    expect(seen.states).toContain("reconnecting");
    expect(client.state).toBe("open");
    await client.disconnect();
  }, 30_000);

  it("a request answered after 5 s resolves (no default deadline); with timeoutMs it rejects with AcpTimeoutError", async () => {
    const client = v1Client(env.server.baseUrl, "late");
    await client.initialize();
    const { sessionId } = await client.newSession(sessionParams());
    const started = Date.now();
    const late = await client.prompt(textPrompt(sessionId, "sleep 5000"));
    const tookMs = Date.now() - started;
    expect(late.stopReason).toBe("end_turn");
    expect(tookMs).toBeGreaterThanOrEqual(4900);
    const other = await client.newSession(sessionParams());
    const failure = client.prompt(textPrompt(other.sessionId, "sleep 5000"), { timeoutMs: 300 });
    await expect(failure).rejects.toBeInstanceOf(AcpTimeoutError);
    await expect(failure).rejects.toMatchObject({ timeoutMs: 300, method: "session/prompt" });
    report("late answer", { tookMs });
    await client.disconnect();
  }, 30_000);
});

