// A browser page on one origin connecting to a server on another that does not allow it (no
// --cors-allow-origin): the error says CORS refused this origin and which flag allows it, not that
// the server cannot be reached. A port where nothing listens still says it cannot be reached.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../support/chromium.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { CHROMIUM, describeWith } from "../../support/system-component.js";

type Outcome = { kind?: string; message: string };
type PageApi = { tryConnect: (baseUrl: string) => Promise<Outcome> };

describeWith([CHROMIUM])("connect from a browser page on another origin", () => {
  let dir: string;
  let pageServer: Server;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let agentServer: SandboxAgentServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sarx-cors-"));
    await build({
      entryPoints: [fileURLToPath(new URL("../browser/connect-page.ts", import.meta.url))],
      outfile: join(dir, "page.js"),
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      logLevel: "warning",
    });
    const script = readFileSync(join(dir, "page.js"));
    pageServer = createServer((request, response) => {
      if (request.url === "/page.js") {
        return void response.writeHead(200, { "content-type": "text/javascript" }).end(script);
      }
      const html = '<!doctype html><script type="module" src="/page.js"></script>';
      response.writeHead(200, { "content-type": "text/html" }).end(html);
    });
    await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
    const address = pageServer.address();
    origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    [agentServer, browser] = await Promise.all([startSandboxAgent(), launchChromium()]);
    page = await browser.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => "tryConnect" in globalThis, undefined, { timeout: 20_000 });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await agentServer?.stop();
    await new Promise((resolve) => pageServer?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a server that does not allow the page's origin: kind cors, the origin and the flag that allows it", async () => {
    const outcome = await page.evaluate((url) => (globalThis as unknown as PageApi).tryConnect(url), agentServer.baseUrl);
    expect(outcome.kind).toBe("cors");
    expect(outcome.message).toContain(`did not allow this page's origin (${origin})`);
    expect(outcome.message).toContain(`--cors-allow-origin ${origin}`);
    expect(outcome.message).not.toContain("cannot reach the server");
  }, 30_000);

  it("a port where nothing listens still says the server cannot be reached", async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const outcome = await page.evaluate((url) => (globalThis as unknown as PageApi).tryConnect(url), `http://127.0.0.1:${port}`);
    expect(outcome.kind).toBe("network");
    expect(outcome.message).toContain("cannot reach the server");
  }, 30_000);
});
