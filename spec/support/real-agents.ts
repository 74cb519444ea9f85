// The real agents users run behind sandbox-agent, Claude Code (`agent: "claude"`) and Codex
// (`agent: "codex"`), installed offline where the real 0.4.2 server expects installed agents, and
// pointed at the scripted model on loopback (spec/support/scripted-model.ts).
//
// Server facts this relies on (sandbox-agent 0.4.2, agent management): an agent counts as installed
// when its native binary `$XDG_DATA_HOME/sandbox-agent/bin/<agent>` and its ACP launcher
// `bin/agent_processes/<agent>-acp` both exist; the server runs the launcher with no arguments and
// its own environment. The packages come from spec/interop/{claude,codex}-install, installed once
// per machine into the cache (spec/support/interop-install.js), never from the root lockfile.
//
// Claude Code as root: the adapter turns on its permission bypass when IS_SANDBOX is set to anything,
// and Claude Code then refuses to run as root unless IS_SANDBOX is exactly "1"; so the environment
// says IS_SANDBOX=1. Codex reads its provider from `$CODEX_HOME/config.toml` (OPENAI_BASE_URL is not
// honoured) and needs `authenticate` with `openai-api-key` before `session/new`.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ensureInstalled, isInstalled, pinnedVersion } from "./interop-install.js";
import type { ScriptedModel } from "./scripted-model.js";
import { startSandboxAgent, type SandboxAgentServer, type StartSandboxAgentOptions } from "./sandbox-agent-server.js";

export type RealAgent = "claude" | "codex";

export const CLAUDE_ACP_PACKAGE = "@zed-industries/claude-agent-acp";
export const CODEX_ACP_PACKAGE = "@zed-industries/codex-acp";
export const CLAUDE_ACP_VERSION = pinnedVersion("claude", CLAUDE_ACP_PACKAGE) ?? "unknown";
export const CODEX_ACP_VERSION = pinnedVersion("codex", CODEX_ACP_PACKAGE) ?? "unknown";

/** Long enough for a first install from the registry (codex-acp brings a 233 MB binary). */
export const REAL_AGENT_INSTALL_TIMEOUT_MS = 5 * 60_000;

/** The API key the agents send; the scripted model accepts any. */
export const SCRIPTED_API_KEY = "sk-scripted-model-offline";

/**
 * The agents as a system component: their packages are pinned and installed on demand, so what is
 * needed is the npm registry the first time (or the cached install) and, for Codex, linux-x64.
 * (A `SystemComponent` of system-component.ts, which this module does not import: the demo uses it
 * outside jest.)
 */
export function realAgentComponent(agent: RealAgent): { name: string; available: () => boolean; howToGet: string } {
  return {
    name: agent === "claude" ? `claude-agent-acp ${CLAUDE_ACP_VERSION}` : `codex-acp ${CODEX_ACP_VERSION}`,
    // Jest's global setup installs them (always with CI=true); a failed install leaves this false.
    available: () =>
      (agent === "claude" || (process.platform === "linux" && process.arch === "x64")) && isInstalled(agent),
    howToGet: `node spec/support/interop-install.js ${agent} (needs the npm registry once)`,
  };
}

/** Paths inside an install, for the launchers. */
async function installedPaths(agent: RealAgent): Promise<{ launcher: string; native: string[] }> {
  const dir = await ensureInstalled(agent, { timeoutMs: REAL_AGENT_INSTALL_TIMEOUT_MS });
  // The packages' exports hide package.json from resolution; the install is flat, so join paths.
  const modules = join(dir, "node_modules");
  const paths = agent === "claude"
    ? { launcher: join(modules, CLAUDE_ACP_PACKAGE, "dist", "index.js"),
      native: [process.execPath, join(modules, "@anthropic-ai", "claude-agent-sdk", "cli.js")] }
    : { launcher: join(modules, `${CODEX_ACP_PACKAGE}-${process.platform}-${process.arch}`, "bin", "codex-acp"),
      native: [] };
  for (const file of [paths.launcher, ...paths.native.slice(1)]) {
    if (!existsSync(file)) throw new Error(`${file} is missing (a broken install: remove ${dir} to reinstall)`);
  }
  return paths;
}

function writeScript(path: string, lines: string[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${lines.join("\n")}\n`);
  chmodSync(path, 0o755);
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * Lays `agent` out in a server's data dir as the server's own installer would leave it: the native
 * binary and the ACP launcher. For Claude, `bin/claude` runs the Claude Code the adapter bundles, and
 * the launcher tells the adapter to use it; Codex's adapter embeds Codex, so `bin/codex` only says so.
 */
export async function installRealAgent(dataHome: string, agent: RealAgent): Promise<void> {
  const bin = join(dataHome, "sandbox-agent", "bin");
  const paths = await installedPaths(agent);
  const native = join(bin, agent);
  if (agent === "claude") {
    writeScript(native, [`exec ${paths.native.map(quote).join(" ")} "$@"`]);
    writeScript(join(bin, "agent_processes", "claude-acp"), [
      `CLAUDE_CODE_EXECUTABLE=${quote(native)} exec ${quote(process.execPath)} ${quote(paths.launcher)} "$@"`,
    ]);
  } else {
    writeScript(native, ["echo 'codex runs inside codex-acp (bin/agent_processes/codex-acp)' >&2", "exit 1"]);
    writeScript(join(bin, "agent_processes", "codex-acp"), [`exec ${quote(paths.launcher)} "$@"`]);
  }
}

/** `$CODEX_HOME/config.toml`: the scripted model as Codex's provider, no retries, nothing sent home. */
export function writeCodexHome(codexHome: string, model: ScriptedModel): void {
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      `model = "gpt-5-codex"`,
      `model_provider = "scripted"`,
      `approval_policy = "on-request"`,
      `[model_providers.scripted]`,
      `name = "Scripted model (offline)"`,
      `base_url = "${model.baseUrl}/v1"`,
      `env_key = "OPENAI_API_KEY"`,
      `wire_api = "responses"`,
      `request_max_retries = 0`,
      `stream_max_retries = 0`,
      `[analytics]`,
      `enabled = false`,
      `[otel]`,
      `exporter = "none"`,
      "",
    ].join("\n"),
  );
}

/**
 * The environment a user would give the server for these agents, with the scripted model as the
 * provider: keys, base URLs, and telemetry, update checks and nonessential traffic off.
 */
export function realAgentEnv(model: ScriptedModel, codexHome: string): Record<string, string | undefined> {
  return {
    IS_SANDBOX: "1",
    ANTHROPIC_BASE_URL: model.baseUrl,
    ANTHROPIC_API_KEY: SCRIPTED_API_KEY,
    ANTHROPIC_AUTH_TOKEN: undefined,
    CLAUDE_CODE_OAUTH_TOKEN: undefined,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_MAX_RETRIES: "0",
    OPENAI_API_KEY: SCRIPTED_API_KEY,
    OPENAI_BASE_URL: undefined,
    CODEX_API_KEY: undefined,
    CODEX_HOME: codexHome,
    RUST_LOG: undefined,
  };
}

export interface RealAgentServer {
  readonly server: SandboxAgentServer;
  /** CODEX_HOME of the agents (its config.toml names the scripted model). */
  readonly codexHome: string;
  /** Stops the server's whole process group (its agents with it) and deletes the dirs. */
  stop(): Promise<void>;
}

/** Starts the real server with `agents` installed and pointed at `model`. Stop it in afterAll. */
export async function startRealAgentServer(
  model: ScriptedModel,
  agents: RealAgent[],
  options: StartSandboxAgentOptions = {},
): Promise<RealAgentServer> {
  // Installs first, outside the server's start deadline.
  for (const agent of agents) await installedPaths(agent);
  const codexHome = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-codex-"));
  writeCodexHome(codexHome, model);
  let server: SandboxAgentServer;
  try {
    server = await startSandboxAgent({ ...options, env: { ...realAgentEnv(model, codexHome), ...options.env } });
  } catch (error) {
    rmSync(codexHome, { recursive: true, force: true });
    throw error;
  }
  const stop = async () => {
    await server.stop();
    rmSync(codexHome, { recursive: true, force: true });
  };
  try {
    for (const agent of agents) await installRealAgent(server.dataHome, agent);
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, codexHome, stop };
}
