/**
 * Connection churn: many connect/disconnect cycles of the protocol client against the v2
 * contract server. Nothing may be left behind: no server connections, no sockets or timers
 * that grow with the number of cycles, and bounded heap growth.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { filter, firstValueFrom } from "rxjs";
import { AcpHttpClient } from "../../lib/acp-http/index.js";
import { startV2ContractServer, type V2ContractServer } from "../support/v2-contract-server.js";
import { SANDBOX_AGENT_V2 } from "../support/sandbox-agent-transport.js";
import { report, sleep, waitFor } from "./support/helpers.js";

const CYCLES = process.env.RELIABILITY_SOAK === "1" ? 5000 : 1000;

let server: V2ContractServer;

beforeAll(async () => {
  server = await startV2ContractServer();
});

afterAll(async () => {
  await server?.stop();
});

const resources = (): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
};

/** `global.gc` when node runs with --expose-gc; else the same function obtained through V8 flags. */
function findGc(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString("--expose-gc");
    const fromContext: unknown = runInNewContext("gc");
    return typeof fromContext === "function" ? () => void (fromContext as () => void)() : undefined;
  } catch {
    return undefined;
  }
}

const gc = findGc();

async function heapUsed(): Promise<number> {
  if (gc) {
    gc();
    gc();
  }
  await sleep(20);
  return process.memoryUsage().heapUsed;
}

async function cycle(): Promise<void> {
  const client = new AcpHttpClient({ baseUrl: server.baseUrl, ...SANDBOX_AGENT_V2, closeTimeoutMs: 1000 });
  await client.initialize({ _meta: { "sandboxagent.dev": { agent: "mock" } } });
  // The event stream is up before we leave: a full connect, not just a POST.
  await firstValueFrom(client.state$.pipe(filter((state) => state === "open")));
  await client.disconnect();
  expect(client.state).toBe("closed");
}

describe("connection churn", () => {
  it(`${CYCLES} connect/disconnect cycles leave nothing behind`, async () => {
    // Warm-up: lazily created pools and caches are not a leak.
    for (let i = 0; i < 20; i++) await cycle();
    await waitFor(() => server.connections().length === 0, 5000, "the warm-up connections to go");
    const before = resources();
    const heapBefore = await heapUsed();
    const started = Date.now();
    for (let i = 0; i < CYCLES; i++) await cycle();
    const elapsed = Date.now() - started;
    await waitFor(() => server.connections().length === 0, 5000, "every server-side connection to go");
    await sleep(200);
    const after = resources();
    const heapAfter = await heapUsed();
    const growth = heapAfter - heapBefore;
    report("churn", {
      cycles: CYCLES,
      ms: elapsed,
      gcExposed: Boolean(gc),
      heapBeforeMB: +(heapBefore / 2 ** 20).toFixed(1),
      heapAfterMB: +(heapAfter / 2 ** 20).toFixed(1),
      heapGrowthKBPerCycle: +(growth / 1024 / CYCLES).toFixed(2),
      resourcesBefore: before,
      resourcesAfter: after,
    });
    expect(server.connections()).toEqual([]);
    // Keep-alive sockets may be pooled, but their number must not grow with the cycles.
    for (const name of ["TCPSocketWrap", "Timeout", "TCPWRAP", "FSReqCallback"]) {
      expect(after[name] ?? 0).toBeLessThanOrEqual((before[name] ?? 0) + 4);
    }
    // Generous: 20 MB for 1000 cycles (20 KB a cycle) without a forced GC; a leak of one
    // client per cycle (subjects, maps, a stream reader) would exceed it many times over.
    expect(growth).toBeLessThan((gc ? 10 : 20) * 2 ** 20 * (CYCLES / 1000));
  }, 170_000);
});
