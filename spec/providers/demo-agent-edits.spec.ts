// The demo agent does what it says: an allowed edit writes src/greeting.ts for real, through the
// client's fs/write_text_file when the client offers it, else directly in the session's folder (or
// the sandbox's HOME when that folder is outside it), against the real 0.4.2 server.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxAgentClient, type SandboxAgentClientOptions } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";

const demoAgent = fileURLToPath(new URL("../../lib/providers/local/demo-agent.mjs", import.meta.url));
const GREETING = "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n";
const allow: SandboxAgentClientOptions["onPermissionRequest"] = () => ({ outcome: "selected", optionId: "allow_once" });

describe("the demo agent's edit", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];

  beforeAll(async () => {
    server = await startSandboxAgent({ agentScript: demoAgent });
  }, 60_000);
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.disconnect().catch(() => undefined)));
  });
  afterAll(async () => {
    await server?.stop();
  });

  const turn = async (options: Partial<SandboxAgentClientOptions>, cwd: string) => {
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", onPermissionRequest: allow, ...options });
    clients.push(client);
    const session = await client.newSession({ cwd }, { timeoutMs: 30_000 });
    const outcome = await client.prompt(session.sessionId, "quick add a greeting helper", { timeoutMs: 30_000 });
    return { client, outcome };
  };

  it("writes the file it reports in the session's folder when the client offers no file access", async () => {
    const folder = join(server.home, "direct");
    const { outcome } = await turn({}, folder);
    expect(outcome.stopReason).toBe("end_turn");
    expect(readFileSync(join(folder, "src/greeting.ts"), "utf8")).toBe(GREETING);
  }, 60_000);

  it("asks the client to write it (fs/write_text_file) when the client offers that", async () => {
    const folder = join(server.home, "through-client");
    const writes: Array<{ sessionId: string; path: string; content: string }> = [];
    const { outcome } = await turn({ onWriteTextFile: (request) => void writes.push(request) }, folder);
    expect(outcome.stopReason).toBe("end_turn");
    expect(writes).toEqual([{ sessionId: expect.any(String), path: join(folder, "src/greeting.ts"), content: GREETING }]);
    // The client's to write: the agent did not write it behind its back.
    expect(existsSync(join(folder, "src/greeting.ts"))).toBe(false);
  }, 60_000);

  it("writes in the sandbox's home, never outside it, when the session's folder is outside (the default '/')", async () => {
    const { outcome } = await turn({}, "/");
    expect(outcome.stopReason).toBe("end_turn");
    expect(readFileSync(join(server.home, "src/greeting.ts"), "utf8")).toBe(GREETING);
    expect(existsSync("/src/greeting.ts")).toBe(false);
  }, 60_000);
});
