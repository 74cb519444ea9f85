// Gives every jest worker one shared registry file for the processes its helpers start.
import { tmpdir } from "node:os";
import { join } from "node:path";
export default async function globalSetup() {
  process.env.SANDBOX_AGENT_RX_PIDFILE = join(tmpdir(), `sandbox-agent-rx-pids-${process.pid}-${Date.now()}.txt`);
}
