// A local() server dies with the process that started it, however that process ends.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { repoRoot } from "../examples/run-example.js";
import { eventually, isRunning, portIsFree } from "./support/processes.js";
import { onLinux, procStat } from "./support/stray-processes.js";

interface Started {
  pid: number;
  port: number;
  home: string;
  agentPids: number[];
  /** Processes outside the server's process group (tty, setsid'd, env cleared); with "strays" only. */
  strayPids: number[];
}

/** Runs the fixture parent until it has printed its sandbox; returns it and the parent process. */
async function startParent(mode: "wait" | "exit", strays = false): Promise<{ started: Started; child: ReturnType<typeof spawn>; closed: Promise<unknown> }> {
  const args = ["--import", "tsx", "spec/providers/support/local-parent.ts", mode, ...(strays ? ["strays"] : [])];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const closed = new Promise((resolve) => child.once("close", resolve));
  let out = "";
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const started = await new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the parent never reported its sandbox\n${out}\n${err}`)), 30_000);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line && out.includes("\n")) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as Started);
      }
    });
    child.once("close", () => reject(new Error(`the parent ended early\n${out}\n${err}`)));
  });
  return { started, child, closed };
}

async function expectGone(started: Started): Promise<void> {
  expect(started.pid).toBeGreaterThan(0);
  expect(started.agentPids.length).toBeGreaterThan(0);
  const pids = [started.pid, ...started.agentPids, ...started.strayPids];
  // "Within a few seconds": the watchdog sends SIGTERM at once and SIGKILL after 1.5 s.
  expect(await eventually(() => pids.every((pid) => !isRunning(pid)), 5000)).toBe(true);
  expect(await eventually(() => portIsFree(started.port), 2000)).toBe(true);
  // Its temporary dirs go too (the watchdog deletes them once the group is dead).
  expect(started.home).toContain("sandbox-agent-local-");
  expect(await eventually(() => !existsSync(started.home), 5000)).toBe(true);
}

describe("a local() server and its parent", () => {
  for (const sig of ["SIGKILL", "SIGTERM", "SIGINT"] as const) {
    it(`dies when the parent is killed with ${sig}`, async () => {
      const { started, child, closed } = await startParent("wait");
      expect(isRunning(started.pid)).toBe(true);
      child.kill(sig);
      await closed;
      await expectGone(started);
    }, 60_000);
  }

  const linuxOnly = onLinux ? it : it.skip;
  if (!onLinux) process.stderr.write("skipped: local() watchdog vs. processes outside the server's group: needs Linux (/proc, setsid)\n");

  linuxOnly("the watchdog also ends the processes that left the server's group when the parent is SIGKILLed", async () => {
    const { started, child, closed } = await startParent("wait", true);
    expect(started.strayPids).toHaveLength(3);
    expect(started.strayPids.every(isRunning)).toBe(true);
    for (const pid of started.strayPids) expect(procStat(pid).pgrp).not.toBe(started.pid);
    child.kill("SIGKILL");
    await closed;
    await expectGone(started);
  }, 60_000);

  it("dies when the parent calls process.exit()", async () => {
    const { started, closed } = await startParent("exit");
    await closed;
    await expectGone(started);
  }, 60_000);
});
