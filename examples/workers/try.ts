// The workers example in one command, for a try-out on one machine: a throwaway PostgreSQL (unless
// DATABASE_URL names one), a local sandbox-agent server with the package's demo agent, the producer
// queuing a few tasks, and workers draining the queue until they go idle and exit.
//
//   npm run workers [-- --workers 2] [-- --kill-one]
//
// With --kill-one, the first worker is SIGKILLed as soon as it claims a session, as a crashed
// machine would be: its lease expires (--ttl-ms, 3 s here) and another worker runs that task again.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { demoAgent, local } from "sandbox-agent-rx/local";
import { startThrowawayPostgres } from "./throwaway-postgres.js";

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "2" },
    "kill-one": { type: "boolean", default: false },
    "ttl-ms": { type: "string", default: "3000" },
    task: { type: "string", multiple: true },
  },
});
const tasks = values.task ?? ["fix the build", "write the changelog", "update the docs", "add a test"];
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

const given = process.env.DATABASE_URL || undefined;
const postgres = given ? undefined : await startThrowawayPostgres();
const provider = local({ mockAgent: demoAgent });
const sandbox = await provider.create();
console.log(`server ${sandbox.baseUrl} (the demo agent as "mock"), PostgreSQL ${postgres ? "throwaway" : "from DATABASE_URL"}`);
// The connection string and the token reach the programs through their environment, never argv.
const env = {
  ...process.env,
  DATABASE_URL: given ?? postgres!.connectionString,
  ...(sandbox.token ? { SANDBOX_AGENT_TOKEN: sandbox.token } : {}),
};

/** Runs one of the example's programs, each output line prefixed with its name; resolves its exit code. */
function run(name: string, script: string, args: string[], onLine?: (line: string) => void) {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", here(script), "--url", sandbox.baseUrl, ...args], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  createInterface({ input: child.stdout! }).on("line", (line) => {
    console.log(`${name.padEnd(9)} ${line}`);
    onLine?.(line);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited };
}

let status = 1;
try {
  const producer = run("producer", "./producer.ts", tasks.flatMap((task) => ["--task", task]));
  if ((await producer.exited) !== 0) throw new Error("the producer failed");

  const exits: Array<Promise<number | null>> = [];
  let started = 0;
  const startWorker = () => {
    const name = `worker-${++started}`;
    const args = ["--name", name, "--ttl-ms", values["ttl-ms"], "--exit-when-idle"];
    let killed = false;
    const worker = run(name, "./worker.ts", args, (line) => {
      if (!values["kill-one"] || started > Number(values.workers) || name !== "worker-1" || killed) return;
      if (!line.startsWith("claimed ")) return;
      killed = true;
      worker.child.kill("SIGKILL");
      console.log(`try       SIGKILLed worker-1 mid-turn; its lease expires in ${values["ttl-ms"]} ms`);
      startWorker();
    });
    // A worker killed on purpose is not a failure.
    exits.push(worker.exited.then((code) => (killed ? 0 : code)));
  };
  for (let n = 0; n < Number(values.workers); n++) startWorker();
  // Workers exit once no open session is left; the list grows when a killed worker is replaced.
  for (let seen = 0; seen < exits.length; seen++) {
    const code = await exits[seen];
    if (code !== 0) throw new Error(`a worker exited with ${code}`);
  }
  console.log(`try       all ${tasks.length} tasks done; every worker went idle and exited`);
  status = 0;
} catch (error) {
  console.error(`try       ${(error as Error).message}`);
} finally {
  await provider.destroy(sandbox.id);
  await postgres?.stop();
}
process.exit(status);
