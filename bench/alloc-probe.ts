// Probe for scenario 13: bytes allocated per update on the many-sessions path, counted, not timed.
//
//   node --import tsx --expose-gc bench/alloc-probe.ts [modes=acp,events,transcript,raw] [sizes=1,1000]
//   ALLOC_SITES=transcript:1000 node --import tsx --expose-gc bench/alloc-probe.ts   # where it is allocated
//
// Method: `v8.GCProfiler` reports the heap's used size before and after every collection. Between a
// full collection before a run and one after it, what the run allocated is everything the
// collections freed (before − after, summed) plus what the heap grew by. A run with U updates and
// one with 2U (same mode, same number of sessions, each in a fresh client) differ only by the U
// updates, so (bytes(2U) − bytes(U)) ÷ U is the allocation per update with connecting, subscribing
// the views and closing cancelled out. Unlike CPU time it does not depend on what else the machine
// runs; it moves by well under 1 % between repetitions (the median of three is printed).
// The scavenges per 100,000 updates are printed beside it (the same difference).
//
// ALLOC_SITES=mode:sessions: V8's sampling heap profiler (through the inspector, objects freed by
// scavenges and full collections kept in the profile) over one 2U run, bytes per update by the
// function that allocated them, top 25.
import { Session } from "node:inspector/promises";
import { GCProfiler } from "node:v8";
import { manySessions, sessionsBody, type ManySessionsMode } from "./scenarios/many-sessions.js";
import { collect, median } from "./support/measure.js";

const modes = (process.argv[2] ?? "acp,events,transcript,raw").split(",") as ManySessionsMode[];
const sizes = (process.argv[3] ?? "1,1000").split(",").map(Number);
const UPDATES = Number(process.env.ALLOC_UPDATES ?? 50_000);
const REPEATS = 3;

interface Allocation {
  bytes: number;
  scavenges: number;
}

/** Bytes allocated and scavenges run while `work` runs, between two full collections. */
async function allocation(work: () => Promise<unknown>): Promise<Allocation> {
  collect();
  const profiler = new GCProfiler();
  profiler.start();
  const start = process.memoryUsage().heapUsed;
  await work();
  collect();
  const end = process.memoryUsage().heapUsed;
  const { statistics } = profiler.stop();
  let freed = 0;
  let scavenges = 0;
  for (const gc of statistics) {
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    if (gc.gcType === "Scavenge") scavenges++;
  }
  return { bytes: freed + end - start, scavenges };
}

async function perUpdate(mode: ManySessionsMode, sessions: number): Promise<{ bytes: number; scavenges: number }> {
  const once = sessionsBody(sessions, UPDATES);
  const twice = sessionsBody(sessions, 2 * UPDATES);
  await manySessions(mode, sessions, twice, 2 * UPDATES); // warm-up: the JIT's own allocation
  const bytes: number[] = [];
  const scavenges: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const a = await allocation(() => manySessions(mode, sessions, once, UPDATES));
    const b = await allocation(() => manySessions(mode, sessions, twice, 2 * UPDATES));
    bytes.push((b.bytes - a.bytes) / UPDATES);
    scavenges.push(((b.scavenges - a.scavenges) * 100_000) / UPDATES);
  }
  return { bytes: median(bytes), scavenges: median(scavenges) };
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

async function sites(mode: ManySessionsMode, sessions: number): Promise<void> {
  const body = sessionsBody(sessions, 2 * UPDATES);
  await manySessions(mode, sessions, body, 2 * UPDATES);
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await manySessions(mode, sessions, body, 2 * UPDATES);
  const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: SamplingNode } };
  session.disconnect();
  const bySite = new Map<string, number>();
  const walk = (node: SamplingNode): void => {
    const frame = node.callFrame;
    const file = frame.url.replace(/^.*\/(lib|node_modules|bench|spec)\//, "$1/");
    const key = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  const perUpdate = (total / (2 * UPDATES)).toFixed(0);
  console.log(`${mode} at ${sessions} sessions: ~${perUpdate} B / update sampled (setup included)`);
  for (const [key, size] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`  ${(size / (2 * UPDATES)).toFixed(0).padStart(6)} B  ${key}`);
  }
}

if (process.env.ALLOC_SITES) {
  const [mode, n] = process.env.ALLOC_SITES.split(":");
  await sites(mode as ManySessionsMode, Number(n ?? 1000));
} else {
  const u = UPDATES.toLocaleString("en-US");
  console.log(`bytes allocated per update (median of ${REPEATS}; (2U − U) ÷ U, U = ${u})`);
  for (const mode of modes) {
    const line: string[] = [];
    for (const n of sizes) {
      const { bytes, scavenges } = await perUpdate(mode, n);
      line.push(`${n}: ${bytes.toFixed(0)} B (${scavenges.toFixed(1)} scavenges / 100k)`);
    }
    console.log(`  ${mode.padEnd(10)} ${line.join(", ")}`);
  }
}
process.exit(0);
