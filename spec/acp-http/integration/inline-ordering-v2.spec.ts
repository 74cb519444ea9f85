/**
 * On a server that answers in the POST body and does not echo responses on
 * the stream (the v2 contract, `responseEcho: "auto"`), holding an inline response for ordering
 * concerns only that request's own session. A chatty session must not delay unrelated calls.
 */
import { AcpHttpClient, isResponse, type AcpEnvelope } from "../../../lib/acp-http/index.js";
import { startV2ContractServer, type V2ContractServer } from "../../support/v2-contract-server.js";
import { SANDBOX_AGENT_V2 } from "../../support/sandbox-agent-transport.js";
import { chunkTexts, newSessionParams, record, textPrompt, waitFor } from "./helpers.js";

const agentMeta = { "sandboxagent.dev": { agent: "mock" } };
/** 10 ms between chunks: 100 frames/s on the streaming session. */
const CHUNK_DELAY_MS = 10;
const WORDS = 600;
/** The mock answers `mock: <text>`, one chunk per word. */
const CHUNKS = WORDS + 1;
/** The old hold waited for 25 ms of quiet on the whole stream, capped at 2 s: under 100 frames/s, always 2 s. */
const OLD_CAP_MS = 2000;

let server: V2ContractServer;
let client: AcpHttpClient | undefined;

beforeAll(async () => {
  server = await startV2ContractServer({ mockChunkDelayMs: CHUNK_DELAY_MS });
});

afterEach(async () => {
  await client?.disconnect();
  client = undefined;
});

afterAll(async () => {
  await server?.stop();
});

async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await call();
  return { ms: performance.now() - start, value };
}

describe("inline responses while another session streams (v2 contract, responseEcho auto)", () => {
  it("calls on another session and non-session calls resolve at once; the streaming turn stays ordered", async () => {
    client = new AcpHttpClient({ baseUrl: server.baseUrl, ...SANDBOX_AGENT_V2, closeTimeoutMs: 1000 });
    const seen = record(client);
    await client.initialize({ _meta: agentMeta });
    const chatty = await client.newSession(newSessionParams({ _meta: agentMeta }));
    const other = await client.newSession(newSessionParams({ _meta: agentMeta }));
    const words = Array.from({ length: WORDS }, (_, i) => `w${i}`).join(" ");
    const turn = client.prompt(textPrompt(chatty.sessionId, words));
    await waitFor(() => chunkTexts(seen.envelopes, chatty.sessionId).length >= 20, 10_000, "the chatty session to stream");

    const otherSession = await timed(() => client!.setSessionMode({ sessionId: other.sessionId, modeId: "default" }));
    const nonSession = await timed(() => client!.extMethod("_probe/ping", { agent: "mock", n: 1 }));
    const streamedMeanwhile = chunkTexts(seen.envelopes, chatty.sessionId).length;

    // Both answered well inside the old hold, while the chatty session was still streaming.
    expect(otherSession.ms).toBeLessThan(OLD_CAP_MS / 2);
    expect(nonSession.ms).toBeLessThan(OLD_CAP_MS / 2);
    expect(streamedMeanwhile).toBeLessThan(CHUNKS);

    // The streaming turn's own response still comes after every one of its chunks.
    await turn;
    const texts = chunkTexts(seen.envelopes, chatty.sessionId);
    expect(texts).toHaveLength(CHUNKS);
    const responseAt = seen.envelopes.findIndex((e: AcpEnvelope) => isResponse(e) && (e.result as { stopReason?: unknown } | undefined)?.stopReason === "end_turn");
    const lastChunkAt = seen.envelopes.map((e) => chunkTexts([e], chatty.sessionId).length > 0).lastIndexOf(true);
    expect(responseAt).toBeGreaterThan(lastChunkAt);
  }, 30_000);
});
