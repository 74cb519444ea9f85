// `npm run bench`: every scenario in one process, contenders alternated round by round (the order
// rotates, so none always runs first or last), medians and ratios printed as one markdown table.
//
// Environment:
//   BENCH_ROUNDS=3         rounds of scenarios 1, 2b and 6
//   BENCH_RT_ROUNDS=5      rounds of scenarios 2 and 3, which split their request totals over them
//   BENCH_STREAM_ROUNDS=2  rounds of scenario 4 (each burst takes seconds of server time)
//   BENCH_SCALE=1          multiplies every size (0.1 for a quick look)
//   BENCH_ONLY=1,2,...     run only these scenarios (1, 1M, 2, 2b, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
//   BENCH_FULL_UPSTREAM=1  also put upstream through the 1,000,000-envelope run (about 1.5 minutes more)
import { execFileSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { CONTENDERS, contenders, type ContenderName } from "./contenders/index.js";
import { officialSdkScenario, renderOfficialTable } from "./official-sdk.js";
import { promptOrder } from "./prompt-order.js";
import { FAN_OUT, fanOut, type FanOutResult } from "./scenarios/fan-out.js";
import { consume, type ConsumeResult } from "./scenarios/inbound-cost.js";
import { holdRatio, inlineHold, type InlineHoldResult } from "./scenarios/inline-hold.js";
import { idleConnections, streamMemory, type IdleResult, type StreamMemoryResult } from "./scenarios/memory.js";
import { requestCost, type RequestCostResult } from "./scenarios/request-cost.js";
import { benchSandboxes } from "./scenarios/sandboxes.js";
import { concurrent, openWarm, sequential, type RoundTripResult } from "./scenarios/round-trips.js";
import { burst, type BurstResult } from "./scenarios/streaming.js";
import { recorderBurst, storeBurst, type RecorderBurstResult, type StoreBurstResult } from "./scenarios/store-burst.js";
import { bigMessage, bigText, longMessage, shiftAssembly, type BigPath, type BigResult } from "./scenarios/big-message.js";
import { fleet, type FleetResult } from "./scenarios/fleet.js";
import { manySessions, sessionsBody, type ManySessionsMode, type ManySessionsResult } from "./scenarios/many-sessions.js";
import { deliver, transcriptHeap, transcriptTurn, type TranscriptRun } from "./scenarios/transcript.js";
import { median, quantile, rotate } from "./support/measure.js";
import { scriptedAgentPath, startServer, type BenchServer } from "./support/server.js";
import { buildBody } from "./support/synthetic.js";
import { advantage, renderTable, type Row } from "./table.js";

/** A row with only our figure (no contenders, no ratios). */
function oursOnlyRow(scenario: string, metric: string, ours: number | undefined, digits: number, higherIsBetter: boolean): Row {
  return { scenario, metric, ours, upstream: undefined, raw: undefined, digits, higherIsBetter, showRatios: false };
}

function intEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

const ROUNDS = intEnv("BENCH_ROUNDS", 3);
const RT_ROUNDS = intEnv("BENCH_RT_ROUNDS", 5);
const STREAM_ROUNDS = intEnv("BENCH_STREAM_ROUNDS", 2);
const SCALE = Number(process.env.BENCH_SCALE) > 0 ? Number(process.env.BENCH_SCALE) : 1;
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",").map((s) => s.trim())) : undefined;
const FULL_UPSTREAM = process.env.BENCH_FULL_UPSTREAM === "1";
const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));

const SIZES = {
  // The rounds use a lighter stream (upstream needs ~5 s per 50k here); the full size runs once.
  inboundRound: scaled(50_000),
  inboundFull: scaled(1_000_000),
  sequential: scaled(5_000),
  concurrent: scaled(20_000),
  inFlight: 64,
  requestCost: scaled(5_000),
  burst: scaled(100_000),
  idle: scaled(1_000),
  fanOut: scaled(20_000),
  inlineHold: scaled(100),
  transcript: scaled(100_000),
  sessionUpdates: scaled(50_000),
  bigMessageBytes: scaled(50_000_000),
  longMessageChunks: scaled(1_000_000),
};

const wants = (scenario: string): boolean => !ONLY || ONLY.has(scenario);
const log = (line: string): void => console.log(line);
const perContender = <T>(): Record<ContenderName, T[]> => ({ ours: [], upstream: [], raw: [] });
const us = (ms: number, count: number): number => (ms * 1000) / count;
/** `total` split into `parts` near-equal whole parts that add up to it exactly. */
const split = (total: number, parts: number): number[] =>
  Array.from({ length: parts }, (_, i) => Math.floor((total * (i + 1)) / parts) - Math.floor((total * i) / parts));
const MB = 1024 * 1024;
const signed = (value: number, digits: number): string => `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;
const KB = 1024;

function machine(): string {
  const lines = [
    `- node ${process.version} on ${process.platform}/${process.arch}`,
    `- nproc: ${cpus().length}, CPU: ${cpus()[0]?.model ?? "unknown"}`,
    `- memory: ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `- load average at start (1/5/15 min): ${loadavg().map((l) => l.toFixed(2)).join(" / ")}`,
  ];
  try {
    lines.push("", "```", execFileSync("free", ["-h"], { encoding: "utf8" }).trimEnd(), "```");
  } catch {
    // `free` is not everywhere; the total above stands.
  }
  return lines.join("\n");
}

// --- scenario 1: client-side cost per inbound envelope -------------------------------------------

async function inboundCost(rows: Row[]): Promise<void> {
  const body = buildBody(SIZES.inboundRound);
  log(`\n## 1. inbound cost: ${SIZES.inboundRound.toLocaleString("en-US")} envelopes, ${(body.bytes.length / body.envelopes).toFixed(0)} bytes each, 64 KB chunks, ${ROUNDS} rounds`);
  const results = perContender<ConsumeResult>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of rotate(CONTENDERS, round)) {
      const result = await consume(contenders[name], body);
      results[name].push(result);
      log(`  round ${round + 1} ${name.padEnd(8)} ${us(result.cpuMs, result.envelopes).toFixed(2)} µs CPU/envelope, ${Math.round(result.envelopes / (result.wallMs / 1000)).toLocaleString("en-US")} envelopes/s`);
    }
  }
  const cpu = (name: ContenderName) => median(results[name].map((r) => us(r.cpuMs, r.envelopes)));
  const rate = (name: ContenderName) => median(results[name].map((r) => r.envelopes / (r.wallMs / 1000)));
  const cpuRatio = advantage(cpu("ours"), cpu("raw"), false);
  const rateRatio = advantage(rate("ours"), rate("upstream"), true);
  const scenario = `1 (${Math.round(SIZES.inboundRound / 1000)}k)`;
  rows.push(
    { scenario, metric: "CPU µs / envelope", ours: cpu("ours"), upstream: cpu("upstream"), raw: cpu("raw"), digits: 2, higherIsBetter: false, target: { label: "ours ≤ 2× raw", met: (cpuRatio ?? 0) >= 0.5 } },
    { scenario, metric: "envelopes / s", ours: rate("ours"), upstream: rate("upstream"), raw: rate("raw"), target: { label: "ours ≥ 5× upstream", met: (rateRatio ?? 0) >= 5 } },
  );
}

// --- scenario 1 at full size, and 5a: memory while a client holds a consumed stream -----------------

async function fullRunAndMemory(rows: Row[]): Promise<void> {
  const body = buildBody(SIZES.inboundFull);
  const names: ContenderName[] = FULL_UPSTREAM ? ["ours", "upstream", "raw"] : ["ours", "raw"];
  log(`\n## 1 at ${SIZES.inboundFull.toLocaleString("en-US")} envelopes (${(body.bytes.length / MB).toFixed(0)} MB body), once, with memory (5a)${FULL_UPSTREAM ? "" : "; upstream skipped (BENCH_FULL_UPSTREAM=1 adds it)"}`);
  const results: Partial<Record<ContenderName, StreamMemoryResult>> = {};
  for (const name of names) {
    const result = await streamMemory(contenders[name], body);
    results[name] = result;
    const c = result.consume;
    log(`  ${name.padEnd(8)} ${us(c.cpuMs, c.envelopes).toFixed(2)} µs CPU/envelope, ${Math.round(c.envelopes / (c.wallMs / 1000)).toLocaleString("en-US")} envelopes/s, heap ${signed(result.heapGrowth / MB, 2)} MB, RSS ${signed(result.rssGrowth / MB, 1)} MB while connected; heap ${signed(result.heapAfterClose / MB, 2)} MB after close`);
  }
  const pick = (name: ContenderName, f: (r: StreamMemoryResult) => number): number | undefined => {
    const result = results[name];
    return result ? f(result) : undefined;
  };
  const cpu = (r: StreamMemoryResult) => us(r.consume.cpuMs, r.consume.envelopes);
  const rate = (r: StreamMemoryResult) => r.consume.envelopes / (r.consume.wallMs / 1000);
  const scenario = `1 (${SIZES.inboundFull / 1e6}M)`;
  const cpuRatio = advantage(pick("ours", cpu), pick("raw", cpu), false);
  const rateRatio = advantage(pick("ours", rate), pick("upstream", rate), true);
  rows.push(
    { scenario, metric: "CPU µs / envelope", ours: pick("ours", cpu), upstream: pick("upstream", cpu), raw: pick("raw", cpu), digits: 2, higherIsBetter: false, target: { label: "ours ≤ 2× raw", met: (cpuRatio ?? 0) >= 0.5 } },
    {
      scenario,
      metric: "envelopes / s",
      ours: pick("ours", rate),
      upstream: pick("upstream", rate),
      raw: pick("raw", rate),
      ...(FULL_UPSTREAM ? { target: { label: "ours ≥ 5× upstream", met: (rateRatio ?? 0) >= 5 } } : {}),
    },
  );
  const heap = (r: StreamMemoryResult) => r.heapGrowth / MB;
  const rss = (r: StreamMemoryResult) => r.rssGrowth / MB;
  const oursHeap = pick("ours", heap);
  rows.push(
    { scenario: "5a", metric: `heap growth after ${SIZES.inboundFull / 1e6}M envelopes, MB`, ours: oursHeap, upstream: pick("upstream", heap), raw: pick("raw", heap), digits: 2, showRatios: false, target: { label: "ours < 10 MB", met: oursHeap !== undefined && oursHeap < 10 } },
    { scenario: "5a", metric: `RSS growth after ${SIZES.inboundFull / 1e6}M envelopes, MB`, ours: pick("ours", rss), upstream: pick("upstream", rss), raw: pick("raw", rss), digits: 1, showRatios: false },
  );
}

// --- scenario 5b: idle connections ---------------------------------------------------------------

async function idle(rows: Row[]): Promise<void> {
  log(`\n## 5b. ${SIZES.idle.toLocaleString("en-US")} idle connections (initialized, GET open, in-process server)`);
  const results: Partial<Record<ContenderName, IdleResult>> = {};
  for (const name of CONTENDERS) {
    const result = await idleConnections(contenders[name], SIZES.idle);
    results[name] = result;
    log(`  ${name.padEnd(8)} heap ${(result.heapPerConnection / KB).toFixed(1)} KB, RSS ${(result.rssPerConnection / KB).toFixed(1)} KB per connection`);
  }
  const heap = (name: ContenderName) => (results[name]?.heapPerConnection ?? Number.NaN) / KB;
  const rss = (name: ContenderName) => (results[name]?.rssPerConnection ?? Number.NaN) / KB;
  rows.push(
    { scenario: "5b", metric: "heap per idle connection, KB", ours: heap("ours"), upstream: heap("upstream"), raw: heap("raw"), digits: 1, showRatios: false, target: { label: "ours < 200 KB", met: heap("ours") < 200 } },
    { scenario: "5b", metric: "RSS per idle connection, KB", ours: rss("ours"), upstream: rss("upstream"), raw: rss("raw"), digits: 1, showRatios: false, target: { label: "ours < 200 KB", met: rss("ours") < 200 } },
  );
}

// --- scenario 6: fan-out -------------------------------------------------------------------------

async function fanOutScenario(rows: Row[]): Promise<void> {
  const body = buildBody(SIZES.fanOut);
  log(`\n## 6. fan-out: ${SIZES.fanOut.toLocaleString("en-US")} envelopes to 1 and to ${FAN_OUT} consumers, ${ROUNDS} rounds`);
  const results = perContender<FanOutResult>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of rotate(CONTENDERS, round)) {
      const result = await fanOut(contenders[name], body);
      results[name].push(result);
      log(`  round ${round + 1} ${name.padEnd(8)} 1: ${us(result.single.cpuMs, body.envelopes).toFixed(2)} µs, ${FAN_OUT}: ${us(result.fanned.cpuMs, body.envelopes).toFixed(2)} µs CPU/envelope`);
    }
  }
  const single = (name: ContenderName) => median(results[name].map((r) => us(r.single.cpuMs, body.envelopes)));
  const fanned = (name: ContenderName) => median(results[name].map((r) => us(r.fanned.cpuMs, body.envelopes)));
  rows.push(
    { scenario: "6", metric: "CPU µs / envelope, 1 consumer", ours: single("ours"), upstream: single("upstream"), raw: single("raw"), digits: 2, higherIsBetter: false },
    { scenario: "6", metric: `CPU µs / envelope, ${FAN_OUT} consumers`, ours: fanned("ours"), upstream: fanned("upstream"), raw: fanned("raw"), digits: 2, higherIsBetter: false },
    {
      scenario: "6",
      metric: `cost of ${FAN_OUT} consumers ÷ 1`,
      ours: fanned("ours") / single("ours"),
      upstream: fanned("upstream") / single("upstream"),
      raw: fanned("raw") / single("raw"),
      digits: 2,
      showRatios: false,
    },
  );
}

// --- scenario 2b: client CPU per request, no network -----------------------------------------------

async function requestCostScenario(rows: Row[]): Promise<void> {
  log(`\n## 2b. client CPU per request, in-process server: ${SIZES.requestCost.toLocaleString("en-US")} sequential requests, ${ROUNDS} rounds`);
  const results = perContender<RequestCostResult>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of rotate(CONTENDERS, round)) {
      const result = await requestCost(contenders[name], SIZES.requestCost);
      results[name].push(result);
      log(`  round ${round + 1} ${name.padEnd(8)} ${us(result.cpuMs, result.requests).toFixed(1)} µs CPU/request`);
    }
  }
  const cpu = (name: ContenderName) => median(results[name].map((r) => us(r.cpuMs, r.requests)));
  rows.push({ scenario: "2b", metric: "client CPU µs / request, no network", ours: cpu("ours"), upstream: cpu("upstream"), raw: cpu("raw"), digits: 1, higherIsBetter: false });
}

// --- scenarios 2 and 3: round trips through the real server ----------------------------------------

async function roundTrips(rows: Row[], runSequential: boolean, runConcurrent: boolean): Promise<void> {
  const server = await startServer("builtin");
  const closing: Promise<void>[] = [];
  try {
    const connections = {
      ours: await openWarm(contenders.ours, server),
      upstream: await openWarm(contenders.upstream, server),
      raw: await openWarm(contenders.raw, server),
    };
    if (runSequential) {
      const parts = split(SIZES.sequential, RT_ROUNDS);
      log(`\n## 2. sequential round trips, echo mock, one connection each: ${SIZES.sequential.toLocaleString("en-US")} requests in ${RT_ROUNDS} rounds`);
      const results = perContender<RoundTripResult>();
      for (let round = 0; round < RT_ROUNDS; round++) {
        for (const name of rotate(CONTENDERS, round)) {
          const result = await sequential(connections[name], parts[round] as number);
          results[name].push(result);
          log(`  round ${round + 1} ${name.padEnd(8)} ${Math.round(result.requests / (result.wallMs / 1000))} req/s, ${us(result.cpuMs, result.requests).toFixed(0)} µs client CPU/request`);
        }
      }
      const rate = (name: ContenderName) => median(results[name].map((r) => r.requests / (r.wallMs / 1000)));
      const cpu = (name: ContenderName) => median(results[name].map((r) => us(r.cpuMs, r.requests)));
      const vsUp = advantage(rate("ours"), rate("upstream"), true) ?? 0;
      const vsRaw = advantage(rate("ours"), rate("raw"), true) ?? 0;
      rows.push(
        { scenario: "2", metric: "requests / s, sequential", ours: rate("ours"), upstream: rate("upstream"), raw: rate("raw"), target: { label: "ours ≥ 1.0× upstream, ≥ 0.9× raw", met: vsUp >= 1 && vsRaw >= 0.9 } },
        { scenario: "2", metric: "client CPU µs / request", ours: cpu("ours"), upstream: cpu("upstream"), raw: cpu("raw"), higherIsBetter: false },
      );
    }
    if (runConcurrent) {
      const parts = split(SIZES.concurrent, RT_ROUNDS);
      log(`\n## 3. concurrency: ${SIZES.inFlight} in flight, ${SIZES.concurrent.toLocaleString("en-US")} requests in ${RT_ROUNDS} rounds`);
      const results = perContender<RoundTripResult>();
      for (let round = 0; round < RT_ROUNDS; round++) {
        for (const name of rotate(CONTENDERS, round)) {
          const result = await concurrent(connections[name], parts[round] as number, SIZES.inFlight);
          results[name].push(result);
          const sorted = result.latencies ?? [];
          log(`  round ${round + 1} ${name.padEnd(8)} ${Math.round(result.requests / (result.wallMs / 1000))} req/s, p50 ${quantile(sorted, 0.5).toFixed(1)} ms, p99 ${quantile(sorted, 0.99).toFixed(1)} ms`);
        }
      }
      const rate = (name: ContenderName) => median(results[name].map((r) => r.requests / (r.wallMs / 1000)));
      const all = (name: ContenderName) => results[name].flatMap((r) => r.latencies ?? []).sort((a, b) => a - b);
      const p = (name: ContenderName, q: number) => quantile(all(name), q);
      const vsUp = advantage(rate("ours"), rate("upstream"), true) ?? 0;
      rows.push(
        { scenario: "3", metric: `requests / s, ${SIZES.inFlight} in flight`, ours: rate("ours"), upstream: rate("upstream"), raw: rate("raw"), target: { label: "ours ≥ 1.0× upstream", met: vsUp >= 1 } },
        { scenario: "3", metric: "latency p50, ms", ours: p("ours", 0.5), upstream: p("upstream", 0.5), raw: p("raw", 0.5), digits: 1, higherIsBetter: false },
        { scenario: "3", metric: "latency p99, ms", ours: p("ours", 0.99), upstream: p("upstream", 0.99), raw: p("raw", 0.99), digits: 1, higherIsBetter: false },
      );
    }
    for (const connection of Object.values(connections)) closing.push(connection.close());
  } finally {
    await Promise.allSettled(closing);
    await server.stop();
  }
}

// --- scenario 4: a burst through the real server ---------------------------------------------------

async function streaming(rows: Row[]): Promise<void> {
  const server: BenchServer = await startServer({ script: scriptedAgentPath() });
  const closing: Promise<void>[] = [];
  try {
    log(`\n## 4. burst of ${SIZES.burst.toLocaleString("en-US")} session/update through the server (scripted agent), ${STREAM_ROUNDS} rounds`);
    const results = perContender<BurstResult>();
    for (let round = 0; round < STREAM_ROUNDS; round++) {
      for (const name of rotate(CONTENDERS, round)) {
        const result = await burst(contenders[name], server, SIZES.burst);
        closing.push(result.close());
        results[name].push(result);
        log(
          `  round ${round + 1} ${name.padEnd(8)} response ${(result.toResponseMs / 1000).toFixed(2)} s, last update ${(result.toLastMs / 1000).toFixed(2)} s, delivered ${result.delivered.toLocaleString("en-US")} (${result.unique.toLocaleString("en-US")} distinct), lost ${result.lost.toLocaleString("en-US")}, ${us(result.cpuMs, Math.max(1, result.delivered)).toFixed(1)} µs CPU/update`,
        );
      }
    }
    const m = (name: ContenderName, f: (r: BurstResult) => number) => median(results[name].map(f));
    const row = (metric: string, f: (r: BurstResult) => number, digits: number, higherIsBetter: boolean, showRatios = true): Row => ({
      scenario: "4",
      metric,
      ours: m("ours", f),
      upstream: m("upstream", f),
      raw: m("raw", f),
      digits,
      higherIsBetter,
      showRatios,
    });
    rows.push(
      row("time to prompt result, s", (r) => r.toResponseMs / 1000, 2, false),
      row("time to last update delivered, s", (r) => r.toLastMs / 1000, 2, false),
      row("updates delivered (distinct)", (r) => r.unique, 0, true, false),
      row("updates lost by the server", (r) => r.lost, 0, false, false),
      row("client CPU µs / update", (r) => us(r.cpuMs, Math.max(1, r.delivered)), 1, false),
    );
  } finally {
    await Promise.allSettled(closing);
    await server.stop();
  }
}

// --- scenario 11: scenario 4's burst recorded into postgresStore ---------------------------------

async function storeBurstScenario(rows: Row[]): Promise<void> {
  // A throwaway PostgreSQL cluster, as the postgres suites start (needs the server binaries:
  // .ci/system/postgres.sh); skipped with a line when they are missing.
  const { POSTGRES, startPostgresCluster } = await import("../spec/support/postgres-cluster.js");
  if (!POSTGRES.available()) {
    log(`\n## 10. skipped: postgresql is missing (get it: ${POSTGRES.howToGet})`);
    return;
  }
  const { postgresStore } = await import("../lib/postgres/index.js");
  const [cluster, server] = await Promise.all([startPostgresCluster(), startServer({ script: scriptedAgentPath() })]);
  try {
    log(`\n## 10. burst of ${SIZES.burst.toLocaleString("en-US")} updates recorded into postgresStore, ${STREAM_ROUNDS} rounds`);
    const results: StoreBurstResult[] = [];
    for (let round = 0; round < STREAM_ROUNDS; round++) {
      const store = postgresStore({ connectionString: cluster.connectionString, schema: `burst_${round}` });
      try {
        const r = await storeBurst(server, store, SIZES.burst);
        results.push(r);
        log(
          `  round ${round + 1} delivered ${r.delivered.toLocaleString("en-US")}, stored ${r.stored.toLocaleString("en-US")}, store errors ${r.storeErrors}, lag p50 ${r.lagP50Ms} ms / p95 ${r.lagP95Ms} ms / max ${r.lagMaxMs} ms, all stored ${(r.toAllStoredMs / 1000).toFixed(2)} s after the prompt (last delivered ${(r.toLastDeliveredMs / 1000).toFixed(2)} s), ${r.writesPerSecond.toFixed(0)} events/s in ${r.batches} writes, backlog at most ${r.maxBacklog.toLocaleString("en-US")}`,
        );
      } finally {
        await store.close();
      }
    }
    const direct: RecorderBurstResult[] = [];
    for (let round = 0; round < STREAM_ROUNDS; round++) {
      const store = postgresStore({ connectionString: cluster.connectionString, schema: `direct_${round}` });
      try {
        const r = await recorderBurst(store, SIZES.burst);
        direct.push(r);
        log(
          `  round ${round + 1} without the server: sent ${r.sent.toLocaleString("en-US")}, stored ${r.stored.toLocaleString("en-US")}, store errors ${r.storeErrors}, lag p50 ${r.lagP50Ms} ms / p95 ${r.lagP95Ms} ms, all stored in ${(r.allStoredMs / 1000).toFixed(2)} s, ${r.writesPerSecond.toFixed(0)} events/s`,
        );
      } finally {
        await store.close();
      }
    }
    const directRow = (metric: string, f: (r: RecorderBurstResult) => number, digits: number, higherIsBetter: boolean): Row =>
      oursOnlyRow("11", `without the server: ${metric}`, median(direct.map(f)), digits, higherIsBetter);
    rows.push(
      directRow("updates stored", (r) => r.stored, 0, true),
      directRow("store errors", (r) => r.storeErrors, 0, false),
      directRow("store lag p50, ms", (r) => r.lagP50Ms, 0, false),
      directRow("store lag p95, ms", (r) => r.lagP95Ms, 0, false),
      directRow("write throughput, events / s", (r) => r.writesPerSecond, 0, true),
    );
    const row = (metric: string, f: (r: StoreBurstResult) => number, digits: number, higherIsBetter: boolean): Row =>
      oursOnlyRow("11", metric, median(results.map(f)), digits, higherIsBetter);
    rows.push(
      row("postgresStore: updates delivered to events$", (r) => r.delivered, 0, true),
      row("postgresStore: updates stored", (r) => r.stored, 0, true),
      row("postgresStore: store errors (queue full or write failed)", (r) => r.storeErrors, 0, false),
      row("postgresStore: store lag p50, ms", (r) => r.lagP50Ms, 0, false),
      row("postgresStore: store lag p95, ms", (r) => r.lagP95Ms, 0, false),
      row("postgresStore: last update stored after the last delivered, ms", (r) => r.toAllStoredMs - r.toLastDeliveredMs, 0, false),
      row("postgresStore: write throughput during the burst, events / s", (r) => r.writesPerSecond, 0, true),
      row("postgresStore: recorder backlog at most, events", (r) => r.maxBacklog, 0, false),
    );
  } finally {
    await server.stop();
    await cluster.stop();
  }
}

// --- scenario 7: an unrelated request while another session streams (v2 contract server) --------

async function inlineHoldScenario(rows: Row[]): Promise<void> {
  log(`\n## 7. a request while another session streams 100 frames/s vs on a quiet stream (v2 contract server, ours only, ${SIZES.inlineHold} requests per kind and phase, ${ROUNDS} rounds)`);
  const results: InlineHoldResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const result = await inlineHold(SIZES.inlineHold);
    results.push(result);
    const ms = (values: number[]) => median(values).toFixed(2);
    log(
      `  round ${round + 1} other session ${ms(result.quiet.otherSession)} → ${ms(result.busy.otherSession)} ms (${holdRatio(result, "otherSession").toFixed(2)}×), non-session ${ms(result.quiet.nonSession)} → ${ms(result.busy.nonSession)} ms (${holdRatio(result, "nonSession").toFixed(2)}×), ${result.framesPerSecond.toFixed(0)} frames/s meanwhile`,
    );
  }
  const all = (f: (r: InlineHoldResult) => number[]) => results.flatMap(f);
  for (const [kind, label] of [["otherSession", "set_mode on another session"], ["nonSession", "non-session call"]] as const) {
    const quiet = median(all((r) => r.quiet[kind]));
    const busy = median(all((r) => r.busy[kind]));
    const ratio = busy / quiet;
    rows.push(
      { scenario: "7", metric: `${label}, quiet stream, ms`, ours: quiet, upstream: undefined, raw: undefined, digits: 2, showRatios: false },
      { scenario: "7", metric: `${label}, other session streaming, ms`, ours: busy, upstream: undefined, raw: undefined, digits: 2, showRatios: false },
      { scenario: "7", metric: `${label}, streaming / quiet`, ours: ratio, upstream: undefined, raw: undefined, digits: 2, showRatios: false, target: { label: "≤ 1.2×", met: ratio <= 1.2 } },
    );
  }
}

async function transcriptScenario(rows: Row[]): Promise<void> {
  const updates = SIZES.transcript;
  log(`\n## 12. a ${updates.toLocaleString("en-US")}-update turn through transcript$ vs events$ (in process, ${ROUNDS} rounds, order alternating)`);
  const turn = transcriptTurn(updates);
  // One warm-up each, so neither pays for the JIT alone.
  deliver(turn, false);
  deliver(turn, true);
  const runs: { events: TranscriptRun[]; transcript: TranscriptRun[] } = { events: [], transcript: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const withTranscript of order) {
      const run = deliver(turn, withTranscript);
      (withTranscript ? runs.transcript : runs.events).push(run);
    }
    const last = (list: TranscriptRun[]) => us(list.at(-1)!.cpuMs, updates).toFixed(2);
    log(`  round ${round + 1} events$ ${last(runs.events)} µs / update, transcript$ ${last(runs.transcript)} µs / update`);
  }
  // The same number of updates, all message text: what the text itself costs to hold. Measured first:
  // `turn` is used below, so it cannot be collected in the middle of this measurement.
  const textHeap = transcriptHeap(transcriptTurn(updates, true));
  const heap = transcriptHeap(turn);
  const events = median(runs.events.map((r) => us(r.cpuMs, updates)));
  const transcript = median(runs.transcript.map((r) => us(r.cpuMs, updates)));
  const ratio = transcript / events;
  const heapMb = heap.heapBytes / MB;
  log(`  heap held by the final snapshot: ${heapMb.toFixed(2)} MB for ${heap.entries} entries and ${heap.textChars.toLocaleString("en-US")} characters of text (${(heap.heapBytes / heap.textChars).toFixed(1)} bytes / character)`);
  log(`  text-only turn: ${(textHeap.heapBytes / MB).toFixed(2)} MB for ${textHeap.entries} entries and ${textHeap.textChars.toLocaleString("en-US")} characters (${(textHeap.heapBytes / textHeap.textChars).toFixed(2)} bytes / character)`);
  rows.push(
    { scenario: "12", metric: "CPU µs / update: transcript$ (ours) vs events$ (raw column)", ours: transcript, upstream: undefined, raw: events, digits: 2, higherIsBetter: false, target: { label: "transcript$ ≤ 2× events$", met: ratio <= 2 } },
    { scenario: "12", metric: "heap held after the turn, MB", ours: heapMb, upstream: undefined, raw: undefined, digits: 2, showRatios: false },
    { scenario: "12", metric: "heap held per character of text, bytes", ours: heap.heapBytes / heap.textChars, upstream: undefined, raw: undefined, digits: 1, showRatios: false },
    { scenario: "12", metric: "text-only turn: heap held per character, bytes", ours: textHeap.heapBytes / textHeap.textChars, upstream: undefined, raw: undefined, digits: 2, showRatios: false },
  );
}


// --- scenario 13: many sessions on one client ------------------------------------------------------

const SESSION_COUNTS = [1, 10, 100, 1000];
const SESSION_MODES: Array<[ManySessionsMode, string]> = [
  ["acp", "AcpHttpClient, envelopes$ (one subscriber)"],
  ["events", "SandboxAgentClient, session(id).events$ per session"],
  ["transcript", "SandboxAgentClient, session(id).transcript$ per session"],
  ["raw", "raw: no client, no rxjs (bytes parsed, a message array and a snapshot per update per session)"],
];

async function manySessionsScenario(): Promise<void> {
  const updates = SIZES.sessionUpdates;
  log(`\n## 13. many sessions on one client: ${updates.toLocaleString("en-US")} updates spread over 1, 10, 100, 1,000 sessions, in-process server, ${ROUNDS} rounds (sizes alternate)`);
  const bodies = new Map(SESSION_COUNTS.map((n) => [n, sessionsBody(n, updates)]));
  const results = new Map<string, ManySessionsResult[]>();
  // One warm-up per mode at the largest and smallest size, so no size pays for the JIT alone.
  for (const [mode] of SESSION_MODES) {
    await manySessions(mode, 1000, bodies.get(1000)!, updates);
    await manySessions(mode, 1, bodies.get(1)!, updates);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [mode] of SESSION_MODES) {
      const order = round % 2 === 0 ? SESSION_COUNTS : [...SESSION_COUNTS].reverse();
      const line: string[] = [];
      for (const n of order) {
        const result = await manySessions(mode, n, bodies.get(n)!, updates);
        const key = `${mode}:${n}`;
        results.set(key, [...(results.get(key) ?? []), result]);
        line.push(`${n}: ${us(result.cpuMs, updates).toFixed(2)} µs`);
      }
      log(`  round ${round + 1} ${mode.padEnd(10)} ${line.join(", ")} CPU/update`);
    }
  }
  const cpu = (mode: string, n: number) => median((results.get(`${mode}:${n}`) ?? []).map((r) => us(r.cpuMs, updates)));
  const heap = (mode: string, n: number) => median((results.get(`${mode}:${n}`) ?? []).map((r) => r.heapPerIdleSession / KB));
  const lines = [
    "| client and view | " + SESSION_COUNTS.map((n) => `${n.toLocaleString("en-US")} sessions, µs / update`).join(" | ") + " | 1,000 ÷ 1 | heap per idle session at 1,000, KB |",
    "|---|" + SESSION_COUNTS.map(() => "---:").join("|") + "|---:|---:|",
  ];
  for (const [mode, label] of SESSION_MODES) {
    const ratio = cpu(mode, 1000) / cpu(mode, 1);
    const h = heap(mode, 1000);
    lines.push(`| ${label} | ${SESSION_COUNTS.map((n) => cpu(mode, n).toFixed(2)).join(" | ")} | ${ratio.toFixed(2)}× | ${Number.isNaN(h) ? "–" : h.toFixed(1)} |`);
  }
  // The raw row's own bend is the machine's (cache misses, survivors of each scavenge with 1,000 live
  // states): the fair measure of each view is its cost against raw's at the same size.
  const against = [
    "| view ÷ raw at the same size | " + SESSION_COUNTS.map((n) => n.toLocaleString("en-US")).join(" | ") + " | 1,000 ÷ 1 of that ratio |",
    "|---|" + SESSION_COUNTS.map(() => "---:").join("|") + "|---:|",
  ];
  for (const [mode, label] of SESSION_MODES) {
    if (mode === "raw") continue;
    const ratios = SESSION_COUNTS.map((n) => cpu(mode, n) / cpu("raw", n));
    const bend = ratios[ratios.length - 1]! / ratios[0]!;
    against.push(`| ${label} | ${ratios.map((r) => `${r.toFixed(2)}×`).join(" | ")} | ${bend.toFixed(2)}× |`);
  }
  log(`\n${lines.join("\n")}\n\n${against.join("\n")}`);
  log(`  load average now (1/5/15 min): ${loadavg().map((l) => l.toFixed(2)).join(" / ")}`);
}

// --- scenario 14: one big message in small network chunks ----------------------------------------

async function bigMessageScenario(): Promise<void> {
  const text = bigText(SIZES.bigMessageBytes);
  const rounds = Math.min(ROUNDS, 2);
  log(`\n## 14. one message of ${(SIZES.bigMessageBytes / 1e6).toFixed(0)} MB in 1 KiB network chunks vs in one chunk (AcpHttpClient, ${rounds} rounds, order alternating)`);
  const paths: Array<[BigPath, string]> = [
    ["sse", "SSE event on the GET stream (injected fetch)"],
    ["post", "POST answer body (injected fetch)"],
    ["ws", "WebSocket frame, `ws` (loopback server in process: its writes are in the CPU figure)"],
    ["ws-undici", "WebSocket frame, undici's `WebSocket` (Node 22's global one)"],
    ["ws-fragments", "WebSocket message in 1 MiB fragments, `ws`"],
    ["socket", "floor: the frame's bytes over a bare loopback socket, joined once and parsed (no WebSocket)"],
  ];
  const results = new Map<string, BigResult[]>();
  for (let round = 0; round < rounds; round++) {
    for (const [path] of paths) {
      const order = round % 2 === 0 ? [0, 1024] : [1024, 0];
      for (const chunk of order) {
        const result = await bigMessage(path, text, chunk);
        results.set(`${path}:${chunk}`, [...(results.get(`${path}:${chunk}`) ?? []), result]);
        log(`  round ${round + 1} ${path.padEnd(12)} ${chunk === 0 ? "one chunk " : "1 KiB     "} ${(result.bytes / 1e6).toFixed(1)} MB: ${result.sample.wallMs.toFixed(0)} ms, ${result.sample.cpuMs.toFixed(0)} ms CPU`);
      }
    }
  }
  const m = (path: string, chunk: number, f: (r: BigResult) => number) => median((results.get(`${path}:${chunk}`) ?? []).map(f));
  const lines = [
    "| path | one chunk, ms (CPU ms) | 1 KiB chunks, ms (CPU ms) | 1 KiB ÷ one, time | 1 KiB ÷ one, CPU |",
    "|---|---:|---:|---:|---:|",
  ];
  for (const [path, label] of paths) {
    const wall = (chunk: number) => m(path, chunk, (r) => r.sample.wallMs);
    const cpu = (chunk: number) => m(path, chunk, (r) => r.sample.cpuMs);
    lines.push(`| ${label} | ${wall(0).toFixed(0)} (${cpu(0).toFixed(0)}) | ${wall(1024).toFixed(0)} (${cpu(1024).toFixed(0)}) | ${(wall(1024) / wall(0)).toFixed(2)}× | ${(cpu(1024) / cpu(0)).toFixed(2)}× |`);
  }
  log(`\n${lines.join("\n")}`);
  await segmentCurve();
  const long = SIZES.longMessageChunks;
  const short = Math.max(1, Math.round(long / 10));
  longMessage(short); // warm-up
  const perChunk = (n: number) => us(longMessage(n).sample.cpuMs, n);
  const a = perChunk(short);
  const b = perChunk(long);
  log(`\n| transcript: one agent message of | CPU µs / chunk |\n|---|---:|\n| ${short.toLocaleString("en-US")} chunks | ${a.toFixed(2)} |\n| ${long.toLocaleString("en-US")} chunks | ${b.toFixed(2)} (${(b / a).toFixed(2)}× per chunk) |`);
}

/**
 * The WebSocket rows' curve: CPU for a message of a quarter, half and all of the size in 1 KiB
 * segments, one frame (`ws`, undici) against fragments and the bare socket. Linear is a flat
 * CPU per MB; a receiver that assembles a frame in O(segments²) doubles it with the size.
 */
async function segmentCurve(): Promise<void> {
  const fractions = [0.25, 0.5, 1];
  const paths: BigPath[] = ["ws", "ws-undici", "ws-fragments", "socket"];
  const lines = [
    `| 1 KiB segments, CPU ms per MB | ${fractions.map((f) => `${((SIZES.bigMessageBytes * f) / 1e6).toFixed(1)} MB`).join(" | ")} | last ÷ first |`,
    "|---|" + fractions.map(() => "---:").join("|") + "|---:|",
  ];
  for (const path of paths) {
    const perMb: number[] = [];
    for (const fraction of fractions) {
      const result = await bigMessage(path, bigText(SIZES.bigMessageBytes * fraction), 1024);
      perMb.push(result.sample.cpuMs / (result.bytes / 1e6));
    }
    lines.push(`| ${path} | ${perMb.map((v) => v.toFixed(1)).join(" | ")} | ${(perMb[perMb.length - 1]! / perMb[0]!).toFixed(2)}× |`);
  }
  const assembly = fractions.map((f) => {
    const segments = Math.round((SIZES.bigMessageBytes * f) / 1024);
    return shiftAssembly(segments) / ((segments * 1024) / 1e6);
  });
  lines.push(`| the receivers' assembly alone: 1 KiB buffers taken by \`shift()\` and copied | ${assembly.map((v) => v.toFixed(1)).join(" | ")} | ${(assembly[assembly.length - 1]! / assembly[0]!).toFixed(2)}× |`);
  log(`\n${lines.join("\n")}`);
}

// --- scenario 15: the fleet on postgresStore ------------------------------------------------------

async function fleetScenario(): Promise<void> {
  const { POSTGRES, startPostgresCluster } = await import("../spec/support/postgres-cluster.js");
  if (!POSTGRES.available()) {
    log(`\n## 15. skipped: postgresql is missing (get it: ${POSTGRES.howToGet})`);
    return;
  }
  const durationMs = Math.max(2000, Math.round(10_000 * SCALE));
  const chunks = 100;
  const [cluster, server] = await Promise.all([startPostgresCluster(), startServer({ script: scriptedAgentPath() })]);
  try {
    log(`\n## 15. the fleet: 1, 2, 4 worker processes × 8 sessions on one server, postgresStore, turns of \`chunks ${chunks}\` for ${durationMs / 1000} s each`);
    const results: FleetResult[] = [];
    for (const workers of [1, 2, 4]) {
      const r = await fleet(server, cluster, workers, { sessions: 8, durationMs, chunks, schema: `fleet_${workers}` });
      results.push(r);
      log(`  ${workers} worker(s), ${r.sessions} sessions: ${r.turns} turns, ${r.delivered.toLocaleString("en-US")} updates delivered, ${r.stored.toLocaleString("en-US")} events stored, ${r.storedPerSecond.toFixed(0)} stored / s, lag p50 ${r.lagP50} ms / p95 ${r.lagP95} ms, tail ${r.tailMs.toFixed(0)} ms; cores: server ${r.cores.server.toFixed(2)}, postgres ${r.cores.postgres.toFixed(2)}, workers ${r.cores.workers.toFixed(2)}`);
    }
    const lines = [
      "| workers × sessions | turns | updates delivered | events stored / s | store lag p50 / p95, ms | cores used: server (+ agents) | PostgreSQL | workers | total |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...results.map((r) => {
        const total = r.cores.server + r.cores.postgres + r.cores.workers;
        return `| ${r.workers} × 8 | ${r.turns} | ${r.delivered.toLocaleString("en-US")} | ${r.storedPerSecond.toFixed(0)} | ${r.lagP50} / ${r.lagP95} | ${r.cores.server.toFixed(2)} | ${r.cores.postgres.toFixed(2)} | ${r.cores.workers.toFixed(2)} | ${total.toFixed(2)} |`;
      }),
    ];
    log(`\n${lines.join("\n")}`);
    // Load-independent: CPU per 1,000 stored events, and the rate at which that cost fills one core
    // (a party's processes together) or the machine's cores (everything together).
    const oneCore = (msPer1000: number) => Math.round(1_000_000 / msPer1000).toLocaleString("en-US");
    const costLines = [
      "| workers × sessions | events stored | CPU ms per 1,000 stored: server (+ agents) | PostgreSQL | workers | total | one core at, events / s: server | PostgreSQL | workers (one worker process) | all cores (" + cpus().length + ") at, events / s | first to one core |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
      ...results.map((r) => {
        const c = r.cpuMsPer1000;
        const total = c.server + c.postgres + c.workers;
        const parties: [string, number][] = [["server", c.server], ["PostgreSQL", c.postgres], ["workers", c.workers]];
        const first = parties.reduce((a, b) => (b[1] > a[1] ? b : a));
        // The tail is bounded (30 s): a row whose store did not catch up says so, as its CPU covers more than it stored.
        const stored = r.stored.toLocaleString("en-US") + (r.stored < r.delivered ? ` (of ${r.delivered.toLocaleString("en-US")} delivered)` : "");
        return `| ${r.workers} × 8 | ${stored} | ${c.server.toFixed(1)} | ${c.postgres.toFixed(1)} | ${c.workers.toFixed(1)} | ${total.toFixed(1)} | ${oneCore(c.server)} | ${oneCore(c.postgres)} | ${oneCore(c.workers)} (${oneCore(c.workers / r.workers)}) | ${oneCore(total / cpus().length)} | ${first[0]} |`;
      }),
    ];
    log(`\n${costLines.join("\n")}`);
  } finally {
    await server.stop();
    await cluster.stop();
  }
}

// --- main ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  log("# acp-http benchmark\n");
  log(machine());
  log(`\nrounds ${ROUNDS} (scenarios 2 and 3: ${RT_ROUNDS}, scenario 4: ${STREAM_ROUNDS}), scale ${SCALE}${ONLY ? `, only ${[...ONLY].join(",")}` : ""}`);
  const rows: Row[] = [];
  const timed = async (label: string, run: () => Promise<void>): Promise<void> => {
    const start = performance.now();
    await run();
    log(`  (${label}: ${((performance.now() - start) / 1000).toFixed(0)} s)`);
  };
  if (wants("1")) await timed("scenario 1", () => inboundCost(rows));
  if (wants("1M") || wants("5")) await timed("full-size run", () => fullRunAndMemory(rows));
  if (wants("5")) await timed("idle connections", () => idle(rows));
  if (wants("6")) await timed("fan-out", () => fanOutScenario(rows));
  if (wants("2b")) await timed("request cost", () => requestCostScenario(rows));
  if (wants("2") || wants("3")) await timed("round trips", () => roundTrips(rows, wants("2"), wants("3")));
  if (wants("4")) await timed("streaming", () => streaming(rows));
  if (wants("7")) await timed("inline hold", () => inlineHoldScenario(rows));
  if (wants("11")) await timed("burst into postgresStore", () => storeBurstScenario(rows));
  if (wants("12")) await timed("transcript", () => transcriptScenario(rows));
  if (wants("13")) await timed("many sessions", () => manySessionsScenario());
  if (wants("14")) await timed("big message", () => bigMessageScenario());
  if (wants("15")) await timed("fleet", () => fleetScenario());
  // Starting sandboxes (local and Docker) and a fleet: its own tables, as their units differ.
  if (wants("8")) await timed("sandboxes", async () => log(`\n## 8. sandboxes\n\n${await benchSandboxes(10)}`));
  if (wants("9")) await timed("official SDK", async () => log(`\n## 9. official ACP SDK 2.4.0\n\n${renderOfficialTable(await officialSdkScenario(log))}`));
  // Early resolutions on a server without a response echo: its own table (counts, idle and loaded).
  if (wants("10")) await timed("prompt order", async () => log(`\n## 10. prompt ordering without a response echo\n\n${await promptOrder(log)}`));
  // Scenario order (1, 2, 2b, 3, ...) rather than the order they ran in; stable within a scenario.
  const rank = (scenario: string): number => {
    const n = Number.parseInt(scenario, 10);
    const letter = /^\d+([a-z])/.exec(scenario)?.[1];
    return n + (letter ? (letter.charCodeAt(0) - 96) / 10 : 0);
  };
  rows.sort((a, b) => rank(a.scenario) - rank(b.scenario));
  log(`\n## results (medians; "ours vs X" > 1 means ours is better)\n`);
  log(renderTable(rows));
  log(`\nload average at end (1/5/15 min): ${loadavg().map((l) => l.toFixed(2)).join(" / ")}; total ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main().then(
  // Abandoned DELETEs and the like may hold sockets for a moment; nothing is left to wait for.
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
