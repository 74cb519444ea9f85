// The UI example's panes in real headless Chromium against the real sandbox-agent 0.4.2 server:
// the terminal (xterm.js over processes.terminal), the file tree (fs), process logs (logs$), and the
// mode/model pickers against the scripted test agent (the demo agent offers neither).
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
import { CHROMIUM, describeWith } from "../support/system-component.js";
import type { Page } from "playwright-core";
import { TIMEOUT, TOKEN, useUiBuild, useUiFixture, VIEWPORT, WAIT } from "./ui-fixture.js";

const build = useUiBuild();

describeWith([CHROMIUM])("examples/ui panes in headless Chromium", () => {
  const ui = useUiFixture(build, { scripted: true });
  const openTerminal = async (tab: Page) => {
    await tab.click("#tab-terminal");
    await tab.waitForSelector(".terminal-panel[data-ready=true]", WAIT);
  };

  afterEach(() => {
    expect(ui.errors.splice(0)).toEqual([]);
  });

  it("runs a shell command in the terminal pane, focused as it opens, and ends the shell when the pane closes", async () => {
    const tab = await ui.connected(ui.agentServer.baseUrl);
    await ui.newSession(tab, "Terminal");
    await openTerminal(tab);
    const shell = ((await tab.textContent("#terminal-status")) ?? "").split(" ")[0];
    // No click first: the terminal took the keyboard focus when it became ready.
    await tab.keyboard.type("echo $((6 * 7))-from-the-ui-terminal\n");
    // The echo of the typed line holds "$((6 * 7))"; only the command's output holds "42-".
    await tab.waitForFunction(
      () => document.querySelector("#terminal .xterm-rows")?.textContent?.includes("42-from-the-ui-terminal"),
      undefined,
      WAIT,
    );
    await ui.screenshot(tab, "ui-terminal.png");
    // The pane's shell is gone with it (the processes API lists it as exited).
    const observer = new SandboxAgentClient({ baseUrl: ui.agentServer.baseUrl, token: TOKEN, agent: "mock", autoConnect: false });
    const listed = async () => (await observer.processes.list()).find((p) => p.id === shell)?.status;
    expect(await listed()).toBe("running");
    await tab.click("#tab-terminal");
    for (let waited = 0; (await listed()) === "running" && waited < WAIT.timeout; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await listed()).not.toBe("running");
    await observer.disconnect();
    // Ctrl+` opens it again from the keyboard.
    await tab.press("#composer textarea", "Control+`");
    await tab.waitForSelector(".terminal-panel[data-ready=true]", WAIT);
    await tab.close();
  }, TIMEOUT);

  it("keeps at most one shell per open session page and none for closed pages or tabs", async () => {
    const observer = new SandboxAgentClient({ baseUrl: ui.agentServer.baseUrl, token: TOKEN, agent: "mock", autoConnect: false });
    const before = new Set((await observer.processes.list()).map((p) => p.id));
    const shells = async () =>
      (await observer.processes.list()).filter((p) => !before.has(p.id) && p.command === "bash" && p.status === "running").length;
    // The kills are requests the closing page sends: wait for their effect, within a bound.
    const shellsBecome = async (limit: number) => {
      const deadline = Date.now() + WAIT.timeout;
      let count = await shells();
      while (count > limit && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        count = await shells();
      }
      return count;
    };
    const terminalReady = openTerminal;
    // A loaded machine, made repeatable: the closing tab's JavaScript runs 200 times slower, so the
    // page may be gone before its own pagehide listener has sent anything.
    const closeUnderLoad = async (tab: import("playwright-core").Page) => {
      const cdp = await tab.context().newCDPSession(tab);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 200 });
      await tab.close({ runBeforeUnload: true });
    };
    const back = (tab: Page) => ui.back(tab);
    // The tabs of one browser window: they share storage and Web Locks.
    const browserWindow = await ui.browser.newContext({ viewport: VIEWPORT });
    try {
      const first = await ui.connected(ui.agentServer.baseUrl, browserWindow);
      for (const title of ["Shell one", "Shell two", "Shell three"]) {
        await ui.newSession(first, title);
        await terminalReady(first);
        expect(await shells()).toBeLessThanOrEqual(1);
        await back(first);
      }
      expect(await shellsBecome(0)).toBe(0);
      // Reopened from the list, and a page left before its shell was up.
      await first.click(".session-list li[data-session] .session-open >> nth=0");
      await first.waitForSelector(".session-view", WAIT);
      await terminalReady(first);
      await back(first);
      await ui.newSession(first, "Left at once");
      await back(first);
      expect(await shellsBecome(0)).toBe(0);

      // Two tabs, one session page each; then one tab closes and the other reloads.
      await ui.newSession(first, "Tab one");
      await terminalReady(first);
      const second = await ui.connected(ui.agentServer.baseUrl, browserWindow);
      await ui.newSession(second, "Tab two");
      await terminalReady(second);
      expect(await shells()).toBeLessThanOrEqual(2);
      await closeUnderLoad(second);
      expect(await shellsBecome(1)).toBeLessThanOrEqual(1);
      await first.reload();
      // Back to its session by itself; the terminal opens again when asked.
      await first.waitForSelector("#composer", WAIT);
      await terminalReady(first);
      expect(await shellsBecome(1)).toBeLessThanOrEqual(1);
      // The last session page closes under load too, while a tab on the session list stays open.
      const third = await ui.connected(ui.agentServer.baseUrl, browserWindow);
      await closeUnderLoad(first);
      expect(await shellsBecome(0)).toBe(0);
      // The last tab of the window closes under load: the next tab opened ends its shell.
      await ui.newSession(third, "Last tab");
      await terminalReady(third);
      expect(await shells()).toBe(1);
      await closeUnderLoad(third);
      const fourth = await ui.connected(ui.agentServer.baseUrl, browserWindow);
      expect(await shellsBecome(0)).toBe(0);
      await fourth.close();
    } finally {
      await browserWindow.close();
      await observer.disconnect();
    }
  }, TIMEOUT);

  it("shows the file tree and a file (fs) and a process's followed log (logs$)", async () => {
    const tab = await ui.connected(ui.agentServer.baseUrl);
    await ui.newSession(tab, "Files and logs");
    await tab.click(".tabs button[data-tab=Files]");
    await tab.waitForSelector("#file-tree .tree-label.dir", WAIT);
    const names = await tab.$$eval("#file-tree > li > .tree-label", (labels) => labels.map((l) => l.textContent));
    expect(names).toEqual(expect.arrayContaining(["▸ src", "· README.md", "· package.json"]));
    await tab.click("#file-tree .tree-label.dir >> text=src");
    await tab.click("text=· index.ts");
    const preview = () => document.querySelector("#file-preview")?.textContent?.includes('greet("world")');
    await tab.waitForFunction(preview, undefined, WAIT);
    await ui.screenshot(tab, "ui-files.png");

    await tab.click(".tabs button[data-tab=Logs]");
    await tab.fill(".logs-panel input", "printf logs-line-one\\nlogs-line-two\\n");
    await tab.click(".logs-panel button[type=submit]");
    const exited = () => document.querySelector("#log-output")?.textContent?.includes("— exited —");
    await tab.waitForFunction(exited, undefined, WAIT);
    expect(await tab.textContent("#log-output")).toContain("logs-line-one\nlogs-line-two\n");
    await tab.waitForSelector("#process-list li.selected >> text=exit 0", WAIT);
    await ui.screenshot(tab, "ui-logs.png");
    await tab.close();
  }, TIMEOUT);

  it("shows in the file tree the file the demo agent says it wrote", async () => {
    const tab = await ui.connected(ui.agentServer.baseUrl);
    await ui.newSession(tab, "Written file");
    await ui.send(tab, "quick add a greeting helper");
    await tab.waitForSelector("#permission", WAIT);
    await tab.click("#permission button[data-kind=allow_once]");
    await ui.stopReason(tab, "end_turn");
    expect(await tab.textContent(".item.message")).toContain("created src/greeting.ts");
    await tab.click(".tabs button[data-tab=Files]");
    await tab.click("#file-tree .tree-label.dir >> text=src");
    await tab.click("text=· greeting.ts");
    const preview = () => document.querySelector("#file-preview")?.textContent?.includes("return `Hello, ${name}!`;");
    await tab.waitForFunction(preview, undefined, WAIT);
    await tab.close();
  }, TIMEOUT);

  it("offers the agent's modes and models, and the mode picker follows the agent's own switch", async () => {
    const tab = await ui.connected(ui.scriptedServer().baseUrl);
    const alerts: string[] = [];
    tab.on("dialog", (dialog) => {
      alerts.push(dialog.message());
      void dialog.dismiss();
    });
    await ui.newSession(tab, "Modes and models");
    const mode = tab.locator("select[aria-label=Mode]");
    const model = tab.locator("select[aria-label=Model]");
    await model.waitFor(WAIT);
    // The models come from listModels() when session/new did not give them.
    await tab.waitForFunction(() => (document.querySelector<HTMLSelectElement>("select[aria-label=Model]")?.options.length ?? 0) > 1,
      undefined, WAIT);
    expect(await mode.locator("option").allTextContents()).toHaveLength(2);
    expect(await mode.inputValue()).toBe("normal");
    expect(await model.locator("option").evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value)))
      .toEqual(["mock", "mock-fast"]);
    await mode.selectOption("plan");
    await model.selectOption("mock-fast");
    await tab.waitForFunction(() => !document.querySelector<HTMLSelectElement>("select[aria-label=Model]")?.disabled);
    // The agent switches back by itself: current_mode_update moves the picker.
    await ui.send(tab, "setmode normal");
    await ui.stopReason(tab, "end_turn");
    const modeIs = (id: string) => document.querySelector<HTMLSelectElement>("select[aria-label=Mode]")?.value === id;
    await tab.waitForFunction(modeIs, "normal", WAIT);
    expect(alerts).toEqual([]);
    expect(await tab.locator("#failure").count()).toBe(0);
    await tab.close();
  }, TIMEOUT);

});
