// Prompt ordering on a server without a response echo: `node --import tsx bench/prompt-order.ts`.
// The v2 contract server (in process) writes 50 updates of each turn on the stream and then answers
// the prompt's POST; a turn resolved early when `prompt()` returned before all 50 had reached the
// client's event stream. Each client runs the turns idle, then with CPU hogs (child processes that
// spin) competing for the cores.
//
// Environment:
//   ORDER_TURNS=500   turns per client and load
//   ORDER_HOGS=4      CPU hogs in the loaded runs (0: idle runs only)
//   ORDER_CLIENTS=AcpHttpClient,SandboxAgentClient
//   ORDER_WRITER_DELAY_MS=2   how long the server's stream writer lags its POST answers
// Also scenario 10 of `npm run bench` (BENCH_ONLY=10).
import { spawn, type ChildProcess } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { runBurstTurns, startBurstServer, UPDATES_PER_TURN, type TurnClient } from "../spec/support/burst-turns.js";

function intEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}

const TURNS = intEnv("ORDER_TURNS", 500) || 500;
const HOGS = intEnv("ORDER_HOGS", 4);
const WRITER_DELAY_MS = intEnv("ORDER_WRITER_DELAY_MS", 2);
const load1 = (): string => (loadavg()[0] ?? 0).toFixed(2);
const CLIENTS = (process.env.ORDER_CLIENTS ?? "AcpHttpClient,SandboxAgentClient").split(",").map((s) => s.trim()) as TurnClient[];

/** `count` processes that spin until killed (each by its own pid at the end). */
function startHogs(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
}

async function stopHogs(hogs: ChildProcess[]): Promise<void> {
  await Promise.all(
    hogs.map(
      (hog) =>
        new Promise<void>((resolve) => {
          if (hog.exitCode !== null || hog.signalCode !== null) return resolve();
          hog.once("exit", () => resolve());
          hog.kill("SIGKILL");
        }),
    ),
  );
}

export async function promptOrder(log: (line: string) => void = console.log): Promise<string> {
  const rows: string[] = [];
  log(`prompt ordering: ${TURNS} turns of ${UPDATES_PER_TURN} updates, stream writer ${WRITER_DELAY_MS} ms behind the answers, ${cpus().length} cores, load ${load1()}`);
  for (const hogs of HOGS > 0 ? [0, HOGS] : [0]) {
    const running = startHogs(hogs);
    try {
      for (const kind of CLIENTS) {
        const server = await startBurstServer(WRITER_DELAY_MS);
        try {
          const load = load1();
          const tally = await runBurstTurns(server.baseUrl, kind, TURNS);
          const worst = tally.early === 0 ? "–" : `${tally.fewestDelivered} of ${UPDATES_PER_TURN}`;
          const perTurn = (tally.ms / tally.turns).toFixed(1);
          const row = `| ${kind} | ${hogs} | ${load} | ${tally.early} / ${tally.turns} | ${worst} | ${perTurn} |`;
          log(row);
          rows.push(row);
        } finally {
          await server.stop();
        }
      }
    } finally {
      await stopHogs(running);
    }
  }
  return [
    "| client | CPU hogs | load (1 min) at start | early resolutions | fewest updates delivered at resolution | ms / turn |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  promptOrder()
    .then((table) => console.log(`\n${table}`))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
