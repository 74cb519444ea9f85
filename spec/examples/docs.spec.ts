// The API reference builds without a warning, and it covers every entry point of package.json
// "exports" (a subpath added without its TypeDoc entry would be missing from the reference).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { entriesOf, sourceOf, type PackageJson } from "./package-graph.js";
import { repoRoot } from "./run-example.js";

const run = promisify(execFile);
const read = (file: string): unknown => JSON.parse(readFileSync(join(repoRoot, file), "utf8"));

describe("API reference (npm run docs)", () => {
  it("has one TypeDoc entry point per package entry point", () => {
    const sources = entriesOf(read("package.json") as PackageJson).map(sourceOf).sort();
    const config = read("typedoc.json") as { entryPoints: string[] };
    expect([...config.entryPoints].sort()).toEqual(sources);
  });

  it("builds with warnings treated as errors", async () => {
    const out = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-docs-"));
    try {
      const typedoc = join(repoRoot, "node_modules/typedoc/bin/typedoc");
      const args = [typedoc, "--treatWarningsAsErrors", "--out", out];
      const result = await run(process.execPath, args, { cwd: repoRoot }).then(
        ({ stdout, stderr }) => ({ ok: true, output: `${stdout}${stderr}` }),
        ({ stdout = "", stderr = "" }: { stdout?: string; stderr?: string }) =>
          ({ ok: false, output: `${stdout}${stderr}` }),
      );
      expect(result).toEqual({ ok: true, output: expect.not.stringMatching(/\[warning\]|\[error\]/) as unknown });
      expect(readFileSync(join(out, "index.html"), "utf8")).toContain("sandbox-agent-rx");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);
});
