// The control-plane guide (docs/control-plane.md, linked from the README) has one snippet per area
// (files, processes, desktop, MCP and skills config) with the real call shapes. readme.spec.ts
// type-checks them with the rest of the guides; this file runs the ones that need nothing but the
// server (no agent, no network) against a real local
// server, as printed, and checks what they print. The desktop one needs the desktop system packages
// and a free X display: its calls are run by the desktop suite (spec/sandbox/desktop/).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./run-example.js";
import { runWithClient } from "./readme-snippet-run.js";
import { tsBlocks, type Block } from "./snippets.js";

const guide = readFileSync(join(repoRoot, "docs/control-plane.md"), "utf8");

/** The ts blocks under a "## heading" (up to the next heading of any level). */
function blocksUnder(heading: string): Block[] {
  const start = guide.indexOf(`\n## ${heading}\n`);
  if (start < 0) return [];
  const rest = guide.slice(start + heading.length + 5);
  const end = rest.search(/\n#{1,3} /);
  const sectionLine = guide.slice(0, start).split("\n").length + 1;
  return tsBlocks(end < 0 ? rest : rest.slice(0, end)).map((block) => ({ ...block, line: block.line + sectionLine }));
}

const [files] = blocksUnder("Files");
const [processes] = blocksUnder("Processes and terminals");
const [desktop, config] = blocksUnder("Desktop, MCP and skills config, agents, health");

describe("the control-plane guide: one snippet per area", () => {
  it("has a snippet for files, processes, desktop and config, each using its area", () => {
    expect(files?.code).toContain("client.fs.readFile(");
    expect(processes?.code).toContain("processes.run(");
    expect(desktop?.code).toContain("client.desktop.start(");
    expect(config?.code).toContain("client.config.setMcpConfig(");
  });

  it("files: writes, reads, moves, lists and deletes on the server", async () => {
    const result = await runWithClient(files?.code ?? "");
    if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stdout}\n${result.stderr}`);
    expect(result.stdout).toMatch(/^\/\S+ "- ship it\\n" \[ 'done\.md \(file\)' \]$/m);
  }, 60_000);

  it("processes: a run, a spawned process's logs and a terminal's exit code", async () => {
    const result = await runWithClient(processes?.code ?? "");
    if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stdout}\n${result.stderr}`);
    expect(result.stdout).toContain(`node ${process.version} exited 0`);
    expect(result.stdout).toMatch(/tick 1\ntick 2\ntick 3\n/);
    expect(result.stdout).toContain("hi from the terminal");
    expect(result.stdout).toContain("{ exitCode: 3 }");
  }, 60_000);

  it("config: MCP and skills entries round-trip", async () => {
    const result = await runWithClient(config?.code ?? "");
    if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stdout}\n${result.stderr}`);
    expect(result.stdout).toContain("type: 'local'");
    expect(result.stdout).toContain("command: 'mcp-fs'");
    expect(result.stdout).toContain("source: 'acme/skills'");
  }, 60_000);
});
