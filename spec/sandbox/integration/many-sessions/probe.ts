// Child process of many-sessions.spec.ts, run with --expose-gc so that heap readings follow full
// collections: one SandboxAgentClient on an in-process server, `SESSIONS` session views subscribed
// (events$ or transcript$). Prints one JSON line: the heap per idle view, the client's CPU per
// update with every view receiving against one view alone (rounds alternated, medians), and the
// bytes allocated per update with every view receiving (what the collections freed while the
// updates arrived, plus what the heap grew by, between two full collections: `v8.GCProfiler`).
import { GCProfiler } from "node:v8";
import { SandboxAgentClient } from "../../../../lib/sandbox/index.js";
import { pushServer, sessionsBody } from "../../../support/sessions-push-server.js";

const SESSIONS = 1000;
const UPDATES = 30_000;
const ROUNDS = 3;
type Mode = "events" | "transcript";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 2000) throw new Error(`${what}: not within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Connects, subscribes `sessions` views; with a body, pushes it and clocks CPU until all arrived. */
async function run(
  mode: Mode,
  sessions: number,
  body?: Uint8Array[],
): Promise<{ heapPerView: number; cpuUs: number; bytesPerUpdate: number }> {
  const server = pushServer();
  const client = new SandboxAgentClient({
    baseUrl: "http://bench.invalid",
    agent: "mock",
    fetch: server.fetch,
    autoConnect: false,
  });
  await client.connect();
  await until(server.opened, "the event stream");
  let seen = 0;
  const before = heap();
  const subscriptions = Array.from({ length: sessions }, (_, s) => {
    const view = client.session(`s-${s}`);
    const count = () => seen++;
    return mode === "events" ? view.events$.subscribe(count) : view.transcript$.subscribe(count);
  });
  const heapPerView = (heap() - before) / sessions;
  let cpuUs = Number.NaN;
  let bytesPerUpdate = Number.NaN;
  if (body) {
    seen = 0;
    const heapAtStart = heap();
    const profiler = new GCProfiler();
    profiler.start();
    const start = process.cpuUsage();
    server.push(body);
    await until(() => seen >= UPDATES, "every update");
    const used = process.cpuUsage(start);
    cpuUs = (used.user + used.system) / UPDATES;
    const heapAtEnd = heap();
    let freed = 0;
    for (const { beforeGC, afterGC } of profiler.stop().statistics) {
      freed += beforeGC.heapStatistics.usedHeapSize - afterGC.heapStatistics.usedHeapSize;
    }
    bytesPerUpdate = (freed + heapAtEnd - heapAtStart) / UPDATES;
  }
  for (const subscription of subscriptions) subscription.unsubscribe();
  await client.disconnect();
  return { heapPerView, cpuUs, bytesPerUpdate };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
const out: Record<string, { heapPerView: number; cpuRatio: number; bytesPerUpdate: number }> = {};
const one = sessionsBody(1, UPDATES);
const many = sessionsBody(SESSIONS, UPDATES);
for (const mode of ["events", "transcript"] as const) {
  await run(mode, SESSIONS, many); // warm-up: code compiled for both sizes
  await run(mode, 1, one);
  const heapPerView = (await run(mode, SESSIONS)).heapPerView;
  const ratios: number[] = [];
  const bytes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const single = await run(mode, 1, one);
    const all = await run(mode, SESSIONS, many);
    ratios.push(all.cpuUs / single.cpuUs);
    bytes.push(all.bytesPerUpdate);
  }
  out[mode] = { heapPerView, cpuRatio: median(ratios), bytesPerUpdate: median(bytes) };
}
console.log(JSON.stringify(out));
process.exit(0);
