// A PostgreSQL cluster for a try-out, gone when it stops: `initdb` into a temporary folder and the
// server on a free loopback port, nothing installed or left behind. It needs Debian's (or any)
// `postgresql` package for the programs, or PG_BIN naming their folder. PostgreSQL refuses to run
// as root: under root the folder is handed to the `postgres` user and both programs run as it.
import { spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust on loopback: nobody else can reach it). */
  readonly connectionString: string;
  /** Stops the server (fast shutdown) and deletes its folder. */
  stop(): Promise<void>;
}

function binaries(): string {
  const root = "/usr/lib/postgresql";
  const newest = existsSync(root)
    ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))[0]
    : undefined;
  const bin = process.env.PG_BIN ?? (newest ? join(root, newest, "bin") : "");
  if (!existsSync(join(bin, "initdb"))) {
    throw new Error("no PostgreSQL programs found: install `postgresql` (apt-get install postgresql) or set PG_BIN");
  }
  return bin;
}

function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const [uid, gid] = [id("-u"), id("-g")];
  if (uid.status !== 0) throw new Error("running as root, and there is no `postgres` user to run PostgreSQL as");
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = binaries();
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), "workers-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const as = { ...user, cwd: dir };
  const data = join(dir, "data");
  const init = spawnSync(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync"], {
    ...as,
    encoding: "utf8",
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const server = spawn(
    join(bin, "postgres"),
    ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
    { ...as, stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGINT");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const connectionString = `postgres://postgres@127.0.0.1:${port}/postgres`;
  for (const deadline = Date.now() + 30_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const probe = new pg.Client({ connectionString });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      await probe.end();
      return { connectionString, stop };
    } catch (error) {
      await probe.end().catch(() => undefined);
      if (server.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}`);
      }
    }
  }
}
