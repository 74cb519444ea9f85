// `npm run demo:real-agent -- --agent claude` and `--agent codex`: the demo (examples/demo, through
// --url) drives the real agent behind a local server, against the scripted model (offline, no key),
// says so, and leaves nothing running.
import { isRunning, runExample } from "./run-example.js";
import { realAgentComponent } from "../support/real-agents.js";
import { describeWith } from "../support/system-component.js";

const TIMEOUT = 120_000;

for (const agent of ["claude", "codex"] as const) {
  describeWith([realAgentComponent(agent)])(`the live demo with --agent ${agent}`, () => {
    it("runs the real agent against the scripted model, labelled as such, and cleans up", async () => {
      const args = ["--agent", agent, "--yes"];
      const result = await runExample("spec/support/real-agent-demo.ts", args, { timeoutMs: TIMEOUT - 5000 });
      const out = result.stdout;
      if (result.code !== 0) throw new Error(`demo exited ${result.code}\nstdout:\n${out}\nstderr:\n${result.stderr}`);
      expect(out).toContain("Model scripted, offline, no key: a canned turn, not a real model");
      const connected = agent === "claude"
        ? /Connected @zed-industries\/claude-agent-acp 0\.23\.1/
        : /Connected codex-acp 0\.16\.0/;
      expect(out).toMatch(connected);
      expect(out).toContain("Thinking: ");
      expect(out).toMatch(/Permission requested: .* -> allowed \(--yes\)/);
      expect(out).toContain("## Added a greeting helper");
      expect(out).toContain("Stop reason: end_turn");
      expect(out).toContain("Disconnected.");
      const pid = Number(/\(local, pid (\d+)\)/.exec(out)?.[1]);
      expect(pid).toBeGreaterThan(0);
      expect(isRunning(pid)).toBe(false);
    }, TIMEOUT);
  });
}
