// The package as users install it: build, then check what `npm pack` would publish and that the
// published entry points load by package name.
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join, posix } from "node:path";
import { promisify } from "node:util";
import { entriesOf, type PackageJson } from "./package-graph.js";
import { repoRoot } from "./run-example.js";

const run = promisify(execFile);
const TIMEOUT = 90_000;
const entries = entriesOf(JSON.parse(readFileSync(`${repoRoot}package.json`, "utf8")) as PackageJson);

/** GitHub's anchors for a Markdown page's headings: lower case, punctuation dropped, spaces as dashes. */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  for (const [, heading = ""] of markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
    let slug = base;
    for (let n = 1; slugs.has(slug); n++) slug = `${base}-${n}`;
    slugs.add(slug);
  }
  return slugs;
}

interface PackReport {
  files: Array<{ path: string }>;
}

describe("package contents", () => {
  let files: string[] = [];

  beforeAll(async () => {
    // A clean build, so the listing reflects the sources and not leftovers of an older build.
    rmSync(`${repoRoot}dist`, { recursive: true, force: true });
    await run("npm", ["run", "--silent", "build"], { cwd: repoRoot });
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
    const [report] = JSON.parse(stdout) as PackReport[];
    files = (report?.files ?? []).map((file) => file.path);
  }, TIMEOUT);

  it("contains every entry point of \"exports\" with its declarations", () => {
    expect(entries.length).toBeGreaterThanOrEqual(2);
    for (const entry of entries) {
      expect(files).toContain(entry.file.replace(/^\.\//, ""));
      expect(files).toContain((entry.types ?? "(no types condition)").replace(/^\.\//, ""));
    }
    expect(files).toContain("package.json");
  });

  it("contains nothing but the build output, the readme, the guides and package.json", () => {
    const shipped = (path: string) =>
      path.startsWith("dist/") || path === "package.json" || /^README\.md$/i.test(path) || /^LICEN[CS]E/i.test(path) ||
      /^docs\/[^/]+\.md$/.test(path);
    const stray = files.filter((path) => !shipped(path));
    expect(stray).toEqual([]);
    expect(files.filter((path) => /(^|\/)(spec|examples|bench|node_modules|tmp-smoke)\//.test(path))).toEqual([]);
    // Credentials files anywhere; "secret"/"token" names only outside compiled modules (a compiled module
    // so named is code that handles tokens, not a token).
    const compiled = /\.(js|d\.ts|js\.map)$/;
    expect(files.filter((path) => /(^|\/)\.env|\.npmrc|\.pem$|\.key$/i.test(path))).toEqual([]);
    expect(files.filter((path) => /secret|token/i.test(path) && !compiled.test(path))).toEqual([]);
  });

  it("ships the guides, and every relative link of the README and the guides resolves inside the package", () => {
    const pages = files.filter((path) => path === "README.md" || /^docs\/[^/]+\.md$/.test(path));
    expect(pages).toEqual(expect.arrayContaining(["README.md", "docs/client.md", "docs/persistence.md"]));
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      const text = readFileSync(join(repoRoot, page), "utf8").replace(/^```[\s\S]*?^```/gm, "");
      for (const [, target = ""] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:, ...
        checked += 1;
        const [path = "", anchor] = target.split("#");
        const file = path === "" ? page : posix.normalize(posix.join(posix.dirname(page), path));
        if (!files.includes(file)) {
          broken.push(`${page}: ${target} (not in the package)`);
        } else if (anchor && !headingSlugs(readFileSync(join(repoRoot, file), "utf8")).has(anchor)) {
          broken.push(`${page}: ${target} (no such heading)`);
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  it("loads both documented entry points by package name (self-reference through `exports`)", async () => {
    const script =
      'const root = await import("sandbox-agent-rx"); const acp = await import("sandbox-agent-rx/acp-http");' +
      "console.log(typeof root.SandboxAgentClient, typeof acp.AcpHttpClient);";
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot });
    expect(stdout.trim()).toBe("function function");
  }, TIMEOUT);

  it("loads every entry point of \"exports\" by package name, each with exports", async () => {
    const specifiers = JSON.stringify(entries.map((e) => e.specifier));
    const script = `const counts = {}; for (const s of ${specifiers}) counts[s] = Object.keys(await import(s)).length;` +
      "console.log(JSON.stringify(counts));";
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot });
    const counts = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(counts)).toEqual(entries.map((e) => e.specifier));
    expect(Object.values(counts).filter((n) => n === 0)).toEqual([]);
  }, TIMEOUT);
});
