// Which process owns a container: labels written at create, and a liveness test that survives pid
// reuse (the owner's start time from /proc must match too). Used by sweep() for crash recovery.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * The labels `docker()` puts on each container it makes (exported as `DOCKER_LABELS`): that it
 * manages it, and which host, process and provider made it, so `sweep()` finds orphans.
 */
export const LABELS = {
  managed: "sandbox-agent-rx.managed",
  ownerHost: "sandbox-agent-rx.owner-host",
  ownerPid: "sandbox-agent-rx.owner-pid",
  ownerStart: "sandbox-agent-rx.owner-start",
  provider: "sandbox-agent-rx.provider",
} as const;

/** Start time of `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or "" without /proc. */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

/** The labels that say "this process, on this host, made it". */
export function ownerLabels(providerId: string): Record<string, string> {
  return {
    [LABELS.managed]: "true",
    [LABELS.ownerHost]: hostname(),
    [LABELS.ownerPid]: String(process.pid),
    [LABELS.ownerStart]: startTime(process.pid),
    [LABELS.provider]: providerId,
  };
}

/** "alive" / "gone" for owners on this host; "unknown" for other hosts. */
export function ownerState(labels: Record<string, string> | undefined): "alive" | "gone" | "unknown" {
  if (!labels || labels[LABELS.ownerHost] !== hostname()) return "unknown";
  const pid = Number(labels[LABELS.ownerPid]);
  if (!(pid > 0)) return "gone";
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return "gone";
  }
  const recorded = labels[LABELS.ownerStart] ?? "";
  return recorded === "" || recorded === startTime(pid) ? "alive" : "gone";
}
