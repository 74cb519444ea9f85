// The README's first snippet is what a new user runs first, so it must work as printed with no API
// key and no network: the demo agent shipped in the package, on a local server, one streamed turn.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./run-example.js";
import { runSnippet } from "./readme-snippet-run.js";
import { tsBlocks } from "./snippets.js";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const [first] = tsBlocks(readme);

describe("the README's first snippet", () => {
  it("is preceded by the install line, with the server binary's optional peer", () => {
    const before = readme.slice(0, readme.indexOf(first?.code ?? "(none)"));
    expect(before).toMatch(/```sh\nnpm install sandbox-agent-rx rxjs @sandbox-agent\/cli\n```/);
  });

  it("uses the demo agent shipped in the package", () => {
    expect(first?.code).toContain('from "sandbox-agent-rx/local"');
    expect(first?.code).toContain("local({ mockAgent: demoAgent })");
    expect(first?.code).toContain('agent: "mock"');
  });

  it("runs as printed: a streamed answer, end_turn, and the server gone", async () => {
    // No credentials in reach, so the turn cannot depend on any.
    const result = await runSnippet(first?.code ?? "", { timeoutMs: 60_000 });
    if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stdout}\n${result.stderr}`);
    // Without an onPermissionRequest handler the edit is answered "cancelled", and the agent says so.
    expect(result.stdout).toContain("## Change not applied");
    expect(result.stdout).toContain("export function greet(name: string): string {");
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe("(end_turn)");
  }, 90_000);
});
