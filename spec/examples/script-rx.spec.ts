// The promise and RxJS examples, run as programs against a real server with the demo agent.
import { fileURLToPath } from "node:url";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { runExample } from "./run-example.js";

const demoAgent = fileURLToPath(new URL("../../lib/providers/local/demo-agent.mjs", import.meta.url));
const TIMEOUT = 60_000;

let server: SandboxAgentServer;
beforeAll(async () => {
  server = await startSandboxAgent({ agentScript: demoAgent, token: "example-token" });
}, TIMEOUT);
afterAll(() => server?.stop());

const serverArgs = (): string[] => ["--url", server.baseUrl, "--agent", "mock", "--token", "example-token"];

describe("examples/script", () => {
  it("runs a turn with promise methods only", async () => {
    const result = await runExample("examples/script/main.ts", serverArgs());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("health: ok");
    expect(result.stdout).toContain("connected to demo-agent over the v1 API");
    expect(result.stdout).toContain("permission: Write src/greeting.ts -> allow");
    expect(result.stdout).toContain("stop reason: end_turn");
    expect(result.stdout).toContain("## Added a greeting helper");
    expect(result.stdout).toMatch(/listed: session-[0-9a-f]+ "quick: add a greeting helper"/);
  }, TIMEOUT);
});

describe("examples/rx", () => {
  it("composes views, cancellation and retry", async () => {
    const result = await runExample("examples/rx/main.ts", serverArgs());
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain("state: connected");
    expect(out).toMatch(/view session-[0-9a-f]+: .*update=\d+/);
    expect(out).toMatch(/answer session-[0-9a-f]+ quotes its own prompt: true\n.*answer session-[0-9a-f]+ quotes its own prompt: true/);
    expect(out).toContain("cancelled by unsubscribing");
    expect(out).toContain("attempt 1 failed: ");
    expect(out).toContain("after 2 attempts: end_turn");
    expect(out).toContain("state: disconnected");
    expect(out).not.toContain("parse error");
  }, TIMEOUT);
});
