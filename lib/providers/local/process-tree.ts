// Every process of a local sandbox, whatever it did with process groups and sessions. The server's
// process group does not hold them all: a `tty: true` process runs in its own session (pgid = sid =
// pid), and anything may call setsid() or setpgid(). Two facts find them on Linux: the server is
// started with a marker variable (SANDBOX_MARKER_VAR=<unique id>) that every descendant inherits,
// and a process that cleared its environment is still a descendant of the server (by ppid) until
// its parent dies. So the tree is read before the server is stopped, and the marker after as well.
// Without /proc (macOS, Windows) only the process group is reached.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { signal, sleep, stopServerProcess, type ServerProcess } from "./process-group.js";

/** The variable that marks a sandbox's server, and through inheritance every process it starts. */
export const SANDBOX_MARKER_VAR = "SANDBOX_AGENT_RX_SANDBOX";

/** How long the processes of a stopped sandbox are hunted (each found one is SIGKILLed at once). */
const HUNT_MS = 3000;
const HUNT_POLL_MS = 50;

/** A fresh marker value: unique per sandbox, no spaces or newlines (the watchdog reads it from a line). */
export function newSandboxMarker(): string {
  return `${process.pid}-${randomUUID()}`;
}

/** One process, identified by pid and start time together: a pid alone may be reused. */
export interface ProcessRef {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot). */
  start: string;
}

export interface ProcEntry extends ProcessRef {
  ppid: number;
  zombie: boolean;
}

/** A process's parent, zombie state and start time from /proc/<pid>/stat; undefined once it is gone. */
export function readEntry(pid: number): ProcEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses; the fields after it do not.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pid, ppid: Number(fields[1]), zombie: fields[0] === "Z", start: fields[19] ?? "" };
}

function hasMarker(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry);
  } catch {
    // Gone, or not ours to read (another user's): not this sandbox's.
    return false;
  }
}

/**
 * The live (non-zombie) processes of the sandbox marked `marker`: those that carry the marker and
 * every descendant of `roots` (and of those). This process is never included. Null without /proc.
 */
export function sandboxProcesses(marker: string, roots: readonly number[] = []): ProcessRef[] | null {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  const entries = new Map<number, ProcEntry>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readEntry(Number(name));
    if (entry) entries.set(entry.pid, entry);
  }
  const wanted = `${SANDBOX_MARKER_VAR}=${marker}`;
  const found = new Set<number>(roots.filter((pid) => entries.has(pid)));
  for (const entry of entries.values()) if (hasMarker(entry.pid, wanted)) found.add(entry.pid);
  // Descendants by ppid, to a fixed point (a child may be listed before its parent).
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of entries.values()) {
      if (!found.has(entry.pid) && found.has(entry.ppid)) {
        found.add(entry.pid);
        grew = true;
      }
    }
  }
  found.delete(process.pid);
  const live: ProcessRef[] = [];
  for (const pid of found) {
    const entry = entries.get(pid);
    if (entry && !entry.zombie) live.push({ pid, start: entry.start });
  }
  return live;
}

/** Whether `ref` is still that very process, alive (not a zombie, not a reused pid). */
function stillRunning(ref: ProcessRef): boolean {
  const entry = readEntry(ref.pid);
  return entry !== undefined && !entry.zombie && entry.start === ref.start;
}

/**
 * SIGKILLs the processes of the sandbox until none is left: `known` (read before its server was
 * stopped, so processes that cleared their environment are among them), then whatever carries the
 * marker or descends from those, re-read until a pass finds nothing (a process may fork while we
 * look). Bounded by HUNT_MS. Returns what still runs then (nothing, normally).
 */
export async function killSandboxProcesses(marker: string, known: readonly ProcessRef[]): Promise<ProcessRef[]> {
  const until = Date.now() + HUNT_MS;
  let targets = known.filter(stillRunning);
  for (;;) {
    const fresh = sandboxProcesses(marker, targets.map((ref) => ref.pid)) ?? [];
    const byPid = new Map([...targets, ...fresh].map((ref) => [ref.pid, ref]));
    targets = [...byPid.values()].filter(stillRunning);
    if (targets.length === 0 || Date.now() > until) return targets;
    for (const ref of targets) signal(ref.pid, "SIGKILL");
    await sleep(HUNT_POLL_MS);
  }
}

/**
 * Stops a sandbox completely: its server and process group (gracefully, see stopServerProcess),
 * then every other process it started, found by its tree (read first) and its marker.
 */
export async function stopSandbox(server: ServerProcess, marker: string): Promise<void> {
  const pid = server.child.pid;
  const tree = pid === undefined ? [] : (sandboxProcesses(marker, [pid]) ?? []);
  await stopServerProcess(server);
  await killSandboxProcesses(marker, tree.filter((ref) => ref.pid !== pid));
}
