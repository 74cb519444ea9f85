// Servers must not outlive this process, however it ends. `exit` is handled in-process; signals and
// SIGKILL are not catchable (or are the user's to handle), so a tiny detached watchdog process
// holds the read end of a pipe from us: when we die the pipe closes, and it kills the process groups
// we registered (SIGTERM, then SIGKILL) and deletes their temporary dirs. It exits on its own once
// nothing is registered.
import { spawn, type ChildProcess } from "node:child_process";
import { signal } from "./process-group.js";

const GRACE_MS = 1500;

// Runs as `node -e`: reads "+<pgid> <dir>" / "-<pgid>" lines; on end of input or a changed parent, reaps.
const WATCHDOG_SOURCE = `
const { rmSync } = require("node:fs");
const parent = Number(process.argv[1]);
const groups = new Map();
let buffer = "";
let reaping = false;
const killAll = (sig) => { for (const g of groups.keys()) { try { process.kill(-g, sig); } catch {} } };
const removeDirs = () => {
  for (const dir of groups.values()) { try { if (dir) rmSync(dir, { recursive: true, force: true }); } catch {} }
};
const reap = () => {
  if (reaping) return;
  reaping = true;
  if (groups.size === 0) process.exit(0);
  killAll("SIGCONT");
  killAll("SIGTERM");
  setTimeout(() => { killAll("SIGKILL"); removeDirs(); process.exit(0); }, ${GRACE_MS});
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
    const space = line.indexOf(" ");
    const pgid = Number(line.slice(1, space > 0 ? space : undefined));
    if (!(pgid > 1)) continue;
    if (line[0] === "+") groups.set(pgid, space > 0 ? line.slice(space + 1) : "");
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
const groups = new Set<number>();
let exitHook = false;

/**
 * Kills `pgid` (a server's process group) when this process ends, and then deletes `dir` (its
 * temporary dirs; no newline in it); call `unwatch` once it is stopped.
 */
export function watch(pgid: number, dir?: string): void {
  groups.add(pgid);
  installExitHook();
  (watcher ??= startWatcher()).write(`+${pgid}${dir && !dir.includes("\n") ? ` ${dir}` : ""}\n`);
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
    for (const pgid of groups) {
      signal(-pgid, "SIGCONT");
      signal(-pgid, "SIGTERM");
    }
  });
}
