// The shared store checks against indexedDbStore in real headless Chromium, and events recorded
// across a page reload (the page is torn down mid-write) stored exactly once.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.js";
import { CHROMIUM, describeWith } from "../support/system-component.js";
import { storeChecks, durableChecks } from "./store-contract.js";

const TITLES = Object.keys({ ...storeChecks, ...durableChecks });

describeWith([CHROMIUM])("indexedDbStore in headless Chromium", () => {
  let dir: string;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let results: Array<{ title: string; error?: string }>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sarx-idb-"));
    await build({
      entryPoints: [fileURLToPath(new URL("./browser/idb-page.ts", import.meta.url))],
      outfile: join(dir, "page.js"),
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      logLevel: "warning",
    });
    const script = readFileSync(join(dir, "page.js"));
    server = createServer((request, response) => {
      if (request.url === "/page.js") {
        return void response.writeHead(200, { "content-type": "text/javascript" }).end(script);
      }
      const html = '<!doctype html><script type="module" src="/page.js"></script>';
      response.writeHead(200, { "content-type": "text/html" }).end(html);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => "runChecks" in globalThis, undefined, { timeout: 20_000 });
    type Checks = { runChecks: () => Promise<typeof results> };
    results = await page.evaluate(() => (globalThis as unknown as Checks).runChecks());
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(TITLES)("%s", (title) => {
    const result = results.find((item) => item.title === title);
    expect(result).toBeDefined();
    expect(result?.error).toBeUndefined();
  });

  it("stores each event once when the page reloads mid-write and the stream is replayed", async () => {
    type Api = {
      record: (from: number, to: number, stallAt?: number) => Promise<number>;
      stored: () => Promise<number[]>;
    };
    // Reload while the first recording still has writes in flight (it stalls after accepting 80);
    // the "resumed stream" then restarts below what the store has.
    void page.evaluate(() => (globalThis as unknown as Api).record(1, 200, 80)).catch(() => undefined);
    const stalled = () => localStorage.getItem("stalled") === "80";
    await page.waitForFunction(stalled, undefined, { timeout: 20_000 });
    await page.reload();
    await page.waitForFunction(() => "record" in globalThis, undefined, { timeout: 20_000 });
    const before = await page.evaluate(() => (globalThis as unknown as Api).stored());
    expect(before).toEqual(Array.from({ length: before.length }, (_, i) => (i + 1) * 100000 + i + 1));
    expect(before.length).toBeLessThanOrEqual(80);
    // A Last-Event-ID resume replays from what the store has; start a little lower, as a replay may.
    const from = Math.max(1, before.length - 5);
    const started = Date.now();
    await page.evaluate((start) => (globalThis as unknown as Api).record(start, 200), from);
    const took = Date.now() - started;
    process.stderr.write(`indexedDbStore: ${201 - from} events recorded in ${took} ms (one transaction each)\n`);
    const after = await page.evaluate(() => (globalThis as unknown as Api).stored());
    // eventIndex * 100000 + stream number: index i holds event i, every one once, in order.
    expect(after).toEqual(Array.from({ length: 200 }, (_, i) => (i + 1) * 100000 + i + 1));
  }, 60_000);
});
