// A file-backed list of process-group leaders started by test helpers, so that
// jest's global teardown can kill whatever a failed or timed-out test left running.
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const registryFile = () =>
  process.env.SANDBOX_AGENT_RX_PIDFILE ?? join(tmpdir(), `sandbox-agent-rx-pids-${process.pid}.txt`);

export function registerProcess(pid) {
  appendFileSync(registryFile(), `${pid}\n`);
}

export function unregisterProcess(pid) {
  const file = registryFile();
  if (!existsSync(file)) return;
  const rest = readFileSync(file, "utf8").split("\n").filter((l) => l && l !== String(pid));
  writeFileSync(file, rest.map((l) => `${l}\n`).join(""));
}

/** Kills each registered process group (and the process itself); returns how many were still alive. */
export function killRegisteredProcesses() {
  const file = registryFile();
  if (!existsSync(file)) return 0;
  let alive = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const pid = Number(line);
    if (!pid) continue;
    let hit = false;
    for (const target of [-pid, pid]) {
      try { process.kill(target, "SIGKILL"); hit = true; } catch { /* already gone */ }
    }
    if (hit) alive++;
  }
  rmSync(file, { force: true });
  return alive;
}
