// examples/ui (Vite build, the react subpath's hooks) in real headless Chromium against the real
// sandbox-agent 0.4.2 server with the demo agent, served from its own loopback origin (every SDK call
// is a CORS one): a turn with a permission, a cancelled permission, a dropped event stream (badge
// "reconnecting", then recovery), a reload mid-turn, and `npm run ui` itself. Screenshots go to
// spec/artifacts/. The panes and pickers are in ui-panels.spec.ts, the rest in ui-features.spec.ts.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startStreamOutageProxy, type StreamOutageProxy } from "../support/stream-outage-proxy.js";
import { CHROMIUM, describeWith } from "../support/system-component.js";
import { TIMEOUT, TOKEN, useUiBuild, useUiFixture, VIEWPORT, WAIT, waitUntil } from "./ui-fixture.js";

const build = useUiBuild();

describe("examples/ui production bundle", () => {
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

describeWith([CHROMIUM])("examples/ui in headless Chromium", () => {
  const ui = useUiFixture(build);
  let proxy: StreamOutageProxy | undefined;
  // Chromium logs the stream the outage test cuts on purpose; only that test may see it.
  let allowCutStream = false;

  beforeAll(async () => {
    proxy = await startStreamOutageProxy(ui.agentServer.baseUrl);
  }, TIMEOUT);
  afterAll(() => proxy?.stop());

  afterEach(() => {
    const expected = (e: string): boolean => allowCutStream && e.includes("ERR_INCOMPLETE_CHUNKED_ENCODING");
    const unexpected = ui.errors.splice(0).filter((e) => !expected(e));
    allowCutStream = false;
    expect(unexpected).toEqual([]);
  });

  it("runs a turn: plan, thought, tool calls with a diff, the permission card, the markdown answer", async () => {
    const tab = await ui.connected(ui.agentServer.baseUrl);
    expect(await tab.textContent(".sessions .empty")).toContain("No sessions yet");
    await ui.newSession(tab, "Greeting helper");
    await ui.send(tab, "quick add a greeting helper");

    await tab.waitForSelector("#permission", WAIT);
    expect(await tab.textContent("#permission-title")).toBe("Write src/greeting.ts");
    const choices = await tab.$$eval("#permission button", (b) => b.map((x) => x.textContent));
    expect(choices).toEqual(["Allow", "Always allow", "Reject"]);
    expect(await tab.$$eval("#permission button", (b) => b.map((x) => x.getAttribute("data-kind")))).toEqual([
      "allow_once", "allow_always", "reject_once",
    ]);
    expect(await tab.getAttribute(".item.tool >> nth=0", "data-status")).toBe("completed");
    await ui.screenshot(tab, "ui-permission.png");
    await tab.click("#permission button[data-kind=allow_once]");

    await ui.stopReason(tab, "end_turn");
    expect(await tab.textContent("#stop-reason")).toBe("Done");
    expect(await tab.locator("#permission").count()).toBe(0);
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
    // How the permission was answered, in words (the option's name, not its kind code).
    expect(await tab.textContent(".item[data-kind=permission]")).toBe("Write src/greeting.ts: you answered “Allow”");
    expect(await tab.locator(".item.user").count()).toBe(1);
    await ui.screenshot(tab, "ui-turn.png");

    // The session list shows it with its metadata.
    await ui.back(tab);
    await tab.waitForSelector(".session-list li[data-session]", WAIT);
    const row = await tab.textContent(".session-list li[data-session]");
    expect(row).toContain("Greeting helper");
    // Started in the server's home (fs.stat(".")), which the browser SDK has no other way to know.
    expect(row).toContain(ui.agentServer.home);
    expect(row).toContain("live");
    await ui.screenshot(tab, "ui-sessions.png");
    await tab.close();
  }, TIMEOUT);

  it("takes the permission card away by itself when the turn is cancelled, and shows the tool as cancelled", async () => {
    const tab = await ui.connected(ui.agentServer.baseUrl);
    await ui.newSession(tab, "Cancelled turn");
    await ui.send(tab, "add a helper, then I cancel");
    await tab.waitForSelector("#permission", WAIT);
    await tab.click("#cancel");
    await tab.waitForSelector("#permission", { ...WAIT, state: "detached" });
    await ui.stopReason(tab, "cancelled");
    expect(await tab.textContent("#stop-reason")).toBe("Cancelled");
    // The agent marks the unfinished edit failed; to the user the cancelled turn cancelled it.
    await tab
      .waitForFunction(() => document.querySelectorAll(".item.tool")[1]?.getAttribute("data-status") === "cancelled", undefined, WAIT)
      .catch(() => undefined);
    expect(await tab.getAttribute(".item.tool >> nth=1", "data-status")).toBe("cancelled");
    expect(await tab.textContent(".item.tool >> nth=1 >> .pill")).toBe("cancelled");
    expect(await tab.textContent(".item[data-kind=turn-end]")).toBe("Cancelled");
    await tab.close();
  }, TIMEOUT);

  it("shows 'reconnecting' while the event stream is down, then recovers and finishes the turn", async () => {
    const tab = await ui.connected(proxy!.baseUrl);
    await ui.newSession(tab, "Dropped stream");
    await ui.send(tab, "add a greeting helper despite the outage");
    await tab.waitForSelector(".item.plan", WAIT);
    allowCutStream = true;
    expect(proxy!.drop()).toBeGreaterThan(0);
    await tab.waitForSelector("#badge[data-state=reconnecting]", WAIT);
    await tab.waitForSelector("#reconnecting", WAIT);
    await ui.screenshot(tab, "ui-reconnecting.png");
    // The client's reconnect attempt is now waiting at the proxy.
    await waitUntil(() => proxy!.heldRequests() > 0);
    proxy!.restore();
    await tab.waitForSelector("#badge[data-state=connected]", WAIT);
    await tab.waitForSelector("#permission", WAIT);
    expect(await tab.locator("#reconnecting").count()).toBe(0);
    await tab.click("#permission button[data-kind=allow_once]");
    await ui.stopReason(tab, "end_turn");
    // Resumed from Last-Event-ID: nothing lost, nothing twice.
    expect(await tab.locator(".notice-warn").count()).toBe(0);
    expect(await tab.locator("[data-kind=events-lost]").count()).toBe(0);
    expect(await tab.locator(".item.message").count()).toBe(1);
    expect(await tab.locator(".item.thought").count()).toBe(1);
    expect(await tab.textContent(".item.message h2")).toBe("Added a greeting helper");
    expect(await tab.textContent(".item.message")).toContain("Run the tests to check the new helper.");
    const thought = (await tab.textContent(".item.thought .thought-text")) ?? "";
    expect(thought.match(/The request is/g)).toHaveLength(1);
    await tab.close();
  }, TIMEOUT);

  it("reloads mid-turn and resumes from IndexedDB without asking for the token: the same transcript, the turn finishes", async () => {
    const tab = await ui.connected(ui.agentServer.baseUrl);
    await ui.newSession(tab, "Reload mid-turn");
    await ui.send(tab, "add a greeting helper across a reload");
    await tab.waitForSelector(".item.thought", WAIT);
    const ids = () => tab.$$eval("[data-entry]", (rows) => rows.map((row) => row.getAttribute("data-entry")));
    const before = await ids();
    expect(before.slice(0, 2)).toEqual([expect.stringMatching(/^user:/), expect.stringMatching(/^plan:/)]);
    await tab.reload();
    // Straight back to the session (the tab remembered the server, the token and the session), its
    // history read from IndexedDB.
    await tab.waitForSelector("#composer", WAIT);
    await tab.waitForSelector(".item.user >> text=add a greeting helper across a reload", WAIT);
    await tab.waitForSelector(".item.plan", WAIT);
    await tab.waitForSelector(".item.thought", WAIT);
    // The turn went on while the page was gone; its permission request reaches the new page.
    await tab.waitForSelector("#permission", WAIT);
    expect((await ids()).slice(0, before.length)).toEqual(before);
    // The turn another page sent is still running: no second prompt goes into it.
    await tab.fill("#composer textarea", "a second prompt too early");
    expect(await tab.isDisabled("#send")).toBe(true);
    expect(await tab.isEnabled("#cancel")).toBe(true);
    await tab.click("#permission button[data-kind=allow_once]");
    const finished = () => document.querySelector(".item.message")?.textContent?.includes("Run the tests");
    await tab.waitForFunction(finished, undefined, WAIT);
    // Its end reaches the new page: Send works again.
    await tab.waitForSelector("#send:not([disabled])", WAIT);
    expect(await tab.locator(".item.user").count()).toBe(1);
    for (const kind of ["user", "plan", "thought", "message"]) {
      expect(await tab.locator(`.item.${kind}`).count()).toBe(1);
    }
    const thought = (await tab.textContent(".item.thought .thought-text")) ?? "";
    expect(thought.match(/The request is/g)).toHaveLength(1);
    await ui.screenshot(tab, "ui-resumed.png");
    await tab.close();
  }, TIMEOUT);

  it("gives each tab's new session an id of its own (each connection runs its own agent process)", async () => {
    const tabs = [await ui.connected(ui.agentServer.baseUrl), await ui.connected(ui.agentServer.baseUrl)];
    const ids: string[] = [];
    for (const [i, tab] of tabs.entries()) {
      await ui.newSession(tab, `Tab ${i + 1}`);
      ids.push((await tab.getAttribute(".session-view", "data-session")) ?? "");
    }
    expect(ids[0]).not.toBe("");
    expect(new Set(ids).size).toBe(2);
    for (const [i, tab] of tabs.entries()) {
      await ui.back(tab);
      await tab.waitForSelector(`.session-list li[data-session="${ids[i]!}"]`, WAIT);
      await tab.close();
    }
  }, TIMEOUT);

  it("keeps the token for the tab across a reload, never in the address bar", async () => {
    // Typed into the form: a reload prefills it and connects with it.
    const typed = await ui.connected(ui.agentServer.baseUrl);
    const origin = new URL(typed.url()).origin;
    await typed.reload();
    expect(typed.url()).not.toContain(TOKEN);
    expect(await typed.inputValue("#connect input[name=token]")).toBe(TOKEN);
    await typed.click("#connect button[type=submit]");
    await typed.waitForSelector("#badge[data-state=connected]", WAIT);
    await typed.waitForSelector("#new-session", WAIT);
    await typed.close();

    // Given in the fragment: removed from the address bar at once, still there after a reload.
    const linked = await ui.browser.newPage({ viewport: VIEWPORT });
    linked.on("pageerror", (error) => ui.errors.push(error.message));
    const query = `?server=${encodeURIComponent(ui.agentServer.baseUrl)}&agent=mock`;
    await linked.goto(`${origin}/${query}#token=${TOKEN}`);
    expect(linked.url()).toBe(`${origin}/${query}`);
    await linked.reload();
    expect(linked.url()).toBe(`${origin}/${query}`);
    await linked.click("#connect button[type=submit]");
    await linked.waitForSelector("#badge[data-state=connected]", WAIT);
    expect(await linked.locator("#connect-error").count()).toBe(0);
    await linked.close();
  }, TIMEOUT);

  it("npm run ui: the Vite dev server and a local server with the demo agent, token in the fragment", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "examples/ui/serve.ts"], {
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
      const tab = await ui.browser.newPage({ viewport: VIEWPORT });
      tab.on("pageerror", (error) => ui.errors.push(error.message));
      await tab.goto(url);
      // The token came from the fragment, which the page then removed from the address bar.
      expect(new URL(tab.url()).hash).toBe("");
      await tab.click("#connect button[type=submit]");
      await tab.waitForSelector("#badge[data-state=connected]", WAIT);
      await tab.waitForSelector("#new-session", WAIT);
      // The dev server serves the same app: a turn runs on the demo agent.
      await ui.newSession(tab, "From npm run ui");
      await ui.send(tab, "quick add a greeting helper");
      await tab.click("#permission button[data-kind=allow_once]", WAIT);
      await ui.stopReason(tab, "end_turn");
      await tab.close();
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(undefined)));
    }
  }, TIMEOUT);
});
