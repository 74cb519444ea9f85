// Scenario 4: streaming through the real server. The scripted agent answers the prompt `burst N`
// by writing N `session/update` lines back to back (`_meta.seq` 0..N-1), then the prompt's result.
// The 0.4.2 server drops events of its live stream under such bursts (id gaps, nothing else marks
// the loss), so besides the time to the last delivered update the result records how many arrived.
import { tmpdir } from "node:os";
import type { Contender } from "../contenders/index.js";
import { collect, sleep, Stopwatch, type Sample } from "../support/measure.js";
import type { BenchServer } from "../support/server.js";

/** How long the stream must stay quiet after the response before the tail is deemed complete. */
const QUIET_MS = 1500;

export interface BurstResult extends Sample {
  /** From sending the prompt to its result. */
  toResponseMs: number;
  /** From sending the prompt to the last update delivered to the subscriber. */
  toLastMs: number;
  /** Updates handed to the subscriber, duplicates included. */
  delivered: number;
  /** Distinct `seq` values among them. */
  unique: number;
  lost: number;
  /** The connection, still open: the caller closes it outside the measurement. */
  close: () => Promise<void>;
}

function seqOf(params: unknown): number | undefined {
  const meta = (params as { _meta?: { seq?: unknown } } | null)?._meta;
  return typeof meta?.seq === "number" ? meta.seq : undefined;
}

export async function burst(contender: Contender, server: BenchServer, count: number): Promise<BurstResult> {
  const seen = new Uint8Array(count);
  let delivered = 0;
  let unique = 0;
  let lastAt = 0;
  const listener = (params: unknown): void => {
    delivered++;
    lastAt = performance.now();
    const seq = seqOf(params);
    if (seq !== undefined && seq >= 0 && seq < count && seen[seq] === 0) {
      seen[seq] = 1;
      unique++;
    }
  };
  const connection = contender.connect({
    baseUrl: server.baseUrl,
    path: server.acpPath(`burst-${contender.name}`),
    bootstrapQuery: { agent: "mock" },
    listeners: [listener],
  });
  await connection.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const session = (await connection.call("session/new", { cwd: tmpdir(), mcpServers: [] })) as { sessionId?: unknown };
  if (typeof session.sessionId !== "string") throw new Error(`${contender.name}: session/new gave no sessionId`);
  for (let i = 0; !connection.streamOpen; i++) {
    if (i > 500) throw new Error(`${contender.name}: event stream did not open`);
    await sleep(10);
  }
  // A short warm-up turn: the agent's first prompt and the client's first updates are not the burst.
  await connection.call("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "chunks 50" }] });
  await sleep(200);
  seen.fill(0);
  delivered = 0;
  unique = 0;

  collect();
  const watch = new Stopwatch();
  const start = performance.now();
  await connection.call("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: `burst ${count}` }] });
  const toResponseMs = performance.now() - start;
  // Updates sent before the result may still be on their way (the POST answer can overtake them).
  while (unique < count && performance.now() - Math.max(lastAt, start + toResponseMs) < QUIET_MS) await sleep(20);
  const sample = watch.read();
  return {
    ...sample,
    toResponseMs,
    toLastMs: lastAt > start ? lastAt - start : Number.NaN,
    delivered,
    unique,
    lost: count - unique,
    close: () => connection.close(),
  };
}
