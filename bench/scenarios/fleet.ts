// Scenario 15: the fleet. One 0.4.2 server (scripted agent), one PostgreSQL cluster, and 1, 2 or 4
// worker processes (bench/fleet-worker.ts), each a SandboxAgentClient on postgresStore driving 8
// sessions that prompt `chunks N` in a loop for a fixed time. Stored updates per second, the store's
// lag (an event's arrival to the write that stored it), and the CPU each party used meanwhile (the
// server with its agent processes, PostgreSQL with its backends, the workers), read from /proc, to
// tell which one saturates the machine's cores. CPU per 1,000 stored events does not depend on what
// else the machine runs: from it, the rate at which each party would use one core.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const WORKER = fileURLToPath(new URL("../fleet-worker.ts", import.meta.url));
const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface FleetResult {
  workers: number;
  sessions: number;
  turns: number;
  delivered: number;
  stored: number;
  storedPerSecond: number;
  lagP50: number;
  lagP95: number;
  /** Tail after the turns stopped until every delivered update was stored. */
  tailMs: number;
  wallMs: number;
  /** CPU used during the run, in cores (CPU ms ÷ wall ms). */
  cores: { server: number; postgres: number; workers: number };
  /**
   * CPU ms each party used per 1,000 events stored, drive and tail together: what the work costs,
   * whatever else the machine runs (a loaded machine stretches the wall time, not the CPU time).
   */
  cpuMsPer1000: { server: number; postgres: number; workers: number };
}

interface Stat {
  pid: number;
  ppid: number;
  pgid: number;
  cpuMs: number;
}

function stats(): Stat[] {
  const out: Stat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      // After the command: state(0) ppid(1) pgrp(2) ... utime(11) stime(12) cutime(13) cstime(14)
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      out.push({ pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]), cpuMs: ticks * TICK_MS });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU ms of the server's process group and of PostgreSQL (its postmaster and children). */
function partyCpu(serverPid: number, postgresPid: number): { server: number; postgres: number } {
  let server = 0;
  let postgres = 0;
  for (const stat of stats()) {
    if (stat.pgid === serverPid) server += stat.cpuMs;
    if (stat.pid === postgresPid || stat.ppid === postgresPid) postgres += stat.cpuMs;
  }
  return { server, postgres };
}

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  result: Promise<Record<string, number>>;
}

function startWorker(args: string[]): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let readyResolve!: () => void;
  const ready = new Promise<void>((resolve) => (readyResolve = resolve));
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes("ready\n")) readyResolve();
  });
  child.stderr!.on("data", (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
  const result = new Promise<Record<string, number>>((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line.startsWith("{")) return reject(new Error(`fleet worker exited ${code}: ${err}`));
      resolve(JSON.parse(line) as Record<string, number>);
    });
  });
  return { child, ready: Promise.race([ready, result.then(() => undefined)]), result };
}

export async function fleet(
  server: { baseUrl: string; pid: number },
  cluster: { connectionString: string; pid: number },
  workers: number,
  options: { sessions: number; durationMs: number; chunks: number; schema: string },
): Promise<FleetResult> {
  const list = Array.from({ length: workers }, () =>
    startWorker([server.baseUrl, cluster.connectionString, options.schema, String(options.sessions), String(options.durationMs), String(options.chunks)]),
  );
  await Promise.all(list.map((worker) => worker.ready));
  const before = partyCpu(server.pid, cluster.pid);
  const started = performance.now();
  for (const worker of list) worker.child.stdin!.write("go\n");
  const results = await Promise.all(list.map((worker) => worker.result));
  const after = partyCpu(server.pid, cluster.pid);
  const wallMs = performance.now() - started;
  const sum = (key: string) => results.reduce((total, r) => total + (r[key] ?? 0), 0);
  const max = (key: string) => Math.max(...results.map((r) => r[key] ?? 0));
  const drivenMs = max("drivenMs");
  const stored = sum("stored");
  const cpuMs = {
    server: after.server - before.server,
    postgres: after.postgres - before.postgres,
    workers: sum("cpuMs"),
  };
  return {
    workers,
    sessions: workers * options.sessions,
    turns: sum("turns"),
    delivered: sum("delivered"),
    stored,
    storedPerSecond: sum("storedInTime") / (drivenMs / 1000),
    lagP50: Math.max(...results.map((r) => r.lagP50 ?? 0)),
    lagP95: Math.max(...results.map((r) => r.lagP95 ?? 0)),
    tailMs: max("tailMs"),
    wallMs,
    cores: { server: cpuMs.server / wallMs, postgres: cpuMs.postgres / wallMs, workers: cpuMs.workers / wallMs },
    cpuMsPer1000: {
      server: (1000 * cpuMs.server) / stored,
      postgres: (1000 * cpuMs.postgres) / stored,
      workers: (1000 * cpuMs.workers) / stored,
    },
  };
}
