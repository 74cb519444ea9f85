/**
 * `disconnect()` at any point of `connect()` (an Angular DestroyRef teardown
 * during a route change) must not leave the agent instance or its process behind on the real
 * 0.4.2 server: the DELETE goes out whenever a POST may have reached the server, aborted included.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
import { mulberry32 } from "../support/prng.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { drained, report, sleep, waitFor } from "./support/helpers.js";

const RUNS = 50;
const BATCH = 5;
const SEED = 0x0d15c0;

let server: SandboxAgentServer;

beforeAll(async () => {
  server = await startSandboxAgent();
});

afterAll(async () => {
  await server?.stop();
});

/** Live (non-zombie) processes in the server's process group other than the server: its agents. */
function agentProcesses(): number[] {
  const group = server.pid;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === group) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the parenthesised command: state, ppid, pgrp, ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === group && state !== "Z") pids.push(Number(entry));
  }
  return pids;
}

/** How long one whole connect takes here, so the random points cover all of it. */
async function connectDurationMs(): Promise<number> {
  const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", serverApi: "v1", autoConnect: false });
  const started = performance.now();
  await client.connect();
  const ms = performance.now() - started;
  await client.disconnect();
  return ms;
}

describe("disconnect() during connect() leaks nothing on the 0.4.2 server", () => {
  it(`${RUNS} disconnects at seeded random points of connect leave GET /v1/acp empty and no agent process alive`, async () => {
    const span = Math.max(50, (await connectDurationMs()) * 1.5);
    await waitFor(() => agentProcesses().length === 0, 10_000, "the probe connection's agent to exit");
    const random = mulberry32(SEED);
    const delays = Array.from({ length: RUNS }, () => Math.floor(random() * span));
    const outcomes = { connected: 0, cancelled: 0 };
    const leftAfterBatch: { listed: string[]; alive: number[] }[] = [];
    for (let start = 0; start < RUNS; start += BATCH) {
      await Promise.all(
        delays.slice(start, start + BATCH).map(async (delay) => {
          const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", serverApi: "v1" });
          await sleep(delay);
          await client.disconnect();
          const settled = await client.ready.then(
            () => "connected" as const,
            () => "cancelled" as const,
          );
          outcomes[settled]++;
        }),
      );
      // A cut-off creation is settled after disconnect() returned (the server may still be creating
      // the instance), and the server lets an agent go only once its DELETE is abandoned: give each
      // batch time to drain (this machine may take seconds to start a handful of agents).
      leftAfterBatch.push(await drained(server.baseUrl, 60_000, agentProcesses));
    }
    const listed = leftAfterBatch.flatMap((left) => left.listed);
    const alive = leftAfterBatch.flatMap((left) => left.alive);
    report("disconnect during connect", { runs: RUNS, spanMs: Math.round(span), ...outcomes, listed: listed.length, alive: alive.length });
    expect(listed).toEqual([]);
    expect(alive).toEqual([]);
  }, 600_000);
});
