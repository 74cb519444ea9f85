// Processes a sandbox starts that leave its server's process group, for the "destroying a sandbox
// leaves none of its processes" tests. Linux only (setsid, /proc).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxAgentClient } from "../../../lib/sandbox/index.js";

export interface Strays {
  /** A `tty: true` process: the server puts it in a session of its own (pgid = sid = pid). */
  tty: number;
  /** A child of the tty process that cleared its environment (`env -i`): found only through the tree. */
  clearedEnv: number;
  /** A process that called setsid() and was orphaned at once (`setsid -f`): found only by its environment. */
  orphan: number;
}

export const onLinux = process.platform === "linux";

/** Fields of /proc/<pid>/stat: parent, process group, session. */
export function procStat(pid: number): { ppid: number; pgrp: number; session: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]) };
}

/** The NAME=value entries of a process's initial environment. */
export function procEnviron(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").filter(Boolean);
}

async function pidFrom(file: string): Promise<number> {
  const until = Date.now() + 10_000;
  for (;;) {
    const text = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
    if (/^\d+$/.test(text)) return Number(text);
    if (Date.now() > until) throw new Error(`no pid in ${file} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts the three kinds of stray processes through the sandbox's process API; `dir` takes their pid files. */
export async function spawnStrays(client: SandboxAgentClient, dir: string): Promise<Strays> {
  const clearedFile = join(dir, "cleared-env.pid");
  const orphanFile = join(dir, "orphan.pid");
  // `; true` keeps the shell from exec'ing its last command: the env-less one stays its child.
  const tty = await client.processes.spawn({
    command: "sh",
    args: ["-c", `env -i sh -c 'echo $$ > ${clearedFile}; exec sleep 300'; true`],
    tty: true,
  });
  // No inherited pipes, or `run` would wait for the orphan's output to end.
  await client.processes.run({
    command: "sh",
    args: ["-c", `setsid -f sh -c 'echo $$ > ${orphanFile}; exec sleep 300' </dev/null >/dev/null 2>&1`],
  });
  if (typeof tty.pid !== "number") throw new Error("the tty process has no pid");
  return { tty: tty.pid, clearedEnv: await pidFrom(clearedFile), orphan: await pidFrom(orphanFile) };
}
