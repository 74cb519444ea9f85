// examples/web (Vite build, no framework) in real headless Chromium against the real sandbox-agent
// 0.4.2 server with the demo agent, served from its own loopback origin (every SDK call is a CORS
// one): a turn with a permission, a cancelled permission, a dropped event stream (badge
// "reconnecting", then recovery), and `npm run web` itself. Screenshots go to spec/artifacts/.
// The panels (terminal, files, logs, pickers) are in web-panels.spec.ts.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startStreamOutageProxy, type StreamOutageProxy } from "../support/stream-outage-proxy.js";
import { CHROMIUM, describeWith } from "../support/system-component.js";
import { TIMEOUT, TOKEN, useWebBuild, useWebFixture, WAIT, waitUntil } from "./web-fixture.js";

const build = useWebBuild();

describe("examples/web production bundle", () => {
  it("has no node: imports and no require() (browser-only code)", async () => {
    await build.built;
    const assets = join(build.outDir(), "assets");
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
  const web = useWebFixture(build);
  let proxy: StreamOutageProxy | undefined;
  // Chromium logs the stream the outage test cuts on purpose; only that test may see it.
  let allowCutStream = false;

  beforeAll(async () => {
    proxy = await startStreamOutageProxy(web.agentServer.baseUrl);
  }, TIMEOUT);
  afterAll(() => proxy?.stop());

  afterEach(() => {
    const expected = (e: string): boolean => allowCutStream && e.includes("ERR_INCOMPLETE_CHUNKED_ENCODING");
    const unexpected = web.errors.splice(0).filter((e) => !expected(e));
    allowCutStream = false;
    expect(unexpected).toEqual([]);
  });

  it("runs a turn: plan, thought, tool calls with a diff, a permission, the markdown answer", async () => {
    const tab = await web.connected(web.agentServer.baseUrl);
    expect(await tab.textContent(".sessions .empty")).toContain("No sessions yet");
    await web.newSession(tab, "Greeting helper");
    await web.send(tab, "quick add a greeting helper");

    await tab.waitForSelector("#permission[open]", WAIT);
    expect(await tab.textContent("#permission-title")).toBe("Write src/greeting.ts");
    const choices = await tab.$$eval("#permission button", (b) => b.map((x) => x.textContent));
    expect(choices).toEqual(["Allow", "Always allow", "Reject"]);
    expect(await tab.getAttribute(".item.tool >> nth=0", "data-status")).toBe("completed");
    await web.screenshot(tab, "web-permission.png");
    await tab.click("#permission button[data-kind=allow_once]");

    await web.stopReason(tab, "end_turn");
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
    const plan = await tab.$$eval(".item.plan li", (li) => li.map((x) => x.className));
    expect(plan).toEqual(Array(3).fill("plan-completed"));
    await web.screenshot(tab, "web-turn.png");

    // The session list shows it with its metadata.
    await tab.click("text=← Sessions");
    await tab.waitForSelector(".session-table tr[data-session]", WAIT);
    const row = await tab.textContent(".session-table tbody tr");
    expect(row).toContain("Greeting helper");
    // Started in the server's home (fs.stat(".")), which the browser SDK has no other way to know.
    expect(row).toContain(web.agentServer.home);
    expect(row).toContain("live");
    await web.screenshot(tab, "web-sessions.png");
    await tab.close();
  }, TIMEOUT);

  it("closes the permission dialog by itself when the turn is cancelled", async () => {
    const tab = await web.connected(web.agentServer.baseUrl);
    await web.newSession(tab, "Cancelled turn");
    await web.send(tab, "add a helper, then I cancel");
    await tab.waitForSelector("#permission[open]", WAIT);
    await tab.click("#cancel");
    await tab.waitForSelector("#permission", { ...WAIT, state: "hidden" });
    await web.stopReason(tab, "cancelled");
    // The stop reason is written when the prompt settles; the transcript is drawn on the next
    // animation frame, which a loaded machine can hold back: wait (bounded) for the tool's row.
    await tab
      .waitForFunction(() => document.querySelectorAll(".item.tool")[1]?.getAttribute("data-status") === "failed", undefined, WAIT)
      .catch(() => undefined);
    expect(await tab.getAttribute(".item.tool >> nth=1", "data-status")).toBe("failed");
    await tab.close();
  }, TIMEOUT);

  it("shows 'reconnecting' while the event stream is down, then recovers and finishes the turn", async () => {
    const tab = await web.connected(proxy!.baseUrl);
    await web.newSession(tab, "Dropped stream");
    await web.send(tab, "add a greeting helper despite the outage");
    await tab.waitForSelector(".item.plan", WAIT);
    allowCutStream = true;
    expect(proxy!.drop()).toBeGreaterThan(0);
    await tab.waitForSelector("#badge[data-state=reconnecting]", WAIT);
    await web.screenshot(tab, "web-reconnecting.png");
    // The client's reconnect attempt is now waiting at the proxy.
    await waitUntil(() => proxy!.heldRequests() > 0);
    proxy!.restore();
    await tab.waitForSelector("#badge[data-state=connected]", WAIT);
    await tab.waitForSelector("#permission[open]", WAIT);
    await tab.click("#permission button[data-kind=allow_once]");
    await web.stopReason(tab, "end_turn");
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

  it("reloads mid-turn and resumes from IndexedDB: the transcript comes back and the turn finishes", async () => {
    const tab = await web.connected(web.agentServer.baseUrl);
    await web.newSession(tab, "Reload mid-turn");
    await web.send(tab, "add a greeting helper across a reload");
    await tab.waitForSelector(".item.thought", WAIT);
    await tab.reload();
    await tab.fill("#connect input[name=token]", TOKEN);
    await tab.click("#connect button[type=submit]");
    // Straight back to the session (remembered by the tab), its history read from IndexedDB.
    await tab.waitForSelector("#composer", WAIT);
    await tab.waitForSelector(".item.user >> text=add a greeting helper across a reload", WAIT);
    await tab.waitForSelector(".item.plan", WAIT);
    // The turn went on while the page was gone; its permission request reaches the new page.
    await tab.waitForSelector("#permission[open]", WAIT);
    await tab.click("#permission button[data-kind=allow_once]");
    const finished = () => document.querySelector(".item.message")?.textContent?.includes("Run the tests");
    await tab.waitForFunction(finished, undefined, WAIT);
    for (const kind of ["user", "plan", "thought", "message"]) {
      expect(await tab.locator(`.item.${kind}`).count()).toBe(1);
    }
    const thought = (await tab.textContent(".item.thought .thought-text")) ?? "";
    expect(thought.match(/The request is/g)).toHaveLength(1);
    await web.screenshot(tab, "web-resumed.png");
    await tab.close();
  }, TIMEOUT);

  it("gives each tab's new session an id of its own (each connection runs its own agent process)", async () => {
    const tabs = [await web.connected(web.agentServer.baseUrl), await web.connected(web.agentServer.baseUrl)];
    const ids: string[] = [];
    for (const [i, tab] of tabs.entries()) {
      await web.newSession(tab, `Tab ${i + 1}`);
      ids.push((await tab.getAttribute(".session-page", "data-session")) ?? "");
    }
    expect(ids[0]).not.toBe("");
    expect(new Set(ids).size).toBe(2);
    for (const [i, tab] of tabs.entries()) {
      await tab.click("text=← Sessions");
      await tab.waitForSelector(`.session-table tr[data-session="${ids[i]!}"]`, WAIT);
      await tab.close();
    }
  }, TIMEOUT);

  it("keeps the token for the tab across a reload, never in the address bar", async () => {
    // Typed into the form: a reload prefills it and connects with it.
    const typed = await web.connected(web.agentServer.baseUrl);
    const origin = new URL(typed.url()).origin;
    await typed.reload();
    expect(typed.url()).not.toContain(TOKEN);
    expect(await typed.inputValue("#connect input[name=token]")).toBe(TOKEN);
    await typed.click("#connect button[type=submit]");
    await typed.waitForSelector("#badge[data-state=connected]", WAIT);
    await typed.waitForSelector("#new-session", WAIT);
    await typed.close();

    // Given in the fragment: removed from the address bar at once, still there after a reload.
    const linked = await web.browser.newPage({ viewport: { width: 1440, height: 900 } });
    linked.on("pageerror", (error) => web.errors.push(error.message));
    const query = `?server=${encodeURIComponent(web.agentServer.baseUrl)}&agent=mock`;
    await linked.goto(`${origin}/${query}#token=${TOKEN}`);
    expect(linked.url()).toBe(`${origin}/${query}`);
    await linked.reload();
    expect(linked.url()).toBe(`${origin}/${query}`);
    await linked.click("#connect button[type=submit]");
    await linked.waitForSelector("#badge[data-state=connected]", WAIT);
    expect(await linked.locator("#connect-error").count()).toBe(0);
    await linked.close();
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
      const tab = await web.browser.newPage({ viewport: { width: 1440, height: 900 } });
      tab.on("pageerror", (error) => web.errors.push(error.message));
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
