// The package as users install it: build, then check what `npm pack` would publish and that the
// published entry points load by package name.
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { promisify } from "node:util";
import { repoRoot } from "./run-example.js";

const run = promisify(execFile);
const TIMEOUT = 90_000;

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

  it("contains both entry points with their declarations", () => {
    for (const entry of ["dist/sandbox/index", "dist/acp-http/index"]) {
      expect(files).toContain(`${entry}.js`);
      expect(files).toContain(`${entry}.d.ts`);
    }
    expect(files).toContain("package.json");
  });

  it("contains nothing but the build output, the readme and package.json", () => {
    const stray = files.filter((path) => !(path.startsWith("dist/") || path === "package.json" || /^README\.md$/i.test(path) || /^LICEN[CS]E/i.test(path)));
    expect(stray).toEqual([]);
    expect(files.filter((path) => /(^|\/)(spec|examples|bench|node_modules|tmp-smoke)\//.test(path))).toEqual([]);
    expect(files.filter((path) => /(^|\/)\.env|\.npmrc|\.pem$|\.key$|secret|token/i.test(path))).toEqual([]);
  });

  it("loads both entry points by package name (self-reference through `exports`)", async () => {
    const script =
      'const root = await import("sandbox-agent-rx"); const acp = await import("sandbox-agent-rx/acp-http");' +
      "console.log(typeof root.SandboxAgentClient, typeof acp.AcpHttpClient);";
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot });
    expect(stdout.trim()).toBe("function function");
  }, TIMEOUT);
});
