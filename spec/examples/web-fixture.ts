// The web example's browser suites share this fixture: the production build served from its own
// loopback origin, the real sandbox-agent server (the demo agent as `mock`, with a token and CORS
// for that origin), headless Chromium, and the page steps and checks the tests repeat.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { seedWorkspace } from "../../examples/web/workspace.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { launchChromium } from "../support/chromium.js";
import { buildWebExample, pixelStats, serveStatic } from "./web-support.js";

const demoAgent = fileURLToPath(new URL("../../lib/providers/local/demo-agent.mjs", import.meta.url));
const artifacts = fileURLToPath(new URL("../artifacts/", import.meta.url));
export const TIMEOUT = 90_000;
export const WAIT = { timeout: 20_000 };
export const TOKEN = "web-spec-token";

const cors = (origin: string) => ({
  origins: [origin],
  methods: ["GET", "POST", "DELETE", "OPTIONS"],
  headers: ["content-type", "accept", "authorization", "last-event-id"],
});

/** Builds the example once per spec file, into a temporary directory removed after the file. */
export function useWebBuild(): { built: Promise<void>; outDir: () => string } {
  let outDir = "";
  const built = (async () => {
    outDir = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-web-"));
    await buildWebExample(outDir);
  })();
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));
  return { built, outDir: () => outDir };
}

export interface WebFixture {
  readonly agentServer: SandboxAgentServer;
  readonly browser: Browser;
  /** Console errors and page errors of the tabs; each test must leave it empty (or filter what it expects). */
  readonly errors: string[];
  /** A server whose `mock` is the scripted test agent (modes, models), when asked for. */
  scriptedServer(): SandboxAgentServer;
  /**
   * A new tab, connected to `server` with the token typed into the form, on the session list. In a
   * context of its own unless `context` is given (tabs of one browser window share storage and locks).
   */
  connected(server: string, context?: BrowserContext): Promise<Page>;
  newSession(tab: Page, title: string): Promise<void>;
  send(tab: Page, text: string): Promise<void>;
  stopReason(tab: Page, reason: string): Promise<unknown>;
  /** Saves spec/artifacts/<name> and checks it is not blank. */
  screenshot(tab: Page, name: string): Promise<void>;
}

/** Registers beforeAll/afterAll in the calling describe and returns the fixture's handles. */
export function useWebFixture(
  build: { built: Promise<void>; outDir: () => string },
  options: { scripted?: boolean } = {},
): WebFixture {
  let page: { server: Server; origin: string } | undefined;
  let agentServer: SandboxAgentServer | undefined;
  let scripted: SandboxAgentServer | undefined;
  let browser: Browser | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    await build.built;
    page = await serveStatic(build.outDir());
    agentServer = await startSandboxAgent({ agentScript: demoAgent, token: TOKEN, cors: cors(page.origin) });
    seedWorkspace(agentServer.home);
    if (options.scripted) scripted = await startSandboxAgent({ token: TOKEN, cors: cors(page.origin) });
    browser = await launchChromium();
    mkdirSync(artifacts, { recursive: true });
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await agentServer?.stop();
    await scripted?.stop();
    await new Promise((resolve) => (page ? page.server.close(resolve) : resolve(undefined)));
  });

  const required = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("web fixture setup failed");
    return value;
  };

  return {
    get agentServer() {
      return required(agentServer);
    },
    get browser() {
      return required(browser);
    },
    errors,
    scriptedServer: () => required(scripted),
    async connected(server, context) {
      const viewport = { width: 1440, height: 900 };
      const tab = await (context ? context.newPage() : required(browser).newPage({ viewport }));
      tab.on("pageerror", (error) => errors.push(error.message));
      tab.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await tab.goto(`${required(page).origin}/?server=${encodeURIComponent(server)}&agent=mock`);
      await tab.fill("#connect input[name=token]", TOKEN);
      await tab.click("#connect button[type=submit]");
      await tab.waitForSelector("#badge[data-state=connected]", WAIT);
      await tab.waitForSelector("#new-session", WAIT);
      return tab;
    },
    async newSession(tab, title) {
      await tab.fill("#new-session input[name=title]", title);
      await tab.click("#new-session button[type=submit]");
      await tab.waitForSelector("#composer", WAIT);
    },
    async send(tab, text) {
      await tab.fill("#composer textarea", text);
      await tab.press("#composer textarea", "Enter");
    },
    stopReason: (tab, reason) =>
      tab.waitForFunction(
        (r) => document.querySelector("#stop-reason")?.textContent === `Stop reason: ${r}`,
        reason,
        WAIT,
      ),
    async screenshot(tab, name) {
      const png = await tab.screenshot({ path: join(artifacts, name) });
      const stats = await pixelStats(tab, png);
      expect(stats.width).toBe(1440);
      // A blank or single-colour page has a deviation near 0 and a handful of colours.
      expect(stats.deviation).toBeGreaterThan(20);
      expect(stats.colours).toBeGreaterThan(50);
    },
  };
}

export async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
