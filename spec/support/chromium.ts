// Debian's Chromium, headless, for the browser suites (playwright-core drives it; no browser download).
// The background-networking flags matter here: without them Chromium keeps dialling out of a
// machine whose network is closed.
import { chromium, type Browser } from "playwright-core";
import { chromiumExecutable } from "./system-component.js";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches the machine's Chromium (gate the suite with `describeWith([CHROMIUM])` first). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });
}
