// Scenario 2b (diagnostic): client-side CPU per request/response with an in-process server that
// answers like 0.4.2 with its echo mock (response in the POST body, and a `mock/echo` notification
// plus a copy of the response on the event stream), so neither the network nor the server (which
// shares this machine's CPUs) is in the figure. It explains scenario 2: on a small machine the
// client's own CPU per request shows up directly in the round-trip rate.
import type { Contender } from "../contenders/index.js";
import { collect, Stopwatch, type Sample } from "../support/measure.js";
import { fakeServer } from "../support/synthetic.js";

export interface RequestCostResult extends Sample {
  requests: number;
}

export async function requestCost(contender: Contender, count: number): Promise<RequestCostResult> {
  const fake = fakeServer(undefined, { echo: true });
  const connection = contender.connect({ baseUrl: "http://bench.invalid", path: "/v1/acp/cost", fetch: fake.fetch });
  // Warm-up, and the first POST opens the (silent) event stream, as on a real connection.
  for (let i = 0; i < 1000; i++) await connection.call("_bench/ping", { warmup: i });
  collect();
  const watch = new Stopwatch();
  for (let i = 0; i < count; i++) await connection.call("_bench/ping", { seq: i });
  const sample = watch.read();
  await connection.close();
  return { ...sample, requests: count };
}
