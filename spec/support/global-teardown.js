// Kills any process a test helper registered and did not stop (a crashed or timed-out test), then
// prints which suites were skipped for a missing system component and how to get each one.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { killRegisteredProcesses } from "./process-registry.js";

/** The skip records, one per skipped suite (a suite's file may be loaded by more than one worker). */
export function readSkips(file) {
  if (!file || !existsSync(file)) return [];
  const seen = new Map();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const record = JSON.parse(line);
      seen.set(`${record.name}\0${record.message}`, record);
    } catch {
      // A torn line from a worker killed mid-write says nothing reliable.
    }
  }
  return [...seen.values()];
}

export function skipSummary(skips) {
  if (skips.length === 0) return "";
  const lines = skips.map((s) => `  - ${s.name}: ${s.message}`);
  const what = skips.length === 1 ? "1 suite" : `${skips.length} suites`;
  return `\nSkipped ${what} for a missing system component (mandatory with CI=true):\n${lines.join("\n")}\n`;
}

export default async function globalTeardown() {
  const leaked = killRegisteredProcesses();
  if (leaked > 0) console.warn(`global teardown: killed ${leaked} process group(s) a test left running`);
  const file = process.env.SANDBOX_AGENT_RX_SKIPFILE;
  const summary = skipSummary(readSkips(file));
  if (summary) process.stderr.write(summary);
  if (file) rmSync(file, { force: true });
}
