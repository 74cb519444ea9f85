// Docker Engine for the docker() suite and benchmark: the running daemon when there is one,
// otherwise our own `dockerd` (Debian's docker.io, as root, no registry, no bridge, no iptables) with
// its own data-root, exec-root, pidfile and socket, stopped by its pid at the end.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import type { SystemComponent } from "../../support/system-component.js";
import { onPath } from "../../support/system-component.js";

const DEFAULT_SOCKET = "/var/run/docker.sock";
const DOCKERD = "/usr/sbin/dockerd";

export const DOCKER: SystemComponent = {
  name: "docker",
  available: () =>
    Boolean(process.env.DOCKER_HOST) ||
    existsSync(DEFAULT_SOCKET) ||
    ((existsSync(DOCKERD) || onPath("dockerd")) && process.getuid?.() === 0),
  howToGet: "apt-get install docker.io and run as root (as .ci/system/docker.sh does)",
};

export interface DockerDaemon {
  readonly docker: Docker;
  /** Our own daemon's pid, or undefined when an existing one is used. */
  readonly pid: number | undefined;
  /** Removes the containers carrying `label` and stops our own daemon (by pid), if we started it. */
  stop(label?: string): Promise<void>;
}

interface Registry {
  registerProcess(pid: number): void;
  unregisterProcess(pid: number): void;
}
const registrySpecifier: string = "../../support/process-registry.js";

async function ping(docker: Docker): Promise<boolean> {
  try {
    await docker.ping();
    return true;
  } catch {
    return false;
  }
}

/** A reachable engine: an existing daemon, else one started here (resolves once it answers /_ping). */
export async function ensureDockerDaemon(timeoutMs = 60_000): Promise<DockerDaemon> {
  if (process.env.DOCKER_HOST || existsSync(DEFAULT_SOCKET)) {
    const docker = new Docker();
    if (await ping(docker)) return { docker, pid: undefined, stop: (label) => removeLabelled(docker, label) };
  }
  // Short paths: containerd's sockets live under the exec-root and unix socket paths are limited.
  const root = mkdtempSync(join(tmpdir(), "dkd-"));
  const socket = join(root, "docker.sock");
  const logFile = join(root, "dockerd.log");
  const out = openSync(logFile, "a");
  const child = spawn(
    existsSync(DOCKERD) ? DOCKERD : "dockerd",
    [
      "--storage-driver=vfs", "--iptables=false", "--bridge=none",
      `--data-root=${join(root, "data")}`, `--exec-root=${join(root, "x")}`,
      `--pidfile=${join(root, "dockerd.pid")}`, `--host=unix://${socket}`,
    ],
    { detached: true, stdio: ["ignore", out, out] },
  );
  closeSync(out);
  child.unref();
  const pid = child.pid;
  const registry = (await import(registrySpecifier)) as Registry;
  if (pid !== undefined) registry.registerProcess(pid);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()).once("error", () => resolve()));
  const docker = new Docker({ socketPath: socket });
  const deadline = Date.now() + timeoutMs;
  let up = false;
  while (!up && Date.now() < deadline && child.exitCode === null) {
    up = existsSync(socket) && (await ping(docker));
    if (!up) await new Promise((r) => setTimeout(r, 200));
  }
  const stop = async (label?: string): Promise<void> => {
    if (up) await removeLabelled(docker, label).catch(() => undefined);
    if (pid !== undefined) {
      signalQuietly(pid, "SIGTERM");
      const killed = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]);
      if (!killed) signalQuietly(-pid, "SIGKILL");
      signalQuietly(-pid, "SIGKILL");
      registry.unregisterProcess(pid);
    }
    unmountUnder(root);
    rmSync(root, { recursive: true, force: true });
  };
  if (!up) {
    const log = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-20).join("\n") : "";
    await stop();
    throw new Error(`dockerd did not come up within ${timeoutMs} ms\n${log}`);
  }
  return { docker, pid, stop };
}

async function removeLabelled(docker: Docker, label: string | undefined): Promise<void> {
  if (!label) return;
  const containers = await docker.listContainers({ all: true, filters: { label: [label] } });
  await Promise.all(containers.map((c) => docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined)));
}

function signalQuietly(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch {
    // Gone already.
  }
}

/** dockerd leaves its default netns mounted under the exec-root; the dir cannot be deleted before. */
function unmountUnder(root: string): void {
  let mounts: string[] = [];
  try {
    mounts = readFileSync("/proc/mounts", "utf8").split("\n").map((line) => line.split(" ")[1] ?? "");
  } catch {
    return;
  }
  for (const target of mounts.filter((m) => m.startsWith(`${root}/`)).reverse()) spawnSync("umount", ["-l", target], { stdio: "ignore" });
}
