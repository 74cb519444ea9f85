// The system-component gate end to end: jest runs the browser suite with Chromium made unfindable,
// once as a developer would (skipped with one line, counted in the closing summary) and once as CI
// does (CI=true: the suite fails and says what is missing).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../examples/run-example.js";
import { CHROMIUM, chromiumExecutable, commandPath } from "../support/system-component.js";

const TIMEOUT = 120_000;
const SUITE = "examples/browser in headless Chromium";

function jest(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const jestBin = join(repoRoot, "node_modules/jest/bin/jest.js");
  const flags = ["--experimental-vm-modules", "--no-warnings=ExperimentalWarning"];
  const args = [...flags, jestBin, "spec/examples/browser.spec.ts"];
  const base = { ...process.env };
  delete base.CI;
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: repoRoot, env: { ...base, ...env } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

describe("system components", () => {
  it("finds Chromium through CHROMIUM_PATH, and only there when it is set", () => {
    const saved = process.env.CHROMIUM_PATH;
    try {
      process.env.CHROMIUM_PATH = "/nonexistent/chromium";
      expect(chromiumExecutable()).toBeUndefined();
      expect(CHROMIUM.available()).toBe(false);
      process.env.CHROMIUM_PATH = process.execPath;
      expect(chromiumExecutable()).toBe(process.execPath);
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
  });

  it("resolves commands on PATH and refuses names that are not plain", () => {
    expect(commandPath("sh")).toMatch(/^\/.*\/sh$/);
    expect(commandPath("no-such-command-5c1f")).toBeUndefined();
    expect(commandPath("sh; echo hi")).toBeUndefined();
  });

  it("outside CI, skips a suite whose component is missing with one line, and counts it at the end", async () => {
    const { code, output } = await jest({ CHROMIUM_PATH: "/nonexistent/chromium" });
    expect(code).toBe(0);
    const lines = output.split("\n");
    expect(lines.filter((l) => l.startsWith(`skipped: ${SUITE}: chromium is missing (get it: `))).toHaveLength(1);
    expect(output).toContain("Skipped 1 suite for a missing system component (mandatory with CI=true):");
    expect(output).toContain(`  - ${SUITE}: chromium is missing (get it: ${CHROMIUM.howToGet})`);
    expect(output).toMatch(/Tests:\s+1 skipped, 1 total/);
  }, TIMEOUT);

  it("with CI=true, fails that suite instead, saying what is missing", async () => {
    const { code, output } = await jest({ CHROMIUM_PATH: "/nonexistent/chromium", CI: "true" });
    expect(code).not.toBe(0);
    expect(output).toContain("has its system components (mandatory with CI=true)");
    expect(output).toContain(`chromium is missing (get it: ${CHROMIUM.howToGet})`);
    expect(output).toMatch(/Tests:\s+1 failed, 1 total/);
    expect(output).not.toContain("Skipped 1 suite");
  }, TIMEOUT);
});
