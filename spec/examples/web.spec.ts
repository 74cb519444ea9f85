// examples/web (Vite build, no framework) in real headless Chromium against the real sandbox-agent
// 0.4.2 server with the demo agent, served from its own loopback origin (every SDK call is a CORS
// one): a turn with a permission, a cancelled permission, the terminal, files and logs panels, and
// a dropped event stream (badge "reconnecting", then recovery). Screenshots go to spec/artifacts/.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { seedWorkspace } from "../../examples/web/workspace.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { startStreamOutageProxy, type StreamOutageProxy } from "../support/stream-outage-proxy.js";
import { CHROMIUM, chromiumExecutable, describeWith } from "../support/system-component.js";
import { buildWebExample, CHROMIUM_ARGS, pixelStats, serveStatic } from "./web-support.js";

const demoAgent = fileURLToPath(new URL("../../examples/demo/demo-agent.mjs", import.meta.url));
const artifacts = fileURLToPath(new URL("../artifacts/", import.meta.url));
const TIMEOUT = 90_000;
const WAIT = { timeout: 20_000 };
const TOKEN = "web-spec-token";

let outDir: string;
const built = (async () => {
  outDir = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-web-"));
  await buildWebExample(outDir);
})();
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("examples/web production bundle", () => {
  it("has no node: imports and no require() (browser-only code)", async () => {
    await built;
    const assets = join(outDir, "assets");
    const scripts = readdirSync(assets).filter((name) => name.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(0);
    for (const name of scripts) {
      const code = readFileSync(join(assets, name), "utf8");
      expect(code.match(/["'`]node:[\w/]+["'`]/g) ?? []).toEqual([]);
      expect(code).not.toMatch(/\brequire\(["'`]/);
    }
  }, TIMEOUT);
});

describeWith([CHROMIUM])("examples/web in headless Chromium", () => {
  let page: { server: import("node:http").Server; origin: string } | undefined;
  let agentServer: SandboxAgentServer | undefined;
  let proxy: StreamOutageProxy | undefined;
  let browser: Browser | undefined;
  const errors: string[] = [];
  // Chromium logs the stream the outage test cuts on purpose; only that test may see it.
  let allowCutStream = false;

  beforeAll(async () => {
    await built;
    page = await serveStatic(outDir);
    agentServer = await startSandboxAgent({
      agentScript: demoAgent,
      token: TOKEN,
      cors: {
        origins: [page.origin],
        methods: ["GET", "POST", "DELETE", "OPTIONS"],
        headers: ["content-type", "accept", "authorization", "last-event-id"],
      },
    });
    seedWorkspace(agentServer.home);
    proxy = await startStreamOutageProxy(agentServer.baseUrl);
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });
    mkdirSync(artifacts, { recursive: true });
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await proxy?.stop();
    await agentServer?.stop();
    await new Promise((resolve) => (page ? page.server.close(resolve) : resolve(undefined)));
  });

  afterEach(() => {
    const unexpected = errors.splice(0).filter((e) => !(allowCutStream && e.includes("ERR_INCOMPLETE_CHUNKED_ENCODING")));
    allowCutStream = false;
    expect(unexpected).toEqual([]);
  });

  /** A new tab, connected to `server` with the token typed into the form, on the session list. */
  async function connected(server: string): Promise<Page> {
    if (!browser || !page) throw new Error("setup failed");
    const tab = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    tab.on("pageerror", (error) => errors.push(error.message));
    tab.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await tab.goto(`${page.origin}/?server=${encodeURIComponent(server)}&agent=mock`);
    await tab.fill("#connect input[name=token]", TOKEN);
    await tab.click("#connect button[type=submit]");
    await tab.waitForSelector("#badge[data-state=connected]", WAIT);
    await tab.waitForSelector("#new-session", WAIT);
    return tab;
  }

  async function newSession(tab: Page, title: string): Promise<void> {
    await tab.fill("#new-session input[name=title]", title);
    await tab.click("#new-session button[type=submit]");
    await tab.waitForSelector("#composer", WAIT);
  }

  async function send(tab: Page, text: string): Promise<void> {
    await tab.fill("#composer textarea", text);
    await tab.press("#composer textarea", "Enter");
  }

  async function screenshot(tab: Page, name: string): Promise<void> {
    const png = await tab.screenshot({ path: join(artifacts, name) });
    const stats = await pixelStats(tab, png);
    expect(stats.width).toBe(1440);
    // A blank or single-colour page has a deviation near 0 and a handful of colours.
    expect(stats.deviation).toBeGreaterThan(20);
    expect(stats.colours).toBeGreaterThan(50);
  }

  const stopReason = (tab: Page, reason: string) =>
    tab.waitForFunction((r) => document.querySelector("#stop-reason")?.textContent === `Stop reason: ${r}`, reason, WAIT);

  it("runs a turn: plan, thought, tool calls with a diff, a permission, the markdown answer", async () => {
    const tab = await connected(agentServer!.baseUrl);
    expect(await tab.textContent(".sessions .empty")).toContain("No sessions yet");
    await newSession(tab, "Greeting helper");
    await send(tab, "quick add a greeting helper");

    await tab.waitForSelector("#permission[open]", WAIT);
    expect(await tab.textContent("#permission-title")).toBe("Write src/greeting.ts");
    expect(await tab.$$eval("#permission button", (b) => b.map((x) => x.textContent))).toEqual(["Allow", "Always allow", "Reject"]);
    expect(await tab.getAttribute(".item.tool >> nth=0", "data-status")).toBe("completed");
    await screenshot(tab, "web-permission.png");
    await tab.click("#permission button[data-kind=allow_once]");

    await stopReason(tab, "end_turn");
    expect(await tab.isHidden("#permission")).toBe(true);
    // The answer's chunks coalesced into one message, rendered as markdown (heading, list, code).
    expect(await tab.locator(".item.message").count()).toBe(1);
    expect(await tab.textContent(".item.message h2")).toBe("Added a greeting helper");
    expect(await tab.locator(".item.message li").count()).toBe(3);
    expect(await tab.textContent(".item.message pre code")).toContain('// Request: "quick add a greeting helper"');
    // Thoughts are one collapsed item.
    expect(await tab.locator(".item.thought").count()).toBe(1);
    expect(await tab.$eval(".item.thought details", (d) => (d as HTMLDetailsElement).open)).toBe(false);
    const tools = await tab.$$eval(".item.tool", (items) => items.map((i) => `${i.dataset.title}:${i.dataset.status}`));
    expect(tools).toEqual(["Read src/index.ts:completed", "Write src/greeting.ts:completed"]);
    expect(await tab.locator(".item.tool .diff-add").count()).toBe(3);
    expect(await tab.$$eval(".item.plan li", (li) => li.map((x) => x.className))).toEqual(Array(3).fill("plan-completed"));
    await screenshot(tab, "web-turn.png");

    // The session list shows it with its metadata.
    await tab.click("text=← Sessions");
    await tab.waitForSelector(".session-table tr[data-session]", WAIT);
    const row = await tab.textContent(".session-table tbody tr");
    expect(row).toContain("Greeting helper");
    // Started in the server's home (fs.stat(".")), which the browser SDK has no other way to know.
    expect(row).toContain(agentServer!.home);
    expect(row).toContain("live");
    await screenshot(tab, "web-sessions.png");
    await tab.close();
  }, TIMEOUT);

  it("closes the permission dialog by itself when the turn is cancelled", async () => {
    const tab = await connected(agentServer!.baseUrl);
    await newSession(tab, "Cancelled turn");
    await send(tab, "add a helper, then I cancel");
    await tab.waitForSelector("#permission[open]", WAIT);
    await tab.click("#cancel");
    await tab.waitForSelector("#permission", { ...WAIT, state: "hidden" });
    await stopReason(tab, "cancelled");
    expect(await tab.getAttribute(".item.tool >> nth=1", "data-status")).toBe("failed");
    await tab.close();
  }, TIMEOUT);

  it("runs a shell command in the terminal panel (xterm.js over processes.terminal)", async () => {
    const tab = await connected(agentServer!.baseUrl);
    await newSession(tab, "Terminal");
    await tab.waitForSelector(".terminal-panel[data-ready=true]", WAIT);
    await tab.click("#terminal");
    await tab.keyboard.type("echo $((6 * 7))-from-the-web-terminal\n");
    // The echo of the typed line holds "$((6 * 7))"; only the command's output holds "42-".
    await tab.waitForFunction(
      () => document.querySelector("#terminal .xterm-rows")?.textContent?.includes("42-from-the-web-terminal"),
      undefined,
      WAIT,
    );
    await screenshot(tab, "web-terminal.png");
    await tab.close();
  }, TIMEOUT);

  it("shows the file tree and a file (fs) and a process's followed log (logs$)", async () => {
    const tab = await connected(agentServer!.baseUrl);
    await newSession(tab, "Files and logs");
    await tab.click(".tabs button[data-tab=Files]");
    await tab.waitForSelector("#file-tree .tree-label.dir", WAIT);
    const names = await tab.$$eval("#file-tree > li > .tree-label", (labels) => labels.map((l) => l.textContent));
    expect(names).toEqual(expect.arrayContaining(["▸ src", "· README.md", "· package.json"]));
    await tab.click("#file-tree .tree-label.dir >> text=src");
    await tab.click("text=· index.ts");
    await tab.waitForFunction(() => document.querySelector("#file-preview")?.textContent?.includes("greet(\"world\")"), undefined, WAIT);
    await screenshot(tab, "web-files.png");

    await tab.click(".tabs button[data-tab=Logs]");
    await tab.fill(".logs-panel input", "printf logs-line-one\\nlogs-line-two\\n");
    await tab.click(".logs-panel button[type=submit]");
    await tab.waitForFunction(() => document.querySelector("#log-output")?.textContent?.includes("— exited —"), undefined, WAIT);
    expect(await tab.textContent("#log-output")).toContain("logs-line-one\nlogs-line-two\n");
    await tab.waitForSelector("#process-list li.selected >> text=exit 0", WAIT);
    await screenshot(tab, "web-logs.png");
    await tab.close();
  }, TIMEOUT);

  it("shows 'reconnecting' while the event stream is down, then recovers and finishes the turn", async () => {
    const tab = await connected(proxy!.baseUrl);
    await newSession(tab, "Dropped stream");
    await send(tab, "add a greeting helper despite the outage");
    await tab.waitForSelector(".item.plan", WAIT);
    allowCutStream = true;
    expect(proxy!.drop()).toBeGreaterThan(0);
    await tab.waitForSelector("#badge[data-state=reconnecting]", WAIT);
    await screenshot(tab, "web-reconnecting.png");
    // The client's reconnect attempt is now waiting at the proxy.
    await waitUntil(() => proxy!.heldRequests() > 0);
    proxy!.restore();
    await tab.waitForSelector("#badge[data-state=connected]", WAIT);
    await tab.waitForSelector("#permission[open]", WAIT);
    await tab.click("#permission button[data-kind=allow_once]");
    await stopReason(tab, "end_turn");
    // Resumed from Last-Event-ID: nothing lost, nothing twice.
    expect(await tab.locator(".notice-warn").count()).toBe(0);
    expect(await tab.locator(".item.message").count()).toBe(1);
    expect(await tab.locator(".item.thought").count()).toBe(1);
    expect(await tab.textContent(".item.message h2")).toBe("Added a greeting helper");
    expect(await tab.textContent(".item.message")).toContain("Run the tests to check the new helper.");
    const thought = (await tab.textContent(".item.thought .thought-text")) ?? "";
    expect(thought.match(/The request is/g)).toHaveLength(1);
    await tab.close();
  }, TIMEOUT);

  it("npm run web: the Vite dev server and a local server with the demo agent, token in the fragment", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "examples/web/serve.ts"], {
      cwd: fileURLToPath(new URL("../../", import.meta.url)),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let output = "";
      child.stdout.on("data", (data: Buffer) => (output += data.toString()));
      child.stderr.on("data", (data: Buffer) => (output += data.toString()));
      await waitUntil(() => /^open (\S+)$/m.test(output), 60_000);
      const url = /^open (\S+)$/m.exec(output)![1]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?server=.+&agent=mock#token=[0-9a-f]+$/);
      const tab = await browser!.newPage({ viewport: { width: 1440, height: 900 } });
      tab.on("pageerror", (error) => errors.push(error.message));
      await tab.goto(url);
      // The token came from the fragment, which the page then removed from the address bar.
      expect(new URL(tab.url()).hash).toBe("");
      await tab.click("#connect button[type=submit]");
      await tab.waitForSelector("#badge[data-state=connected]", WAIT);
      await tab.waitForSelector("#new-session", WAIT);
      await tab.close();
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(undefined)));
    }
  }, TIMEOUT);
});

async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
