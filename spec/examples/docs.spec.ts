// The API reference (npm run docs) builds without a warning and covers every entry point of
// package.json "exports" (entries added later are covered without editing this file): each is a
// module named by its import path, and the landing page is the overview with the README's first turn.
// The reference is generated, not shipped: no Markdown page of the package links into it.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { entriesOf, sourceOf, type PackageJson } from "./package-graph.js";
import { repoRoot } from "./run-example.js";
import { tsBlocks } from "./snippets.js";

const run = promisify(execFile);
const readText = (file: string) => readFileSync(join(repoRoot, file), "utf8");
const read = (file: string): unknown => JSON.parse(readText(file));
const entries = entriesOf(read("package.json") as PackageJson);
const config = read("typedoc.json") as { entryPoints: string[]; readme?: string };
/** TypeDoc's file name for a module: its name with "/" as "_". */
const modulePage = (specifier: string) => `modules/${specifier.replace(/\//g, "_")}.html`;
const titleOf = (html: string) => /<title>([^<|]*)/.exec(html)?.[1]?.trim();

describe("API reference (npm run docs)", () => {
  const out = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-docs-"));
  let build = { ok: false, output: "not built" };

  beforeAll(async () => {
    const typedoc = join(repoRoot, "node_modules/typedoc/bin/typedoc");
    build = await run(process.execPath, [typedoc, "--treatWarningsAsErrors", "--out", out], { cwd: repoRoot }).then(
      ({ stdout, stderr }) => ({ ok: true, output: `${stdout}${stderr}` }),
      ({ stdout = "", stderr = "" }: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${stdout}${stderr}` }),
    );
  }, 180_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("has one TypeDoc entry point per package entry point", () => {
    expect([...config.entryPoints].sort()).toEqual(entries.map(sourceOf).sort());
  });

  it("names each entry point's module by its import path (an @module tag in its source)", () => {
    for (const entry of entries) {
      const tag = /@module\s+(\S+)/.exec(readText(sourceOf(entry)))?.[1];
      expect({ source: sourceOf(entry), module: tag }).toEqual({ source: sourceOf(entry), module: entry.specifier });
    }
  });

  it("builds with warnings treated as errors", () => {
    expect(build).toEqual({ ok: true, output: expect.not.stringMatching(/\[warning\]|\[error\]/) as unknown });
  });

  it("has a page per module, titled with the import path", () => {
    const titles = entries.map((entry) => {
      const page = join(out, modulePage(entry.specifier));
      return existsSync(page) ? titleOf(readFileSync(page, "utf8")) : `(no ${modulePage(entry.specifier)})`;
    });
    expect(titles).toEqual(entries.map((entry) => entry.specifier));
  });

  it("lands on the overview: the README's first turn and a link to every module", () => {
    expect(config.readme).toBe("docs/api-overview.md");
    const [readmeFirst] = tsBlocks(readText("README.md"));
    const [overviewFirst] = tsBlocks(readText("docs/api-overview.md"));
    expect(overviewFirst?.code).toBe(readmeFirst?.code);
    const landing = readFileSync(join(out, "index.html"), "utf8");
    expect(landing).toContain("A first turn");
    expect(landing).toContain("demoAgent");
    for (const entry of entries) expect(landing).toContain(`href="${modulePage(entry.specifier)}"`);
  });

  it("is linked from no README or guide page (it is generated and not in the package)", () => {
    const pages = ["README.md", ...readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    const linking = pages.filter((page) => /\]\((\.\.\/)?(docs\/)?api\//.test(readText(page)));
    expect(pages.length).toBeGreaterThan(5);
    expect(linking).toEqual([]);
  });
});
