// The fleet example: `node --import tsx examples/fleet/main.ts --sandboxes 3 --prompts 6`.
// Starts local() sandboxes with the demo agent, fans the prompts out, prints each result and a
// summary, and destroys every sandbox at the end (also on failure or Ctrl-C).
import { parseArgs } from "node:util";
import { demoAgent, local } from "sandbox-agent-rx/local";
import { runFleet } from "./fleet.js";

const { values } = parseArgs({
  options: {
    sandboxes: { type: "string", default: "3" },
    prompts: { type: "string" },
    concurrency: { type: "string" },
    prompt: { type: "string", default: "quick fleet task" },
  },
});
const sandboxes = Number(values.sandboxes);
const count = Number(values.prompts ?? sandboxes * 2);
if (!(sandboxes > 0) || !(count > 0)) {
  process.stderr.write("usage: main.ts [--sandboxes N] [--prompts M] [--concurrency C] [--prompt TEXT]\n");
  process.exit(2);
}

const provider = local({ mockAgent: demoAgent });
const prompts = Array.from({ length: count }, (_, i) => `${values.prompt} #${i + 1}`);
try {
  const { results, startMs, totalMs } = await runFleet({
    provider,
    sandboxes,
    prompts,
    ...(values.concurrency ? { concurrency: Number(values.concurrency) } : {}),
  });
  for (const r of results) {
    const ms = r.ms.toFixed(0).padStart(5);
    console.log(`sandbox ${r.sandbox}  ${r.stopReason}  ${ms} ms  ${r.prompt}: ${r.text.split("\n")[0]}`);
  }
  const timing = `started in ${startMs.toFixed(0)} ms, done in ${totalMs.toFixed(0)} ms`;
  console.log(`${results.length} prompts on ${sandboxes} sandboxes: ${timing}`);
} catch (error) {
  console.error(`fleet failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  process.exitCode = 1;
}
