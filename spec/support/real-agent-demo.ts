// `npm run demo:real-agent -- --agent claude` (or `codex`) [demo options]: the demo (examples/demo)
// with a real agent, offline. Claude Code or Codex runs behind a local sandbox-agent server exactly as
// it would for a user, but the model it talks to is a scripted one on loopback that replays a canned
// turn (a thought, a file written after a permission request, an answer): no API key, no network once
// the agent is installed. The agents and the scripted model are the test suite's (real-agents.ts,
// scripted-model.ts), so this lives here; the demo itself meets the server as any server of the
// user's (`--url`, `--cwd`, `--auth`) and imports only the package.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startRealAgentServer, type RealAgent } from "./real-agents.js";
import { startScriptedModel, type ScriptedReply } from "./scripted-model.js";

export const REAL_AGENTS: readonly RealAgent[] = ["claude", "codex"];

export interface RealAgentDemo {
  baseUrl: string;
  /** The server's home: the session's working directory. */
  home: string;
  /** Server process id (it leads the process group of the agent). */
  pid: number;
  stop(): Promise<void>;
}

const GREETING = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';
/** The same in one line, for Codex's shell command. */
const GREETING_LINE = "export const greet = (name: string): string => `Hello, ${name}!`;";

/** The canned turn: think, write src/greeting.ts (the agent asks first), answer. */
function cannedTurn(agent: RealAgent, home: string): ScriptedReply[] {
  const path = join(home, "greeting.ts");
  const write = agent === "claude"
    ? { type: "tool" as const, name: "Write", input: { file_path: path, content: GREETING } }
    : { type: "tool" as const, name: "exec_command", input: {
      cmd: `echo '${GREETING_LINE}' > greeting.ts`, workdir: home,
      sandbox_permissions: "require_escalated", justification: "Write greeting.ts" } };
  return [
    {
      blocks: [{ type: "thinking", chunks: ["A greeting helper: ", "one small function ", "in greeting.ts."] }, write],
      delayMs: 60,
    },
    { blocks: [{ type: "text", chunks: ["## Added a greeting helper\n\n", "`greeting.ts` exports ",
      "`greet(name)`.\n\n",
      "_(This answer comes from a scripted model: the agent is real, the model is not.)_\n"] }], delayMs: 60 },
  ];
}

/** Starts the scripted model and a server with `agent` installed against it. */
export async function startRealAgentDemo(agent: RealAgent): Promise<RealAgentDemo> {
  const model = await startScriptedModel();
  let server;
  try {
    server = await startRealAgentServer(model, [agent]);
  } catch (error) {
    await model.stop();
    throw error;
  }
  // Every prompt gets the canned turn: the empty marker is in any text.
  model.script("", cannedTurn(agent, server.server.home));
  return {
    baseUrl: server.server.baseUrl,
    home: server.server.home,
    pid: server.server.pid,
    stop: async () => {
      await server.stop();
      await model.stop();
    },
  };
}

const DEMO = fileURLToPath(new URL("../../examples/demo/main.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** `--agent NAME` (or `--agent=NAME`) out of the demo's options; the rest is handed on. */
function splitAgent(argv: readonly string[]): { agent: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let agent: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--agent") agent = argv[++i];
    else if (arg.startsWith("--agent=")) agent = arg.slice("--agent=".length);
    else rest.push(arg);
  }
  return { agent, rest };
}

/** Runs the demo against the real agent; resolves with the demo's exit code. */
async function run(argv: readonly string[]): Promise<number> {
  const { agent, rest } = splitAgent(argv);
  if (!REAL_AGENTS.includes(agent as RealAgent)) {
    process.stderr.write(`usage: npm run demo:real-agent -- --agent ${REAL_AGENTS.join("|")} [demo options]\n`);
    return 2;
  }
  const real = agent as RealAgent;
  console.log(`Starting a local sandbox-agent server with ${real} (installing it the first time)...`);
  const demo = await startRealAgentDemo(real);
  // Ctrl-C reaches the demo too (same process group): it cleans up and exits; then the server stops here.
  const wait = (): void => undefined;
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, wait);
  try {
    console.log(`Local server ${demo.baseUrl} (local, pid ${demo.pid})`);
    console.log("Model scripted, offline, no key: a canned turn, not a real model");
    // Codex takes its API key through `authenticate`; the scripted model accepts any key.
    const auth = real === "codex" ? ["--auth", "openai-api-key"] : [];
    const args = [...rest, "--url", demo.baseUrl, "--agent", real, "--cwd", demo.home, ...auth];
    const child = spawn(process.execPath, ["--import", "tsx", DEMO, ...args], { cwd: repoRoot, stdio: "inherit" });
    return await new Promise<number>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
  } finally {
    await demo.stop();
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(sig, wait);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await run(process.argv.slice(2));
}
