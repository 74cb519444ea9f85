// A runnable sandbox-agent image without a registry: the pinned static binary in an otherwise empty
// root filesystem, imported with the Engine's image import (what `docker import` does).
import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import type Dockerode from "dockerode";
import { providerError } from "../../sandbox/kit.js";
import { resolveBinary } from "../local/server-setup.js";
import { tarArchive, type TarEntry } from "./tar.js";
import { dockerClient } from "./client.js";
import { IMAGE_LAYOUT } from "../defaults.js";

/** The options of `buildSandboxImage()`. */
export interface BuildImageOptions {
  /** Image name and tag, e.g. `sandbox-agent-rx/sandbox-agent:0.4.2`. */
  tag: string;
  /** The engine; default a client for `DOCKER_HOST` or the default socket. */
  docker?: Dockerode;
  /** A static Linux sandbox-agent binary; default the pinned `@sandbox-agent/cli` package's. */
  binaryPath?: string;
  /** More files for the image, e.g. an agent installed as `/data/sandbox-agent/bin/agent_processes/mock-acp`. */
  files?: { path: string; content: Uint8Array | string; mode?: number }[];
  /** Symlinks to add, e.g. `{ path: "/lib64", target: "usr/lib64" }` for a bind-mounted `/usr`. */
  symlinks?: { path: string; target: string }[];
}

/** Imports the image and resolves with its tag once the engine has it. */
export async function buildSandboxImage(options: BuildImageOptions): Promise<string> {
  const binary = resolveBinary(options.binaryPath);
  if (!("path" in binary)) {
    const detail = `no sandbox-agent binary (tried ${binary.tried.join(", ")})`;
    throw providerError("docker", "buildImage", detail);
  }
  const passwd = `root:x:0:0:root:${IMAGE_LAYOUT.home}:/bin/sandbox-agent\n`;
  const entries: TarEntry[] = [
    { type: "dir", path: "bin" },
    { type: "file", path: IMAGE_LAYOUT.binary, content: readFileSync(binary.path), mode: 0o755 },
    { type: "dir", path: "tmp", mode: 0o1777 },
    { type: "dir", path: "home" },
    { type: "dir", path: IMAGE_LAYOUT.home },
    { type: "dir", path: IMAGE_LAYOUT.dataHome },
    { type: "dir", path: "etc" },
    { type: "file", path: "etc/passwd", content: Buffer.from(passwd) },
  ];
  for (const link of options.symlinks ?? []) entries.push({ type: "symlink", path: link.path, target: link.target });
  for (const file of options.files ?? []) {
    const have = (dir: string): boolean => entries.some((e) => e.path.replace(/^\/+|\/+$/g, "") === dir);
    for (const dir of parents(file.path)) if (!have(dir)) entries.push({ type: "dir", path: dir });
    const content = typeof file.content === "string" ? Buffer.from(file.content) : file.content;
    entries.push({ type: "file", path: file.path, content, mode: file.mode ?? 0o644 });
  }
  const docker = options.docker ?? (await dockerClient());
  const [repo, tag] = splitTag(options.tag);
  try {
    const progress = await docker.importImage(Readable.from([tarArchive(entries)]), { repo, tag });
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(progress, (error: Error | null) => (error ? reject(error) : resolve())),
    );
  } catch (error) {
    const detail = `image import failed: ${(error as Error).message}`;
    throw providerError("docker", "buildImage", detail, { cause: error });
  }
  return options.tag;
}

function parents(path: string): string[] {
  const parts = path.replace(/^\/+/, "").split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

function splitTag(reference: string): [string, string] {
  const colon = reference.lastIndexOf(":");
  if (colon <= reference.lastIndexOf("/")) return [reference, "latest"];
  return [reference.slice(0, colon), reference.slice(colon + 1)];
}
