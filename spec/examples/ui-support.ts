// Helpers of the UI example's browser suites: the production Vite build, a static server for it on
// its own loopback origin, and a check that a screenshot is not blank.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Page } from "playwright-core";

const repo = fileURLToPath(new URL("../../", import.meta.url));

/** `vite build` of examples/ui into `outDir` (a child process: Vite and its native bundler stay out of jest). */
export async function buildUiExample(outDir: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      join(repo, "node_modules/vite/bin/vite.js"),
      "build",
      "--config",
      join(repo, "examples/ui/vite.config.ts"),
      "--outDir",
      outDir,
    ],
    { cwd: repo, timeout: 120_000 },
  );
}

export { serveStatic } from "../support/static-server.js";

export interface PixelStats {
  width: number;
  height: number;
  /** Standard deviation of the luminance over all pixels, 0–255. */
  deviation: number;
  /** How many distinct colours (quantised to 4 bits per channel) the image has. */
  colours: number;
}

/** Decodes a PNG in the browser (a canvas) and measures how much it varies: blank pages score ~0. */
export async function pixelStats(page: Page, png: Buffer): Promise<PixelStats> {
  return page.evaluate(async (base64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${base64}`;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext("2d");
    if (!context) throw new Error("no 2d context");
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let sum = 0;
    let squares = 0;
    const colours = new Set<number>();
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
      const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      sum += luminance;
      squares += luminance * luminance;
      colours.add(((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4));
    }
    const n = data.length / 4;
    const mean = sum / n;
    const deviation = Math.sqrt(squares / n - mean * mean);
    return { width: canvas.width, height: canvas.height, deviation, colours: colours.size };
  }, png.toString("base64"));
}
