// Servers must not outlive this process, however it ends. `exit` is handled in-process; signals and
// SIGKILL are not catchable (or are the user's to handle), so a tiny detached watchdog process
// holds the read end of a pipe from us: when we die the pipe closes, and it kills the process groups
// we registered (SIGTERM, then SIGKILL) and every other process of those sandboxes (see
// process-tree.ts: found by their marker variable and, read before anything is killed, by the
// process tree), then deletes their temporary dirs. It exits on its own once nothing is registered.
import { spawn, type ChildProcess } from "node:child_process";
import { signal } from "./process-group.js";
import { SANDBOX_MARKER_VAR, sandboxProcesses } from "./process-tree.js";

const GRACE_MS = 1500;
/** How long, after the grace, the watchdog goes on finding and SIGKILLing a sandbox's processes. */
const HUNT_MS = 3000;

// Runs as `node -e`: reads "+<pgid> <marker> <dir>" / "-<pgid>" lines; on end of input or a changed
// parent, reaps. The /proc scan is process-tree.ts's sandboxProcesses() again, in plain JavaScript:
// this process runs no module of ours.
const WATCHDOG_SOURCE = `
const { readdirSync, readFileSync, rmSync } = require("node:fs");
const parent = Number(process.argv[1]);
const groups = new Map();
let buffer = "";
let reaping = false;
const send = (pid, sig) => { try { process.kill(pid, sig); } catch {} };
const killAll = (sig) => { for (const g of groups.keys()) send(-g, sig); };
const removeDirs = () => {
  for (const { dir } of groups.values()) { try { if (dir) rmSync(dir, { recursive: true, force: true }); } catch {} }
};
const entry = (pid) => {
  try {
    const stat = readFileSync("/proc/" + pid + "/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(f[1]), zombie: f[0] === "Z", start: f[19] };
  } catch { return undefined; }
};
const marked = (pid, wanted) => {
  try {
    return readFileSync("/proc/" + pid + "/environ", "latin1").split("\\0").includes(wanted);
  } catch { return false; }
};
const scan = (marker, roots) => {
  let names;
  try { names = readdirSync("/proc"); } catch { return []; }
  const all = new Map();
  for (const name of names) { if (/^\\d+$/.test(name)) { const e = entry(Number(name)); if (e) all.set(e.pid, e); } }
  const wanted = "${SANDBOX_MARKER_VAR}=" + marker;
  const found = new Set(roots.filter((pid) => all.has(pid)));
  for (const e of all.values()) if (marked(e.pid, wanted)) found.add(e.pid);
  for (let grew = true; grew; ) {
    grew = false;
    for (const e of all.values()) if (!found.has(e.pid) && found.has(e.ppid)) { found.add(e.pid); grew = true; }
  }
  found.delete(process.pid);
  return [...found].map((pid) => all.get(pid)).filter((e) => e && !e.zombie);
};
const running = (ref) => { const e = entry(ref.pid); return e !== undefined && !e.zombie && e.start === ref.start; };
const hunt = (known, until) => {
  const byPid = new Map(known.filter(running).map((ref) => [ref.pid, ref]));
  for (const { marker } of groups.values()) for (const ref of scan(marker, [...byPid.keys()])) byPid.set(ref.pid, ref);
  const left = [...byPid.values()].filter(running);
  if (left.length === 0 || Date.now() > until) { removeDirs(); process.exit(0); }
  for (const ref of left) send(ref.pid, "SIGKILL");
  setTimeout(() => hunt(left, until), 50);
};
const reap = () => {
  if (reaping) return;
  reaping = true;
  if (groups.size === 0) process.exit(0);
  // Read before anything dies: a process that cleared its environment is found only as a descendant.
  const known = [];
  for (const [g, { marker }] of groups) known.push(...scan(marker, [g]));
  killAll("SIGCONT");
  killAll("SIGTERM");
  for (const ref of known) send(ref.pid, "SIGTERM");
  setTimeout(() => { killAll("SIGKILL"); hunt(known, Date.now() + ${HUNT_MS}); }, ${GRACE_MS});
};
for (const s of ["SIGINT", "SIGHUP", "SIGPIPE"]) process.on(s, () => {});
process.on("SIGTERM", reap);
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let i;
  while ((i = buffer.indexOf("\\n")) >= 0) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    const [head, marker = "", ...dir] = line.split(" ");
    const pgid = Number(head.slice(1));
    if (!(pgid > 1)) continue;
    if (line[0] === "+") groups.set(pgid, { marker, dir: dir.join(" ") });
    else if (line[0] === "-") groups.delete(pgid);
  }
});
process.stdin.on("end", reap);
process.stdin.on("error", reap);
setInterval(() => { if (process.ppid !== parent) reap(); }, 1000);
`;

interface Watcher {
  child: ChildProcess;
  write(line: string): void;
}

let watcher: Watcher | undefined;
/** Watched process groups and the marker of their sandbox. */
const groups = new Map<number, string>();
let exitHook = false;

/**
 * Kills `pgid` (a server's process group) and every process marked with `marker` (see
 * process-tree.ts) when this process ends, and then deletes `dir` (its temporary dirs; no newline in
 * it); call `unwatch` once it is stopped.
 */
export function watch(pgid: number, marker: string, dir?: string): void {
  if (/\s/.test(marker) || marker === "") throw new TypeError("watch: the marker must be a non-empty word");
  groups.set(pgid, marker);
  installExitHook();
  (watcher ??= startWatcher()).write(`+${pgid} ${marker}${dir && !dir.includes("\n") ? ` ${dir}` : ""}\n`);
}

/** The group is gone: forget it; the watchdog exits when nothing is left to watch. */
export function unwatch(pgid: number): void {
  if (!groups.delete(pgid)) return;
  const current = watcher;
  if (!current) return;
  current.write(`-${pgid}\n`);
  if (groups.size === 0) {
    watcher = undefined;
    current.child.stdin?.end();
  }
}

/** Pid of the running watchdog, if any (for tests and diagnostics). */
export function watchdogPid(): number | undefined {
  return watcher?.child.pid;
}

function startWatcher(): Watcher {
  const child = spawn(process.execPath, ["-e", WATCHDOG_SOURCE, String(process.pid)], {
    // Its own group: a Ctrl-C meant for us must not kill it before it has done its job.
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
    env: {},
  });
  child.on("error", () => undefined);
  child.stdin?.on("error", () => undefined);
  // Neither the process nor the pipe may keep our event loop alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return { child, write: (line) => void child.stdin?.write(line) };
}

function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  // A normal exit (or process.exit()) can still act synchronously: don't wait for the watchdog.
  process.once("exit", () => {
    for (const [pgid, marker] of groups) {
      const others = sandboxProcesses(marker, [pgid]) ?? [];
      signal(-pgid, "SIGCONT");
      signal(-pgid, "SIGTERM");
      for (const ref of others) signal(ref.pid, "SIGTERM");
    }
  });
}
