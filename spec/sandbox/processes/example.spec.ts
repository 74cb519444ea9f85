import { runExample } from "../../examples/run-example.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";

let server: SandboxAgentServer;
beforeAll(async () => {
  server = await startSandboxAgent({ token: "example-token" });
});
afterAll(() => server?.stop());

it("examples/processes/main.ts runs against the real server with a token", async () => {
  const result = await runExample("examples/processes/main.ts", ["--url", server.baseUrl, "--token", "example-token"], { timeoutMs: 60_000 });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(
    [
      'run: exit 3, stdout "Linux\\n"',
      "log stdout: step 1",
      "log stdout: step 2",
      "log stdout: step 3",
      "status: exited",
      'terminal exit: {"exitCode":7}; saw size: true',
      "",
    ].join("\n"),
  );
}, 90_000);
