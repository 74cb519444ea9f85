// Gives every jest worker one shared registry file for the processes its helpers start, and one
// file where suites gated on a system component record that they were skipped (the summary at
// the end of the run reads it; see system-component.ts and global-teardown.js).
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
export default async function globalSetup() {
  const run = `${process.pid}-${Date.now()}`;
  process.env.SANDBOX_AGENT_RX_PIDFILE = join(tmpdir(), `sandbox-agent-rx-pids-${run}.txt`);
  process.env.SANDBOX_AGENT_RX_SKIPFILE = join(tmpdir(), `sandbox-agent-rx-skips-${run}.jsonl`);
  rmSync(process.env.SANDBOX_AGENT_RX_SKIPFILE, { force: true });
}
