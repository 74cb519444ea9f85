// Runs a README snippet as a user would after `npm install sandbox-agent-rx`: the package's
// specifiers point at the library sources (package.json "exports" mapped by sourceOf), and the
// snippet runs under tsx in a temporary folder that sees the repository's node_modules.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { entriesOf, sourceOf, type PackageJson } from "./package-graph.js";
import { repoRoot, runExample, type RunResult } from "./run-example.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as PackageJson;

/** `code` with every `from "sandbox-agent-rx..."` pointing at the source file of that entry. */
export function toSources(code: string): string {
  const bySpecifier = new Map(entriesOf(pkg).map((e) => [e.specifier, join(repoRoot, sourceOf(e))]));
  return code.replace(/from "([^"]+)"/g, (whole, specifier: string) => {
    const source = bySpecifier.get(specifier);
    return source ? `from ${JSON.stringify(source)}` : whole;
  });
}

export async function runSnippet(code: string, options: { timeoutMs?: number } = {}): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-snippet-"));
  try {
    symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true, type: "module" }));
    const file = join(dir, "snippet.ts");
    writeFileSync(file, toSources(code));
    return await runExample(file, [], { timeoutMs: options.timeoutMs ?? 45_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs a README snippet that uses what the README's earlier snippets declared (`client`, `baseUrl`,
 * `token`) against a fresh local server, with stand-ins for the reader's own objects (`xterm`).
 * The snippet's imports go first; its statements run in a block, then the server is destroyed.
 */
export function runWithClient(code: string, options: { timeoutMs?: number } = {}): Promise<RunResult> {
  const lines = code.split("\n");
  const imports = lines.filter((line) => line.startsWith("import "));
  const body = lines.filter((line) => !line.startsWith("import "));
  const harness = [
    ...imports,
    'import { SandboxAgentClient as HarnessClient } from "sandbox-agent-rx";',
    'import { local as harnessLocal } from "sandbox-agent-rx/local";',
    "const harnessProvider = harnessLocal();",
    "const harnessSandbox = await harnessProvider.create();",
    "const baseUrl = harnessSandbox.baseUrl;",
    "const token = harnessSandbox.token;",
    "const client = new HarnessClient({ baseUrl, token, autoConnect: false });",
    "const xterm = { write: (data: Uint8Array | string) => process.stdout.write(data) };",
    "try {",
    ...body,
    "} finally {",
    "  await harnessProvider.destroy(harnessSandbox.id);",
    "}",
  ];
  return runSnippet(harness.join("\n"), options);
}
