// Scenarios 2 and 3: request/response round trips through the real 0.4.2 server and its built-in
// echo mock agent (it answers any request with `{echoed: <the request>}` and also emits a
// `mock/echo` notification and the response on the event stream, so every contender's stream
// reader is busy too). One connection per contender and round; the server is shared.
import type { BenchConnection, Contender } from "../contenders/index.js";
import { collect, quantile, sleep, Stopwatch, type Sample } from "../support/measure.js";
import type { BenchServer } from "../support/server.js";

const WARMUP_REQUESTS = 500;
const METHOD = "_bench/ping";

export interface RoundTripResult extends Sample {
  requests: number;
  /** Per-request latency in ms, sorted (concurrency only). */
  latencies?: number[];
}

/**
 * A connection whose agent process is running and whose event stream is open, warmed up so the
 * measurement sees neither the agent's spawn nor cold JIT.
 */
export async function openWarm(contender: Contender, server: BenchServer): Promise<BenchConnection> {
  const connection = contender.connect({ baseUrl: server.baseUrl, path: server.acpPath(contender.name), bootstrapQuery: { agent: "mock" } });
  for (let i = 0; i < WARMUP_REQUESTS; i++) await connection.call(METHOD, { warmup: i });
  const deadline = Date.now() + 5000;
  while (!connection.streamOpen) {
    if (Date.now() > deadline) throw new Error(`${contender.name}: event stream did not open`);
    await sleep(10);
  }
  return connection;
}

/** `count` requests one after another: each waits for the previous answer. */
export async function sequential(connection: BenchConnection, count: number): Promise<RoundTripResult> {
  collect();
  const watch = new Stopwatch();
  for (let i = 0; i < count; i++) await connection.call(METHOD, { seq: i });
  return { ...watch.read(), requests: count };
}

/** `count` requests, `inFlight` of them outstanding at any time (a pool of workers). */
export async function concurrent(connection: BenchConnection, count: number, inFlight: number): Promise<RoundTripResult> {
  const latencies = new Array<number>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const start = performance.now();
      await connection.call(METHOD, { seq: i });
      latencies[i] = performance.now() - start;
    }
  };
  collect();
  const watch = new Stopwatch();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const sample = watch.read();
  return { ...sample, requests: count, latencies: latencies.sort((a, b) => a - b) };
}

export function latencyQuantiles(result: RoundTripResult): { p50: number; p99: number } {
  const sorted = result.latencies ?? [];
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
}
