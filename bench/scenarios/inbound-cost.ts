// Scenario 1: client-side cost per inbound envelope, no network. An injected fetch serves a synthetic
// event stream of `session/update` envelopes (~300 bytes each) in 64 KB chunks; each contender
// consumes it through its own public API until its listener has seen every envelope.
import type { Contender, UpdateListener } from "../contenders/index.js";
import { collect, Stopwatch, whenCount, type Sample } from "../support/measure.js";
import { fakeServer, type SyntheticBody } from "../support/synthetic.js";

export interface ConsumeResult extends Sample {
  envelopes: number;
}

/**
 * Runs one contender over `body` with `listeners` consumers (1 unless fan-out is measured). The clock
 * includes creating the client and the initialize round trip: negligible next to the stream.
 * `beforeClose` sees the state with everything consumed and the client still alive (memory probes).
 */
export async function consume(
  contender: Contender,
  body: SyntheticBody,
  listeners = 1,
  beforeClose?: () => void,
): Promise<ConsumeResult> {
  const fake = fakeServer(body.bytes);
  let seen = 0;
  const target = body.envelopes * listeners;
  const progress = whenCount(() => seen, target);
  const list: UpdateListener[] = [];
  for (let i = 0; i < listeners; i++) {
    list.push(() => {
      if (++seen >= target) progress.notify();
    });
  }
  collect();
  const watch = new Stopwatch();
  const connection = contender.connect({ baseUrl: "http://bench.invalid", path: "/v1/acp/bench", fetch: fake.fetch, listeners: list });
  await connection.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
  await progress.done;
  const sample = watch.read();
  beforeClose?.();
  await connection.close();
  return { ...sample, envelopes: body.envelopes };
}
