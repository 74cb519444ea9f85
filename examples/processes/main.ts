// The process API: run a command, follow a process's log, drive a terminal; `--measure` times them.
//
//   node --import tsx examples/processes/main.ts --url http://127.0.0.1:2468 [--token T] [--measure]
//
// Node 20 has no WebSocket of its own: the `ws` package is passed in (browsers and Node >= 22 need nothing).
import { parseArgs } from "node:util";
import { lastValueFrom, takeWhile, tap } from "rxjs";
import WebSocket from "ws";
import { SandboxAgentClient } from "sandbox-agent-rx";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:2468" },
    token: { type: "string" },
    measure: { type: "boolean", default: false },
  },
});

// The process API needs no agent connection: `autoConnect: false` leaves the agent alone.
const client = new SandboxAgentClient({
  baseUrl: values.url,
  token: values.token,
  autoConnect: false,
  WebSocket,
});
const { processes } = client;

// 1. Run to completion: a non-zero exit is a result, not an error.
const run = await processes.run({ command: "sh", args: ["-c", "uname -s; exit 3"] });
console.log(`run: exit ${run.exitCode}, stdout ${JSON.stringify(run.stdout)}`);

// 2. A long-lived process and its log, followed until it exits.
const build = await processes.spawn({ command: "sh", args: ["-c", "for i in 1 2 3; do echo step $i; sleep 0.2; done"] });
const printed = processes.logs$(build.id).pipe(tap((entry) => process.stdout.write(`log ${entry.stream}: ${entry.text}`)));
await lastValueFrom(printed);
console.log(`status: ${(await processes.get(build.id)).status}`);

// 3. A terminal: output is bytes, input is text or bytes; closing it would leave the shell running.
const shell = await processes.spawn({ command: "bash", args: ["--norc"], tty: true, interactive: true });
const terminal = processes.terminal(shell.id, { cols: 100, rows: 30 });
let screen = "";
terminal.output$.subscribe((bytes) => (screen += Buffer.from(bytes).toString("utf8")));
await terminal.ready;
terminal.send("stty size; exit 7\n");
console.log(`terminal exit: ${JSON.stringify(await terminal.exit)}; saw size: ${screen.includes("30 100")}`);

if (values.measure) await measure();

async function measure(): Promise<void> {
  // Round trip: one keystroke to a tty `cat`; the PTY's echo comes back as output.
  const cat = await processes.spawn({ command: "cat", tty: true, interactive: true });
  const echo = processes.terminal(cat.id);
  let seen = "";
  echo.output$.subscribe((bytes) => (seen += Buffer.from(bytes).toString("latin1")));
  await echo.ready;
  const times: number[] = [];
  for (let i = 0; i < 100; i++) {
    const key = String.fromCharCode(97 + (i % 26));
    const before = seen.length;
    const start = performance.now();
    echo.send(key);
    while (!seen.slice(before).includes(key)) await new Promise((resolve) => setImmediate(resolve));
    times.push(performance.now() - start);
  }
  await processes.kill(cat.id);
  times.sort((a, b) => a - b);
  const pick = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(2);
  console.log(`terminal echo round trip over 100: p50 ${pick(0.5)} ms, p95 ${pick(0.95)} ms, max ${pick(1)} ms`);

  // Throughput: 8 MB of output followed live with logs$, then the same log replayed after exit.
  const bytes = 8_000_000;
  const writer = await processes.spawn({ command: "sh", args: ["-c", `head -c ${bytes} /dev/zero | tr '\\0' a`] });
  for (const label of ["live", "replay"]) {
    let received = 0;
    let entries = 0;
    const start = performance.now();
    await lastValueFrom(
      processes.logs$(writer.id).pipe(
        tap((entry) => ((received += entry.data.length), entries++)),
        takeWhile(() => received < bytes),
      ),
      { defaultValue: undefined },
    );
    const seconds = (performance.now() - start) / 1000;
    const rate = `${(received / 1e6 / seconds).toFixed(1)} MB/s, ${Math.round(entries / seconds)} entries/s`;
    console.log(`logs$ ${label}: ${rate} (${entries} entries)`);
  }
}
