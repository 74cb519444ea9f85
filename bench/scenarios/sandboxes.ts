// Sandboxes as a resource: time from nothing to the first prompt result (local() and docker(),
// p50 over N starts), and a fleet's prompt throughput at 1, 5 and 10 sandboxes as ratios to one.
// Each fleet turn is the scripted agent's `sleep 200`: an agent waiting on its model, so the
// ratio shows how far a fleet overlaps turns (CPU-bound turns would only show the machine's cores).
//
// Standalone: node --import tsx bench/scenarios/sandboxes.ts   (BENCH_DOCKER=0 skips docker)
import { fileURLToPath, pathToFileURL } from "node:url";
import { runFleet } from "../../examples/fleet/fleet.js";
import { docker } from "../../lib/providers/docker/index.js";
import { local } from "../../lib/providers/local/index.js";
import { startSandbox, type SandboxProvider } from "../../lib/sandbox/index.js";
import { ensureDockerDaemon } from "../../spec/providers/support/dockerd.js";
import { buildTestImage, TEST_BINDS } from "../../spec/providers/support/docker-image.js";
import { quantile } from "../support/measure.js";

const scriptedAgent = fileURLToPath(new URL("../../spec/support/scripted-agent.mjs", import.meta.url));

export interface FirstPromptResult {
  provider: string;
  /** Sorted, ms from startSandbox() to the first prompt's result. */
  samples: number[];
  p50: number;
}

/** `rounds` sequential starts; each timed from startSandbox() to its first prompt result, then destroyed. */
export async function timeToFirstPrompt(provider: SandboxProvider, rounds = 10): Promise<FirstPromptResult> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const began = performance.now();
    const started = await startSandbox({ sandbox: provider, agent: "mock" });
    try {
      const session = await started.client.newSession();
      await started.client.prompt(session.sessionId, [{ type: "text", text: "hello" }]);
      samples.push(performance.now() - began);
    } finally {
      await started.destroy();
    }
  }
  samples.sort((a, b) => a - b);
  return { provider: provider.name, samples, p50: quantile(samples, 0.5) };
}

export interface FleetRow {
  sandboxes: number;
  prompts: number;
  startMs: number;
  /** Prompts per second over the prompt phase. */
  throughput: number;
  /** throughput / throughput with one sandbox. */
  ratio: number;
}

/** Prompt throughput of a fleet of each size (`perSandbox` turns per sandbox, one in flight per sandbox). */
export async function fleetScaling(
  provider: SandboxProvider,
  sizes = [1, 5, 10],
  perSandbox = 5,
  turn = "sleep 200",
): Promise<FleetRow[]> {
  const rows: FleetRow[] = [];
  for (const sandboxes of sizes) {
    const prompts = Array.from({ length: sandboxes * perSandbox }, () => turn);
    const { results, startMs, totalMs } = await runFleet({ provider, sandboxes, prompts });
    const throughput = results.length / ((totalMs - startMs) / 1000);
    const ratio = throughput / (rows[0]?.throughput ?? throughput);
    rows.push({ sandboxes, prompts: results.length, startMs, throughput, ratio });
  }
  return rows;
}

export function renderSandboxTables(first: FirstPromptResult[], fleet: FleetRow[]): string {
  const lines = ["| provider | p50 to first prompt result | min | max |", "| --- | ---: | ---: | ---: |"];
  const ms = (value: number | undefined): string => `${value?.toFixed(0) ?? "?"} ms`;
  for (const r of first) lines.push(`| ${r.provider} | ${ms(r.p50)} | ${ms(r.samples[0])} | ${ms(r.samples.at(-1))} |`);
  lines.push("", "| sandboxes (local) | prompts | fleet start | prompts/s | vs 1 |");
  lines.push("| ---: | ---: | ---: | ---: | ---: |");
  for (const r of fleet) {
    const rate = r.throughput.toFixed(1);
    lines.push(`| ${r.sandboxes} | ${r.prompts} | ${ms(r.startMs)} | ${rate} | ${r.ratio.toFixed(2)}x |`);
  }
  return lines.join("\n");
}

/** Everything, with our own dockerd when none runs (skipped with BENCH_DOCKER=0). */
export async function benchSandboxes(rounds = 10): Promise<string> {
  const provider = local({ mockAgent: scriptedAgent });
  const first = [await timeToFirstPrompt(provider, rounds)];
  if (process.env.BENCH_DOCKER !== "0") {
    const daemon = await ensureDockerDaemon();
    try {
      const image = await buildTestImage(daemon.docker);
      const labels = { "sandbox-agent-rx.bench": "1" };
      first.push(await timeToFirstPrompt(docker({ image, docker: daemon.docker, binds: TEST_BINDS, labels }), rounds));
    } finally {
      await daemon.stop("sandbox-agent-rx.bench=1");
    }
  }
  return renderSandboxTables(first, await fleetScaling(provider));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchSandboxes(Number(process.env.BENCH_SANDBOX_ROUNDS) || 10));
}
