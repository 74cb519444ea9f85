// The fleet example (examples/fleet) as a user runs it, and runFleet()'s clean-up when a prompt or
// a start fails: every sandbox that was started is destroyed.
import { fileURLToPath } from "node:url";
import { runFleet } from "../../examples/fleet/fleet.js";
import { local, type LocalProvider } from "../../lib/providers/local/index.js";
import type { SandboxInfo, SandboxProvider } from "../../lib/sandbox/index.js";
import { runExample } from "../examples/run-example.js";
import { isRunning } from "./support/processes.js";

const demoAgent = fileURLToPath(new URL("../../lib/providers/local/demo-agent.mjs", import.meta.url));

/** local(), recording the pid of every sandbox it created and every id it destroyed; create #failAt throws. */
function tracked(failAt?: number): SandboxProvider & { pids: number[]; created: string[]; destroyed: string[] } {
  const inner: LocalProvider = local({ mockAgent: demoAgent });
  const pids: number[] = [];
  const created: string[] = [];
  const destroyed: string[] = [];
  let creates = 0;
  return {
    name: "tracked-local",
    pids,
    created,
    destroyed,
    async create(options): Promise<SandboxInfo> {
      if (++creates === failAt) throw new Error("scripted create failure");
      const info = await inner.create(options);
      created.push(info.id);
      pids.push(inner.details(info.id)?.pid ?? 0);
      return info;
    },
    async destroy(id, options) {
      destroyed.push(id);
      await inner.destroy(id, options);
    },
  };
}

describe("the fleet example (examples/fleet)", () => {
  it("runs 6 prompts over 3 sandboxes and prints every result", async () => {
    const result = await runExample("examples/fleet/main.ts", ["--sandboxes", "3", "--prompts", "6"], { timeoutMs: 90_000 });
    if (result.code !== 0) throw new Error(`fleet exited ${result.code}\n${result.stdout}\n${result.stderr}`);
    const lines = result.stdout.split("\n").filter((line) => line.startsWith("sandbox "));
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line).toMatch(/^sandbox [012]\s+end_turn\s+\d+ ms\s+quick fleet task #\d: ## Added a greeting helper$/);
    expect(new Set(lines.map((line) => line.split(/\s+/)[1])).size).toBe(3);
    expect(result.stdout).toMatch(/6 prompts on 3 sandboxes: started in \d+ ms, done in \d+ ms/);
    expect(result.stderr).toBe("");
  }, 120_000);

  it("destroys every sandbox when a prompt fails", async () => {
    const provider = tracked();
    await expect(runFleet({ provider, sandboxes: 2, prompts: ["quick one", "quick fail", "quick three"] })).rejects.toThrow(/failed on purpose/);
    expect(provider.created).toHaveLength(2);
    expect([...provider.destroyed].sort()).toEqual([...provider.created].sort());
    for (const pid of provider.pids) expect(isRunning(pid)).toBe(false);
  }, 60_000);

  it("destroys the sandboxes already started when a later start fails", async () => {
    const provider = tracked(3);
    await expect(runFleet({ provider, sandboxes: 3, startConcurrency: 1, prompts: ["quick a"] })).rejects.toThrow("scripted create failure");
    expect(provider.created).toHaveLength(2);
    expect([...provider.destroyed].sort()).toEqual([...provider.created].sort());
    for (const pid of provider.pids) expect(isRunning(pid)).toBe(false);
  }, 60_000);
});
