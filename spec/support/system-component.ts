// Suites that need a system component (Chromium, the desktop packages, Docker) declare it here.
// Outside CI a missing component skips the suite with one line that says what is missing and how
// to get it; with CI=true the component is mandatory and the suite fails instead.
import { existsSync, appendFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

export interface SystemComponent {
  /** A short name for the summary line, e.g. "chromium". */
  name: string;
  /** True when the component is usable on this machine. */
  available: () => boolean;
  /** What to run to get it, e.g. "apt-get install chromium (.ci/system/chromium.sh)". */
  howToGet: string;
}

/** True when `command` resolves on PATH. */
export function onPath(command: string): boolean {
  return commandPath(command) !== undefined;
}

/** True when every file exists. */
export function filesExist(...paths: string[]): boolean {
  return paths.every((path) => existsSync(path));
}

/**
 * `describe` when every component is available; otherwise, outside CI, `describe.skip` after one
 * line naming what is missing (also recorded for the end-of-run summary); with CI=true, a suite
 * whose single test fails with the same message.
 */
export function describeWith(components: SystemComponent[]): (name: string, body: () => void) => void {
  const missing = components.filter((component) => !component.available());
  if (missing.length === 0) return describe;
  const message = missing.map((c) => `${c.name} is missing (get it: ${c.howToGet})`).join("; ");
  if (process.env.CI === "true") {
    return (name) =>
      describe(name, () => {
        it("has its system components (mandatory with CI=true)", () => {
          throw new Error(message);
        });
      });
  }
  return (name, body) => {
    recordSkip(name, message);
    process.stderr.write(`skipped: ${name}: ${message}\n`);
    describe.skip(name, body);
  };
}

function recordSkip(name: string, message: string): void {
  const file = process.env.SANDBOX_AGENT_RX_SKIPFILE;
  if (file) appendFileSync(file, `${JSON.stringify({ name, message })}\n`);
}

const CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];

/**
 * The Chromium the browser suites drive through playwright-core (which downloads no browser of its
 * own): $CHROMIUM_PATH when set, else the first of the usual names on PATH; undefined when none.
 */
export function chromiumExecutable(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  for (const name of CHROMIUM_NAMES) {
    const path = commandPath(name);
    if (path) return path;
  }
  return undefined;
}

/** The absolute path `command` resolves to on PATH, if any. */
export function commandPath(command: string): string | undefined {
  if (!/^[\w.+-]+$/.test(command)) return undefined;
  try {
    const stdio: ["ignore", "pipe", "ignore"] = ["ignore", "pipe", "ignore"];
    const out = execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8", stdio });
    const path = out.trim();
    return path.startsWith("/") ? path : undefined;
  } catch {
    return undefined;
  }
}

export const CHROMIUM: SystemComponent = {
  name: "chromium",
  available: () => chromiumExecutable() !== undefined,
  howToGet: "apt-get install chromium, or set CHROMIUM_PATH (.ci/system/chromium.sh installs it)",
};
