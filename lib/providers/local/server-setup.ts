// What a local sandbox-agent server is started with: its binary, arguments, throwaway dirs and
// environment. Server facts (0.4.2): it runs `$XDG_DATA_HOME/sandbox-agent/bin/agent_processes/
// mock-acp` for `?agent=mock` but never creates that file itself, and it keeps its state and
// (unless SANDBOX_AGENT_LOG_STDOUT is set) its logs under `$XDG_DATA_HOME/sandbox-agent/`.
// The demo agent ships with the package so that a first turn needs no API key and no network: a
// scripted ACP agent (demo-agent.mjs, emitted next to this module by the build) that streams a plan,
// a thought, tool calls, a permission request and a markdown answer, without any model. (No module
// is named demo-agent.ts: a resolver that tries .mjs before .ts would load the script instead.)
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Path of the demo agent, an executable ACP agent script. Install it as the local server's `mock`
 * agent and drive it with `agent: "mock"`:
 *
 * ```ts
 * const client = await SandboxAgentClient.start({ sandbox: local({ mockAgent: demoAgent }), agent: "mock" });
 * ```
 *
 * It reacts to two words in a prompt: `quick` (no pauses between updates) and `fail` (the turn
 * fails with a JSON-RPC error).
 */
export const demoAgent: string = fileURLToPath(new URL("./demo-agent.mjs", import.meta.url));

/** The server's CORS settings (`local({ cors })`), for a browser page on another origin. */
export interface CorsOptions {
  /** Each becomes one `--cors-allow-origin`. */
  origins: string[];
  /** Each becomes one `--cors-allow-method`; the server defaults to `*`. */
  methods?: string[];
  /** Each becomes one `--cors-allow-header`; the server defaults to `*`. */
  headers?: string[];
  /** Adds `--cors-allow-credentials`. */
  credentials?: boolean;
}

const binaryName = process.platform === "win32" ? "sandbox-agent.exe" : "sandbox-agent";

/** The binary of the installed `@sandbox-agent/cli` platform package, the way its own launcher finds it. */
export function sandboxAgentBinary(): string {
  const platformPackage = `@sandbox-agent/cli-${process.platform}-${process.arch}/package.json`;
  const fromHere = createRequire(import.meta.url);
  let pkgJson: string;
  try {
    pkgJson = fromHere.resolve(platformPackage);
  } catch {
    // Not hoisted: the platform package sits under the cli package itself.
    pkgJson = createRequire(fromHere.resolve("@sandbox-agent/cli/package.json")).resolve(platformPackage);
  }
  return join(dirname(pkgJson), "bin", binaryName);
}

/**
 * The binary to run: `explicit`, else `$SANDBOX_AGENT_BIN`, else the pinned npm package's.
 * Otherwise the places looked at, when none of them is executable.
 */
export function resolveBinary(explicit: string | undefined): { path: string } | { tried: string[] } {
  const tried: string[] = [];
  const candidates = explicit !== undefined ? [explicit] : [process.env.SANDBOX_AGENT_BIN, packagedBinary()];
  for (const candidate of candidates) {
    if (!candidate) continue;
    const path = resolve(candidate);
    tried.push(path);
    if (isExecutable(path)) return { path };
  }
  if (tried.length === 0) tried.push("@sandbox-agent/cli (not installed)");
  return { tried };
}

function packagedBinary(): string | undefined {
  try {
    return sandboxAgentBinary();
  } catch {
    return undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return existsSync(path);
  } catch {
    return false;
  }
}

/** Makes `script` the `mock` agent of a server using `dataHome` (the server reads it at every agent spawn). */
export function installMockAgent(dataHome: string, script: string): string {
  const dir = join(dataHome, "sandbox-agent", "bin", "agent_processes");
  mkdirSync(dir, { recursive: true });
  const target = join(dir, "mock-acp");
  copyFileSync(script, target);
  chmodSync(target, 0o755);
  return target;
}

/** The server's arguments apart from `-p <port>`. */
export function serverArgs(options: { token?: string | undefined; cors?: CorsOptions | undefined }): string[] {
  const args = ["server", "--no-telemetry", "-H", "127.0.0.1"];
  // `--token=<value>`: a token that starts with "-" would otherwise be read as a flag.
  args.push(options.token === undefined ? "--no-token" : `--token=${options.token}`);
  const cors = options.cors;
  if (cors) {
    // The server defaults methods and headers to `*`, which its CORS layer refuses to combine with
    // credentials: it panics at startup. Say so before spawning rather than after.
    if (cors.credentials && !(cors.methods?.length && cors.headers?.length)) {
      throw new Error(
        "cors.credentials needs explicit cors.methods and cors.headers (the server rejects `*` with credentials)",
      );
    }
    for (const origin of cors.origins) args.push("--cors-allow-origin", origin);
    for (const method of cors.methods ?? []) args.push("--cors-allow-method", method);
    for (const header of cors.headers ?? []) args.push("--cors-allow-header", header);
    if (cors.credentials) args.push("--cors-allow-credentials");
  }
  return args;
}

export interface ServerDirs {
  /** The temporary dir holding the others; delete it when done. */
  readonly root: string;
  /** XDG_DATA_HOME of the server. */
  readonly dataHome: string;
  /** HOME of the server. */
  readonly home: string;
}

/** Creates the throwaway dirs of one server, with `agentScript` (when given) as its `mock` agent. */
export function createServerDirs(prefix: string, agentScript: string | undefined): ServerDirs {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dirs = { root, dataHome: join(root, "data"), home: join(root, "home") };
  try {
    mkdirSync(dirs.dataHome);
    mkdirSync(dirs.home);
    if (agentScript !== undefined) installMockAgent(dirs.dataHome, agentScript);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return dirs;
}

/** The server's environment: ours, its dirs, then `extra` (where `undefined` removes a variable). */
export function serverEnv(
  dirs: ServerDirs,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  // A plain record, not NodeJS.ProcessEnv: the emitted declarations must not need Node's types.
  const env: Record<string, string | undefined> = {
    ...process.env,
    // Agent scripts start with `#!/usr/bin/env node`: let them find the node running us.
    PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter),
    XDG_DATA_HOME: dirs.dataHome,
    HOME: dirs.home,
  };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}
