// Scenario 5: memory. (a) Heap and RSS growth while a client is alive after consuming the synthetic
// stream (bounded dedupe, no buffer that grows with the stream). (b) The cost of an idle
// connection: many clients that have done initialize against an in-process server and hold their
// GET open, with nothing arriving.
import type { BenchConnection, Contender } from "../contenders/index.js";
import { consume, type ConsumeResult } from "./inbound-cost.js";
import { memoryAfterGc, sleep, type Memory } from "../support/measure.js";
import { fakeServer, type SyntheticBody } from "../support/synthetic.js";

export interface StreamMemoryResult {
  consume: ConsumeResult;
  /** Growth over the baseline with every envelope consumed and the client still connected. */
  heapGrowth: number;
  rssGrowth: number;
  /** Heap left over once the client is closed (a leak shows here). */
  heapAfterClose: number;
}

export async function streamMemory(contender: Contender, body: SyntheticBody): Promise<StreamMemoryResult> {
  const base = memoryAfterGc();
  let alive: Memory = base;
  const result = await consume(contender, body, 1, () => {
    alive = memoryAfterGc();
  });
  // Let the aborted stream's promise chains unwind before measuring what stays behind.
  await sleep(50);
  const closed = memoryAfterGc();
  return {
    consume: result,
    heapGrowth: alive.heapUsed - base.heapUsed,
    rssGrowth: alive.rss - base.rss,
    heapAfterClose: closed.heapUsed - base.heapUsed,
  };
}

export interface IdleResult {
  connections: number;
  heapPerConnection: number;
  rssPerConnection: number;
}

export async function idleConnections(contender: Contender, count: number): Promise<IdleResult> {
  // One in-process server for all of them: a fresh silent GET stream per connection.
  const fake = fakeServer();
  const base = memoryAfterGc();
  const connections: BenchConnection[] = [];
  for (let i = 0; i < count; i++) {
    const connection = contender.connect({ baseUrl: "http://bench.invalid", path: `/v1/acp/idle-${i}`, fetch: fake.fetch });
    await connection.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    connections.push(connection);
  }
  for (let i = 0; connections.some((connection) => !connection.streamOpen); i++) {
    if (i > 500) throw new Error(`${contender.name}: idle streams did not all open`);
    await sleep(10);
  }
  const loaded = memoryAfterGc();
  await Promise.all(connections.map((connection) => connection.close()));
  return {
    connections: count,
    heapPerConnection: (loaded.heapUsed - base.heapUsed) / count,
    rssPerConnection: (loaded.rss - base.rss) / count,
  };
}
