// `npm start -- --agent claude` (or `codex`): the demo with a real agent, offline. Claude Code or
// Codex runs behind a local sandbox-agent server exactly as it would for a user, but the model it
// talks to is a scripted one on loopback that replays a canned turn (a thought, a file written after
// a permission request, an answer): no API key, no network once the agent is installed. The agents
// and the scripted model are the test suite's (spec/support/real-agents.ts, scripted-model.ts).
import { join } from "node:path";
import { startRealAgentServer, type RealAgent } from "../../spec/support/real-agents.js";
import { startScriptedModel, type ScriptedReply } from "../../spec/support/scripted-model.js";

export const REAL_AGENTS: readonly string[] = ["claude", "codex"];

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
