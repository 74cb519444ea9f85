// Gives every jest worker one shared registry file for the processes its helpers start, and one
// file where suites gated on a system component record that they were skipped (the summary at
// the end of the run reads it; see system-component.ts and global-teardown.js). When the run
// includes the real-agent suites (or CI=true), their agents are installed here, once per machine,
// before any worker starts; a suite whose agent is not installed then skips outside CI and fails
// with CI=true (spec/support/real-agents.ts).
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureInstalled, isInstalled } from "./interop-install.js";

const REAL_AGENT_SUITES =
  /real-agents\/(claude|codex)|demo-real-agents|\bspec\/?$|\binterop\/?$|examples\/?$|real-agents\/?$/;

function includesRealAgents(globalConfig) {
  const patterns = globalConfig?.testPathPatterns?.patterns ?? globalConfig?.testPathPattern ?? [];
  const list = Array.isArray(patterns) ? patterns : [patterns];
  return list.length === 0 || list.some((pattern) => REAL_AGENT_SUITES.test(String(pattern)));
}

export default async function globalSetup(globalConfig) {
  const run = `${process.pid}-${Date.now()}`;
  process.env.SANDBOX_AGENT_RX_PIDFILE = join(tmpdir(), `sandbox-agent-rx-pids-${run}.txt`);
  process.env.SANDBOX_AGENT_RX_SKIPFILE = join(tmpdir(), `sandbox-agent-rx-skips-${run}.jsonl`);
  rmSync(process.env.SANDBOX_AGENT_RX_SKIPFILE, { force: true });
  // With CI=true always: the real-agent suites must run there, never skip for a missing install.
  if (!includesRealAgents(globalConfig) && process.env.CI !== "true") return;
  for (const name of ["claude", "codex"]) {
    if (name === "codex" && !(process.platform === "linux" && process.arch === "x64")) continue;
    if (isInstalled(name)) continue;
    // A failure here is reported by the suites themselves (skipped outside CI, failed with CI=true).
    await ensureInstalled(name).catch((error) => process.stderr.write(`${error.message}\n`));
  }
}
