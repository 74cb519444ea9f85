// The browser example in real headless Chromium against the real sandbox-agent 0.4.2 server, which
// must allow the page's origin (CORS). The page is served from a separate loopback origin, so every
// SDK request is a cross-origin one, as in a real deployment.
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { buildBrowserExample, browserDir } from "../../examples/browser/build.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { launchChromium } from "../support/chromium.js";
import { serveStatic } from "../support/static-server.js";
import { CHROMIUM, describeWith } from "../support/system-component.js";

const demoAgent = fileURLToPath(new URL("../../lib/providers/local/demo-agent.mjs", import.meta.url));
const artifacts = fileURLToPath(new URL("../artifacts/", import.meta.url));
const TIMEOUT = 60_000;

describeWith([CHROMIUM])("examples/browser in headless Chromium", () => {
  let page: { server: Server; origin: string } | undefined;
  let agentServer: SandboxAgentServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    await buildBrowserExample();
    page = await serveStatic(browserDir);
    agentServer = await startSandboxAgent({
      agentScript: demoAgent,
      cors: {
        origins: [page.origin],
        methods: ["GET", "POST", "DELETE", "OPTIONS"],
        headers: ["content-type", "accept", "authorization", "last-event-id"],
      },
    });
    browser = await launchChromium();
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await agentServer?.stop();
    await new Promise((resolve) => (page ? page.server.close(resolve) : resolve(undefined)));
  });

  it("connects, streams a turn, asks for permission and renders the answer", async () => {
    if (!browser || !page || !agentServer) throw new Error("setup failed");
    const tab = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    const consoleErrors: string[] = [];
    tab.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    tab.on("pageerror", (error) => consoleErrors.push(error.message));

    await tab.goto(`${page.origin}/index.html?server=${encodeURIComponent(agentServer.baseUrl)}&agent=mock`);
    await tab.click("#connect button[type=submit]");
    await tab.waitForFunction(() => document.querySelector("#status")?.textContent === "Connected.", undefined, { timeout: 15_000 });

    await tab.fill("#prompt-form input[name=prompt]", "quick browser demo");
    await tab.click("#prompt-form button[type=submit]");

    // The agent stops at its edit and waits for the user.
    await tab.waitForSelector("#permission:not([hidden])", { timeout: 15_000 });
    expect(await tab.textContent("#permission-title")).toBe("Write src/greeting.ts");
    // Before approval the answer has not started, but the read tool call already completed.
    expect(await tab.textContent("#answer")).toBe("");
    expect(await tab.getAttribute("#tools li:first-child", "data-status")).toBe("completed");
    await tab.click("#allow");

    await tab.waitForFunction(() => document.querySelector("#stop-reason")?.textContent === "Stop reason: end_turn", undefined, { timeout: 15_000 });
    expect(await tab.isHidden("#permission")).toBe(true);
    const answer = (await tab.textContent("#answer")) ?? "";
    expect(answer).toContain("## Added a greeting helper");
    expect(answer).toContain('// Request: "quick browser demo"');
    expect(await tab.$$eval("#tools li", (items) => items.map((li) => `${li.dataset.title}:${li.dataset.status}`))).toEqual([
      "Read src/index.ts:completed",
      "Write src/greeting.ts:completed",
    ]);
    expect(await tab.$$eval("#plan li", (items) => items.every((li) => li.className === "completed"))).toBe(true);

    mkdirSync(artifacts, { recursive: true });
    await tab.screenshot({ path: join(artifacts, "browser.png"), fullPage: true });
    expect(consoleErrors).toEqual([]);
    await tab.close();
  }, TIMEOUT);
});
