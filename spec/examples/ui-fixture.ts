// The UI example's browser suites share this fixture: the production build served from its own
// loopback origin, the real sandbox-agent server (the demo agent as `mock`, with a token and CORS
// for that origin), headless Chromium, and the page steps and checks the tests repeat.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { seedWorkspace } from "../../examples/ui/workspace.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { launchChromium } from "../support/chromium.js";
import { buildUiExample, pixelStats, serveStatic } from "./ui-support.js";

const demoAgent = fileURLToPath(new URL("../../lib/providers/local/demo-agent.mjs", import.meta.url));
const echoAgent = fileURLToPath(new URL("../support/echo-agent.mjs", import.meta.url));
const artifacts = fileURLToPath(new URL("../artifacts/", import.meta.url));
export const TIMEOUT = 90_000;
export const WAIT = { timeout: 20_000 };
export const TOKEN = "ui-spec-token";
export const VIEWPORT = { width: 1440, height: 900 };

const cors = (origin: string) => ({
  origins: [origin],
  methods: ["GET", "POST", "DELETE", "OPTIONS"],
  headers: ["content-type", "accept", "authorization", "last-event-id"],
});

/** Builds the example once per spec file, into a temporary directory removed after the file. */
export function useUiBuild(): { built: Promise<void>; outDir: () => string } {
  let outDir = "";
  const built = (async () => {
    outDir = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-ui-"));
    await buildUiExample(outDir);
  })();
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));
  return { built, outDir: () => outDir };
}

export interface UiFixture {
  readonly agentServer: SandboxAgentServer;
  readonly browser: Browser;
  /** Console errors and page errors of the tabs; each test must leave it empty (or filter what it expects). */
  readonly errors: string[];
  /** A server whose `mock` is the scripted test agent (modes, models), when asked for. */
  scriptedServer(): SandboxAgentServer;
  /** A server whose `mock` is spec/support/echo-agent.mjs (says what it is told), when asked for. */
  echoServer(): SandboxAgentServer;
  /** A new tab (its errors recorded) on the page with `query`, not connected. */
  open(query: string, viewport?: { width: number; height: number }): Promise<Page>;
  /**
   * A new tab, connected to `server` with the token typed into the form, on the session list. In a
   * context of its own unless `context` is given (tabs of one browser window share storage and locks).
   */
  connected(server: string, context?: BrowserContext, viewport?: { width: number; height: number }): Promise<Page>;
  /** Starts a session from the list's form and waits for its view (another session may be open). */
  newSession(tab: Page, title: string): Promise<void>;
  /** Closes the open session's view: back to the list alone. */
  back(tab: Page): Promise<void>;
  send(tab: Page, text: string): Promise<void>;
  /** Waits for the status line to tell how the last turn ended (`reason` is the protocol's code). */
  stopReason(tab: Page, reason: string): Promise<unknown>;
  /** Saves spec/artifacts/<name> and checks it is not blank. */
  screenshot(tab: Page, name: string): Promise<void>;
}

/** Registers beforeAll/afterAll in the calling describe and returns the fixture's handles. */
export function useUiFixture(
  build: { built: Promise<void>; outDir: () => string },
  options: { scripted?: boolean; echo?: boolean } = {},
): UiFixture {
  let page: { server: Server; origin: string } | undefined;
  let agentServer: SandboxAgentServer | undefined;
  let scripted: SandboxAgentServer | undefined;
  let echo: SandboxAgentServer | undefined;
  let browser: Browser | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    await build.built;
    page = await serveStatic(build.outDir());
    agentServer = await startSandboxAgent({ agentScript: demoAgent, token: TOKEN, cors: cors(page.origin) });
    seedWorkspace(agentServer.home);
    if (options.scripted) scripted = await startSandboxAgent({ token: TOKEN, cors: cors(page.origin) });
    if (options.echo) echo = await startSandboxAgent({ agentScript: echoAgent, token: TOKEN, cors: cors(page.origin) });
    browser = await launchChromium();
    mkdirSync(artifacts, { recursive: true });
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await agentServer?.stop();
    await scripted?.stop();
    await echo?.stop();
    await new Promise((resolve) => (page ? page.server.close(resolve) : resolve(undefined)));
  });

  async function watched(tab: Page, query: string): Promise<Page> {
    tab.on("pageerror", (error) => errors.push(error.message));
    tab.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await tab.goto(`${required(page).origin}/${query}`);
    return tab;
  }
  const open = async (query: string, viewport = VIEWPORT): Promise<Page> =>
    watched(await required(browser).newPage({ viewport }), query);

  const required = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("UI fixture setup failed");
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
    echoServer: () => required(echo),
    open,
    async connected(server, context, viewport = VIEWPORT) {
      const query = `?server=${encodeURIComponent(server)}&agent=mock`;
      const tab = context ? await watched(await context.newPage(), query) : await open(query, viewport);
      await tab.fill("#connect input[name=token]", TOKEN);
      await tab.click("#connect button[type=submit]");
      await tab.waitForSelector("#badge[data-state=connected]", WAIT);
      await tab.waitForSelector("#new-session", WAIT);
      return tab;
    },
    async newSession(tab, title) {
      const before = await openSessionId(tab);
      await tab.fill("#new-session input[name=title]", title);
      await tab.click("#new-session button[type=submit]");
      await tab.waitForFunction(
        (previous) => {
          const shown = document.querySelector(".session-view")?.getAttribute("data-session");
          return shown !== undefined && shown !== null && shown !== previous && document.querySelector("#composer") !== null;
        },
        before,
        WAIT,
      );
    },
    async back(tab) {
      await tab.click("#close-view");
      await tab.waitForSelector(".empty-main", WAIT);
    },
    async send(tab, text) {
      await tab.fill("#composer textarea", text);
      await tab.press("#composer textarea", "Enter");
    },
    stopReason: (tab, reason) => tab.waitForSelector(`#stop-reason[data-stop-reason="${reason}"]`, WAIT),
    async screenshot(tab, name) {
      const png = await tab.screenshot({ path: join(artifacts, name) });
      const stats = await pixelStats(tab, png);
      expect(stats.width).toBe(tab.viewportSize()?.width);
      // A blank or single-colour page has a deviation near 0 and a handful of colours.
      expect(stats.deviation).toBeGreaterThan(20);
      expect(stats.colours).toBeGreaterThan(50);
    },
  };
}

const openSessionId = (tab: Page): Promise<string | null> =>
  tab.evaluate(() => document.querySelector(".session-view")?.getAttribute("data-session") ?? null);

export async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
