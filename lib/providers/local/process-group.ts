// A sandbox-agent server as a child process that leads its own process group, and how to stop it.
// Server facts (0.4.2): it does not signal its agents when it dies, so stopping it means stopping
// its whole group; agents it spawns stay in that group.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const POLL_MS = 50;
const STOP_GRACE_MS = 3000;
const AGENT_GRACE_MS = 1500;

// Awaited sleeps stay referenced on purpose: a script whose only pending work is this wait must not
// exit in the middle of it. Nothing here is left scheduled once the awaiting call returns.
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` settles within `ms`; the timer is cleared either way. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.finally(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Sends `sig` to a pid (a negative one: a process group), ignoring processes already gone. */
export function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // Already gone.
  }
}

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

/** Members of a process group other than its leader, from /proc; null where /proc is unavailable. */
export function groupMembers(pgid: number): ProcStat[] | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  const members: ProcStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || entry === String(pgid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // The command name (field 2) may contain spaces and parentheses; the fields after it do not.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pgrp = Number(fields[2]);
    if (pgrp === pgid) members.push({ pid: Number(entry), state: fields[0] ?? "", ppid: Number(fields[1]), pgrp });
  }
  return members;
}

/** One spawned server process, leader of its own process group. */
export interface ServerProcess {
  readonly child: ChildProcess;
  /** Resolves once the process has exited or could not be spawned. */
  readonly exited: Promise<void>;
  hasExited(): boolean;
  /** Set when the binary could not be spawned at all. */
  spawnError(): Error | undefined;
}

export interface SpawnServerOptions {
  binary: string;
  /** Arguments before `-p <port>`, see serverArgs(). */
  args: string[];
  port: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
}

export function spawnServer(options: SpawnServerOptions): ServerProcess {
  const child = spawn(options.binary, [...options.args, "-p", String(options.port)], {
    cwd: options.cwd,
    env: options.env,
    // Its own process group, so that stopping it reaches the agents the server spawns.
    detached: true,
    stdio: options.stdio,
  });
  const state: { exited: boolean; spawnError?: Error } = { exited: false };
  const exited = new Promise<void>((resolve) => {
    child.once("error", (error) => {
      state.spawnError = error;
      state.exited = true;
      resolve();
    });
    child.once("exit", () => {
      state.exited = true;
      resolve();
    });
  });
  return { child, exited, hasExited: () => state.exited, spawnError: () => state.spawnError };
}

/**
 * Stops a server process and everything in its process group: SIGTERM, then SIGKILL after a grace
 * period. Agents go first: the server reaps them, whereas agents that outlive it are re-parented to
 * pid 1, which in some containers never reaps, leaving zombies that still answer kill(pid, 0).
 */
export async function stopServerProcess(server: ServerProcess): Promise<void> {
  const { child } = server;
  const pid = child.pid;
  if (pid === undefined) return;
  const serverAlive = child.exitCode === null && child.signalCode === null;
  // A paused (SIGSTOPped) group would hold SIGTERM until continued.
  signal(-pid, "SIGCONT");

  const members = groupMembers(pid);
  if (members !== null && members.length > 0) {
    for (const member of members) signal(member.pid, "SIGTERM");
    const gone = (m: ProcStat): boolean => m.state === "Z" && m.ppid !== pid;
    const until = Date.now() + (serverAlive ? AGENT_GRACE_MS : POLL_MS * 4);
    let left = members;
    while (left.length > 0 && Date.now() < until) {
      await sleep(POLL_MS / 2);
      left = (groupMembers(pid) ?? []).filter((m) => !gone(m));
    }
    for (const member of left) signal(member.pid, "SIGKILL");
  }

  if (serverAlive) {
    signal(members === null ? -pid : pid, "SIGTERM");
    if (!(await settlesWithin(server.exited, STOP_GRACE_MS))) {
      signal(-pid, "SIGKILL");
      await server.exited;
    }
  }
  // Whatever is left in the group (e.g. agents of a server that was killed).
  signal(-pid, "SIGKILL");
}
