// examples/react (Vite build, the react subpath's hooks, @tanstack/react-virtual) in real headless
// Chromium: a turn with a permission against the real sandbox-agent 0.4.2 server and the demo agent,
// served from its own loopback origin (every SDK call is a CORS one), the terminal pane, a reload mid-turn (the same
// transcript back from IndexedDB, the token kept by the tab), a dropped event stream (the badge says
// "reconnecting", then the turn finishes), and a 10,000-entry transcript that keeps only
// the rows in view in the DOM. Screenshots go to spec/artifacts/ and must not be blank.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { seedWorkspace } from "../../examples/web/workspace.js";
import { launchChromium } from "../support/chromium.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { startStreamOutageProxy, type StreamOutageProxy } from "../support/stream-outage-proxy.js";
import { CHROMIUM, describeWith } from "../support/system-component.js";
import { pixelStats, serveStatic } from "./web-support.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const demoAgent = join(repo, "lib/providers/local/demo-agent.mjs");
const artifacts = join(repo, "spec/artifacts");
const TIMEOUT = 120_000;
const WAIT = { timeout: 20_000 };
const TOKEN = "react-spec-token";

let outDir = "";
const built = (async () => {
  outDir = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-react-"));
  // A child process: Vite and its native bundler stay out of jest.
  const vite = join(repo, "node_modules/vite/bin/vite.js");
  const config = join(repo, "examples/react/vite.config.ts");
  await promisify(execFile)(process.execPath, [vite, "build", "--config", config, "--outDir", outDir], { cwd: repo, timeout: 120_000 });
})();
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("examples/react production bundle", () => {
  it("has no node: imports and no require() (browser-only code)", async () => {
    await built;
    const scripts = readdirSync(join(outDir, "assets")).filter((name) => name.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(0);
    for (const name of scripts) {
      const code = readFileSync(join(outDir, "assets", name), "utf8");
      expect(code.match(/["'`]node:[\w/]+["'`]/g) ?? []).toEqual([]);
      expect(code).not.toMatch(/\brequire\(["'`]/);
    }
  }, TIMEOUT);
});

describeWith([CHROMIUM])("examples/react in headless Chromium", () => {
  let page: { server: Server; origin: string } | undefined;
  let agent: SandboxAgentServer | undefined;
  let browser: Browser | undefined;
  let proxy: StreamOutageProxy | undefined;
  const errors: string[] = [];
  // Chromium logs the stream the outage test cuts on purpose; only that test may see it.
  let allowCutStream = false;

  beforeAll(async () => {
    await built;
    page = await serveStatic(outDir);
    const cors = { origins: [page.origin], methods: ["GET", "POST", "DELETE", "OPTIONS"], headers: ["content-type", "accept", "authorization", "last-event-id"] };
    agent = await startSandboxAgent({ agentScript: demoAgent, token: TOKEN, cors });
    seedWorkspace(agent.home);
    proxy = await startStreamOutageProxy(agent.baseUrl);
    browser = await launchChromium();
    mkdirSync(artifacts, { recursive: true });
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await proxy?.stop();
    await agent?.stop();
    await new Promise((resolve) => (page ? page.server.close(resolve) : resolve(undefined)));
  });

  afterEach(() => {
    const expected = (e: string): boolean => allowCutStream && e.includes("ERR_INCOMPLETE_CHUNKED_ENCODING");
    const unexpected = errors.splice(0).filter((e) => !expected(e));
    allowCutStream = false;
    expect(unexpected).toEqual([]);
  });
  const connect = async (server: string): Promise<Page> => {
    const tab = await open(`?server=${encodeURIComponent(server)}&agent=mock`);
    await tab.fill("#connect input[name=token]", TOKEN);
    await tab.click("#connect button[type=submit]");
    await tab.waitForSelector("#composer", WAIT);
    await tab.waitForSelector("#badge[data-state=connected]", WAIT);
    return tab;
  };
  const send = async (tab: Page, text: string) => {
    await tab.fill("#composer textarea", text);
    await tab.press("#composer textarea", "Enter");
  };
  const stopReason = (tab: Page, reason: string) =>
    tab.waitForFunction((r) => document.querySelector("#status")?.textContent?.startsWith(`Stop reason: ${r}`), reason, WAIT);

  const open = async (query: string): Promise<Page> => {
    const tab = await (browser as Browser).newPage({ viewport: { width: 1280, height: 860 } });
    tab.on("pageerror", (error) => errors.push(error.message));
    tab.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await tab.goto(`${page?.origin}/${query}`);
    return tab;
  };
  const screenshot = async (tab: Page, name: string) => {
    const png = await tab.screenshot({ path: join(artifacts, name) });
    const stats = await pixelStats(tab, png);
    expect(stats.deviation).toBeGreaterThan(20);
    expect(stats.colours).toBeGreaterThan(30);
  };

  it("runs a turn: the permission card answers the agent, tool cards show the diff, the answer streams in", async () => {
    const tab = await connect(agent!.baseUrl);
    await send(tab, "quick add a greeting helper");

    await tab.waitForSelector("#permission", WAIT);
    expect(await tab.textContent("#permission-title")).toBe("Write src/greeting.ts");
    expect(await tab.$$eval("#permission button", (b) => b.map((x) => x.getAttribute("data-kind")))).toEqual([
      "allow_once", "allow_always", "reject_once",
    ]);
    await screenshot(tab, "react-permission.png");
    await tab.click("#permission button[data-kind=allow_once]");

    await stopReason(tab, "end_turn");
    expect(await tab.$("#permission")).toBeNull();
    const tools = await tab.$$eval("[data-kind=tool-call] .tool", (t) => t.map((x) => `${x.getAttribute("data-title")}:${x.getAttribute("data-status")}`));
    expect(tools).toEqual(["Read src/index.ts:completed", "Write src/greeting.ts:completed"]);
    expect(await tab.locator("[data-kind=tool-call] .diff-add").count()).toBeGreaterThan(0);
    expect(await tab.textContent("[data-kind=agent-message]")).toContain("Added a greeting helper");
    expect(await tab.textContent("[data-kind=permission]")).toContain("selected (");
    expect(await tab.locator("[data-kind=user-message]").count()).toBe(1);
    await screenshot(tab, "react-turn.png");
    await tab.close();
  }, TIMEOUT);

  it("runs a shell command in the terminal pane, and ends the shell when the pane closes", async () => {
    const tab = await connect(agent!.baseUrl);
    await tab.click("#terminal-toggle");
    await tab.waitForSelector(".terminal-pane[data-ready=true]", WAIT);
    const shell = ((await tab.textContent("#terminal-status")) ?? "").split(" ")[0];
    await tab.click("#terminal");
    await tab.keyboard.type("echo $((6 * 7))-from-the-react-terminal\n");
    await tab.waitForFunction(
      () => document.querySelector("#terminal .xterm-rows")?.textContent?.includes("42-from-the-react-terminal"),
      undefined,
      WAIT,
    );
    await screenshot(tab, "react-terminal.png");
    // The pane's shell is gone with it (the processes API lists it as exited).
    const listed = async () => {
      const response = await fetch(`${agent!.baseUrl}/v1/processes`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const body = (await response.json()) as { processes?: Array<{ id: string; status: string }> };
      return body.processes?.find((p) => p.id === shell)?.status;
    };
    expect(await listed()).toBe("running");
    await tab.click("#terminal-toggle");
    for (let waited = 0; (await listed()) === "running" && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    expect(await listed()).not.toBe("running");
    await tab.close();
  }, TIMEOUT);

  it("reloads mid-turn: the same transcript comes back from IndexedDB without asking for the token, and the turn finishes", async () => {
    const tab = await connect(agent!.baseUrl);
    await send(tab, "add a greeting helper across a reload");
    await tab.waitForSelector("[data-kind=thought]", WAIT);
    const ids = () => tab.$$eval("[data-entry]", (rows) => rows.map((row) => row.getAttribute("data-entry")));
    const before = await ids();
    expect(before.slice(0, 2)).toEqual([expect.stringMatching(/^user:/), expect.stringMatching(/^plan:/)]);
    await tab.reload();
    // Straight back to the session: the tab remembered the server, the token and the session.
    await tab.waitForSelector("#composer", WAIT);
    await tab.waitForSelector("[data-kind=user-message] >> text=add a greeting helper across a reload", WAIT);
    await tab.waitForSelector("[data-kind=thought]", WAIT);
    // The turn went on while the page was gone; its permission request reaches the new page.
    await tab.waitForSelector("#permission", WAIT);
    expect((await ids()).slice(0, before.length)).toEqual(before);
    await tab.click("#permission button[data-kind=allow_once]");
    await tab.waitForFunction(
      () => document.querySelector("[data-kind=agent-message]")?.textContent?.includes("Run the tests"),
      undefined,
      WAIT,
    );
    for (const kind of ["user-message", "plan", "thought", "agent-message"]) {
      expect(await tab.locator(`[data-kind=${kind}]`).count()).toBe(1);
    }
    expect(((await tab.textContent("[data-kind=thought]")) ?? "").match(/The request is/g)).toHaveLength(1);
    await screenshot(tab, "react-reloaded.png");
    await tab.close();
  }, TIMEOUT);

  it("shows 'reconnecting' while the event stream is down, then recovers and finishes the turn", async () => {
    const tab = await connect(proxy!.baseUrl);
    await send(tab, "add a greeting helper despite the outage");
    await tab.waitForSelector("[data-kind=plan]", WAIT);
    allowCutStream = true;
    expect(proxy!.drop()).toBeGreaterThan(0);
    await tab.waitForSelector("#badge[data-state=reconnecting]", WAIT);
    await screenshot(tab, "react-reconnecting.png");
    // The client's reconnect attempt is now waiting at the proxy.
    for (let waited = 0; proxy!.heldRequests() === 0 && waited < 20_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(proxy!.heldRequests()).toBeGreaterThan(0);
    proxy!.restore();
    await tab.waitForSelector("#badge[data-state=connected]", WAIT);
    await tab.waitForSelector("#permission", WAIT);
    await tab.click("#permission button[data-kind=allow_once]");
    await stopReason(tab, "end_turn");
    // Resumed from Last-Event-ID: nothing lost, nothing twice.
    expect(await tab.locator("[data-kind=events-lost]").count()).toBe(0);
    expect(await tab.locator("[data-kind=agent-message]").count()).toBe(1);
    expect(await tab.locator("[data-kind=thought]").count()).toBe(1);
    expect(await tab.textContent("[data-kind=agent-message]")).toContain("Run the tests to check the new helper.");
    await tab.close();
  }, TIMEOUT);

  it("renders a 10,000-entry transcript with only the rows in view in the DOM, at the bottom and after scrolling to the top", async () => {
    const tab = await open("?demo=10000");
    await tab.waitForSelector("#demo-size", WAIT);
    expect(await tab.textContent("#demo-size")).toBe("10000 entries");
    // It follows the bottom: the last entry is rendered.
    await tab.waitForSelector("[data-index='9999']", WAIT);
    const rows = () => tab.locator("[data-entry]").count();
    const nodes = () => tab.evaluate(() => document.getElementsByTagName("*").length);
    expect(await rows()).toBeLessThan(60);
    expect(await nodes()).toBeLessThan(1000);
    await tab.$eval("#transcript", (element) => element.scrollTo({ top: 0 }));
    await tab.waitForSelector("[data-index='0']", WAIT);
    expect(await tab.$("[data-index='9999']")).toBeNull();
    expect(await rows()).toBeLessThan(60);
    await screenshot(tab, "react-10000.png");
    await tab.close();
  }, TIMEOUT);
});
