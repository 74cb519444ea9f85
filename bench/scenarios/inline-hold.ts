// Scenario 7: what one chatty session costs an unrelated request, on a server that answers in
// the POST body and does not echo responses on the stream (the v2 contract server, our client
// with responseEcho "auto"). The same request (session/set_mode on another session, and a
// non-session extension call) is timed on a quiet stream and while another session streams
// 100 frames/s; the ordering hold must cost the unrelated request nothing (target ≤ 1.2×).
import { tmpdir } from "node:os";
import { AcpHttpClient, isNotification } from "../../lib/acp-http/index.js";
import { startV2ContractServer } from "../../spec/support/v2-contract-server.js";
import { SANDBOX_AGENT_V2 } from "../../spec/support/sandbox-agent-transport.js";
import { median, sleep } from "../support/measure.js";

const agentMeta = { "sandboxagent.dev": { agent: "mock" } };
/** The mock's delay between chunks: 10 ms is 100 frames/s. */
const CHUNK_DELAY_MS = 10;

export interface InlineHoldResult {
  /** Per-request latency in ms, quiet stream. */
  quiet: { otherSession: number[]; nonSession: number[] };
  /** Per-request latency in ms while another session streams. */
  busy: { otherSession: number[]; nonSession: number[] };
  /** Frames per second the chatty session actually delivered during the busy phase. */
  framesPerSecond: number;
}

async function time(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** `requests` of each kind on a quiet stream, then as many while another session streams. */
export async function inlineHold(requests: number): Promise<InlineHoldResult> {
  const server = await startV2ContractServer({ mockChunkDelayMs: CHUNK_DELAY_MS });
  const client = new AcpHttpClient({ baseUrl: server.baseUrl, ...SANDBOX_AGENT_V2, closeTimeoutMs: 1000 });
  try {
    let frames = 0;
    client.envelopes$.subscribe((envelope) => {
      if (isNotification(envelope) && envelope.method === "session/update") frames++;
    });
    await client.initialize({ _meta: agentMeta });
    const session = () => client.newSession({ cwd: tmpdir(), mcpServers: [], _meta: agentMeta });
    const chatty = await session();
    const other = await session();
    const otherCall = () => client.setSessionMode({ sessionId: other.sessionId, modeId: "default" });
    const nonSessionCall = () => client.extMethod("_bench/ping", { agent: "mock" });
    const phase = async (): Promise<{ otherSession: number[]; nonSession: number[] }> => {
      const result = { otherSession: [] as number[], nonSession: [] as number[] };
      for (let i = 0; i < requests; i++) {
        result.otherSession.push(await time(otherCall));
        result.nonSession.push(await time(nonSessionCall));
        await sleep(5);
      }
      return result;
    };
    // Warm-up, so neither phase pays for JIT or the first sockets.
    for (let i = 0; i < 20; i++) await Promise.all([otherCall(), nonSessionCall()]);
    const quiet = await phase();
    // Enough words to outlast the busy phase at 100 frames/s.
    const words = Array.from({ length: requests * 6 + 200 }, (_, i) => `w${i}`).join(" ");
    const turn = client.prompt({ sessionId: chatty.sessionId, prompt: [{ type: "text", text: words }] });
    while (frames < 20) await sleep(5);
    const startFrames = frames;
    const startAt = performance.now();
    const busy = await phase();
    const framesPerSecond = ((frames - startFrames) * 1000) / (performance.now() - startAt);
    await client.cancel({ sessionId: chatty.sessionId }).catch(() => undefined);
    await Promise.race([turn.catch(() => undefined), sleep(2000)]);
    return { quiet, busy, framesPerSecond };
  } finally {
    await client.disconnect();
    await server.stop();
  }
}

/** Busy median over quiet median for one kind of request. */
export function holdRatio(result: InlineHoldResult, kind: "otherSession" | "nonSession"): number {
  return median(result.busy[kind]) / median(result.quiet[kind]);
}
