// A throwaway PostgreSQL cluster for the postgresStore suites: `initdb` into a temp dir, the server
// on a free loopback port, stopped by pid. The server refuses to run as root, so under root the data
// dir is chowned to the `postgres` user and both programs run with its uid/gid (node's spawn does
// the switch; no su/sudo needed). Binaries: $PG_BIN, else the newest /usr/lib/postgresql/<v>/bin
// (Debian's `postgresql` package, .ci/system/postgres.sh).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./ports.js";
import type { SystemComponent } from "./system-component.js";

/** The directory holding initdb and postgres, or undefined. */
export function postgresBin(): string | undefined {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv) return existsSync(join(fromEnv, "initdb")) ? fromEnv : undefined;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

/** uid/gid of the `postgres` user when running as root (the server refuses root), else undefined. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const out = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (out.status !== 0 || gid.status !== 0) throw new Error("running as root and there is no `postgres` user");
  return { uid: Number(out.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export const POSTGRES: SystemComponent = {
  name: "postgresql",
  available: () => {
    if (!postgresBin()) return false;
    if (process.getuid?.() !== 0) return true;
    return spawnSync("id", ["-u", "postgres"]).status === 0;
  },
  howToGet: "apt-get install postgresql (.ci/system/postgres.sh), or set PG_BIN to a directory with initdb and postgres",
};

export interface PostgresCluster {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres (password auth over TCP). */
  readonly connectionString: string;
  readonly password: string;
  readonly port: number;
  /** Pid of the postgres server process (0 once stopped). */
  readonly pid: number;
  /** A new pool on the cluster (closed by stop()). */
  pool(max?: number): pg.Pool;
  /** Stops the server (fast shutdown, by pid) and deletes the data dir. Idempotent. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;

interface ProcessRegistry {
  registerProcess(pid: number): void;
  unregisterProcess(pid: number): void;
}
// The process registry (plain JavaScript, shared with jest's global teardown, which kills what a
// failed run left); a non-literal specifier keeps the compiler from asking for its types.
const registrySpecifier: string = "./process-registry.js";
const loadRegistry = (): Promise<ProcessRegistry> => import(registrySpecifier) as Promise<ProcessRegistry>;

/** initdb + postgres on a free loopback port; resolves once it accepts connections. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error(`postgresql is missing (get it: ${POSTGRES.howToGet})`);
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "sarx-pg-"));
  const data = join(dir, "data");
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  writeFileSync(join(dir, "pwfile"), `${password}\n`);
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chownSync(join(dir, "pwfile"), user.uid, user.gid);
  }
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--pwfile", join(dir, "pwfile"), "--auth-host=scram-sha-256",
      "--auth-local=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    { ...as, encoding: "utf8", cwd: dir },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr}`);
  }
  const port = await freePort();
  // fsync off: a throwaway cluster; the suites test the store's logic, not the disk.
  const child: ChildProcess = spawn(
    join(bin, "postgres"),
    ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
      "-c", "max_connections=200", "-c", "synchronous_commit=off"],
    { ...as, cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-8000);
    if (process.env.PG_CLUSTER_LOG) appendFileSync(process.env.PG_CLUSTER_LOG, chunk);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const registry = await loadRegistry();
  if (child.pid !== undefined) registry.registerProcess(child.pid);
  const connectionString = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const pools: pg.Pool[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(child.pid, "SIGINT"); // fast shutdown
      const bound = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
      await Promise.race([exited, bound]);
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, "SIGKILL");
      await exited;
    }
    if (child.pid !== undefined) registry.unregisterProcess(child.pid);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`postgres exited at start: ${log}`);
    }
    const probe = new pg.Client({ connectionString });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      await probe.query("SELECT 1");
      await probe.end();
      break;
    } catch {
      await probe.end().catch(() => undefined);
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`postgres did not accept connections within ${START_TIMEOUT_MS} ms: ${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    connectionString,
    password,
    port,
    get pid() {
      return stopped ? 0 : (child.pid ?? 0);
    },
    pool(max = 10) {
      const pool = new pg.Pool({ connectionString, max });
      pool.on("error", () => undefined);
      pools.push(pool);
      return pool;
    },
    stop,
  };
}
