// examples/ui in real headless Chromium, what an agent UI owes its user beyond a turn: an agent's
// hostile markdown runs no script, usage and readable words instead of protocol codes, tool titles
// and paths relative to the session's folder (spec/support/echo-agent.mjs says what the spec tells
// it, on the real sandbox-agent 0.4.2 server), keyboard use (Escape cancels, the permission card
// takes the focus), an aligned connect form, a narrow screen, reopening a closed session's view, and a
// 10,000-entry transcript that keeps only the rows in view in the DOM. Screenshots go to spec/artifacts/.
import { CHROMIUM, describeWith } from "../support/system-component.js";
import { TIMEOUT, useUiBuild, useUiFixture, WAIT } from "./ui-fixture.js";

const build = useUiBuild();

const HOSTILE = [
  "## Hostile answer",
  "",
  '<img src=x onerror="window.__pwned = 1">',
  "<script>window.__pwned = 2</script>",
  '<iframe srcdoc="<script>parent.__pwned = 3</script>"></iframe>',
  '<svg onload="window.__pwned = 4"></svg>',
  '<a href="javascript:window.__pwned = 5">raw link</a>',
  "",
  "[markdown link](javascript:window.__pwned=6) and [safe](https://example.com/docs)",
  "![tracker](https://example.com/pixel.png)",
  "",
  "`<b>code</b>` stays text.",
].join("\n");

describeWith([CHROMIUM])("examples/ui features in headless Chromium", () => {
  const ui = useUiFixture(build, { echo: true });

  afterEach(() => {
    expect(ui.errors.splice(0)).toEqual([]);
  });

  it("renders an agent's hostile markdown without running any of it", async () => {
    const tab = await ui.connected(ui.echoServer().baseUrl);
    const dialogs: string[] = [];
    tab.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await ui.newSession(tab, "Hostile");
    await ui.send(tab, HOSTILE);
    await ui.stopReason(tab, "end_turn");
    const message = tab.locator(".item.message");
    expect(await message.locator("h2").textContent()).toBe("Hostile answer");
    // Nothing active made it into the page: no script, frame, image, svg, handler or javascript: link.
    expect(await message.locator("script, iframe, img, svg, object, embed, style, form").count()).toBe(0);
    const attributes = await message.evaluate((root) =>
      [...root.querySelectorAll("*")].flatMap((el) => [...el.attributes].map((a) => `${a.name}=${a.value}`)));
    expect(attributes.filter((a) => a.startsWith("on") || a.includes("javascript:"))).toEqual([]);
    expect(await message.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href"))))
      .toEqual(["https://example.com/docs"]);
    // The raw HTML is shown as text, so the user sees what the agent sent.
    expect(await message.textContent()).toContain("<script>window.__pwned = 2</script>");
    expect(await message.locator("code").first().textContent()).toBe("<b>code</b>");
    // Clicking what was a javascript: link does nothing either.
    await message.locator("text=markdown link").click();
    await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect(await tab.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await ui.screenshot(tab, "ui-hostile.png");
    await tab.close();
  }, TIMEOUT);

  it("shows usage, the stop reason in words, and tool titles and paths relative to the session's folder", async () => {
    const tab = await ui.connected(ui.echoServer().baseUrl);
    await ui.newSession(tab, "Usage and paths");
    await ui.send(tab, "Hello **there**");
    await ui.stopReason(tab, "end_turn");
    expect(await tab.textContent("#stop-reason")).toBe("Done");
    await tab.waitForSelector("#usage", WAIT);
    expect(await tab.textContent("#usage")).toBe("1,234 tokens · context 12k / 200k");
    // The context window as a meter: 12,000 of 200,000 tokens, 6%.
    expect(await tab.getAttribute("#context-meter", "value")).toBe("12000");
    expect(await tab.getAttribute("#context-meter", "max")).toBe("200000");
    expect(await tab.getAttribute("#context-meter", "title")).toBe("Context window 6% full");
    // The agent named the file by its absolute path under the session's folder (the server's home).
    const tool = tab.locator(".item.tool");
    expect(await tool.getAttribute("data-title")).toBe("Read src/index.ts");
    expect(await tool.getAttribute("title")).toBe(`Read ${ui.echoServer().home}/src/index.ts`);
    // The location is the file the title names: not listed twice.
    expect(await tool.locator(".locations").count()).toBe(0);
    expect(await tool.locator(".tool-output").textContent()).toBe("echo-tool-output");
    expect(await tab.textContent(".item.message strong")).toBe("there");
    // No protocol code is shown anywhere.
    const text = (await tab.textContent("body")) ?? "";
    for (const code of ["end_turn", "allow_once", "in_progress"]) expect(text).not.toContain(code);
    await ui.screenshot(tab, "ui-usage.png");
    await tab.close();
  }, TIMEOUT);

  it("works from the keyboard: the permission card takes the focus, Escape cancels the turn", async () => {
    const tab = await ui.connected(ui.agentServer.baseUrl);
    await ui.newSession(tab, "Keyboard");
    // The composer has the focus when a session opens.
    expect(await tab.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("prompt");
    await tab.keyboard.type("add a helper, then Escape");
    await tab.keyboard.press("Enter");
    await tab.waitForSelector("#permission", WAIT);
    await tab.waitForFunction(() => document.activeElement?.getAttribute("data-kind") === "allow_once", undefined, WAIT);
    await tab.keyboard.press("Escape");
    await ui.stopReason(tab, "cancelled");
    expect(await tab.locator("#permission").count()).toBe(0);
    // Enter on the focused choice answers: a second turn, allowed from the keyboard.
    await tab.focus("#composer textarea");
    await tab.keyboard.type("quick add a greeting helper");
    await tab.keyboard.press("Enter");
    await tab.waitForFunction(() => document.activeElement?.getAttribute("data-kind") === "allow_once", undefined, WAIT);
    await tab.keyboard.press("Enter");
    await ui.stopReason(tab, "end_turn");
    expect(await tab.textContent(".item.message h2 >> nth=-1")).toBe("Added a greeting helper");
    await tab.close();
  }, TIMEOUT);

  it("aligns the connect form's fields, and fits a narrow screen without sideways scrolling", async () => {
    const wide = await ui.open(`?server=${encodeURIComponent(ui.agentServer.baseUrl)}&agent=mock`);
    const boxes = await wide.$$eval("#connect input", (inputs) =>
      inputs.map((input) => { const r = input.getBoundingClientRect(); return [r.left, r.width]; }));
    expect(boxes).toHaveLength(3);
    expect(new Set(boxes.map(([left]) => left)).size).toBe(1);
    expect(new Set(boxes.map(([, width]) => width)).size).toBe(1);
    await ui.screenshot(wide, "ui-connect.png");
    await wide.close();

    const narrow = { width: 390, height: 844 };
    const tab = await ui.connected(ui.agentServer.baseUrl, undefined, narrow);
    const overflows = () => tab.evaluate(() => {
      const wide = [...document.querySelectorAll("body *")].filter((el) => el.getBoundingClientRect().right > innerWidth + 1);
      return document.documentElement.scrollWidth > innerWidth ? wide.map((el) => `${el.tagName}.${el.className}`) : false;
    });
    expect(await overflows()).toBe(false);
    await ui.newSession(tab, "On a phone");
    // The session takes the screen; the list is one tap away.
    expect(await tab.isVisible(".sidebar")).toBe(false);
    await ui.send(tab, "quick add a greeting helper");
    await tab.click("#permission button[data-kind=allow_once]", WAIT);
    await ui.stopReason(tab, "end_turn");
    expect(await overflows()).toBe(false);
    await ui.screenshot(tab, "ui-narrow.png");
    await tab.click("#toggle-sessions");
    await tab.waitForSelector(".sidebar .session-list li[data-session]", WAIT);
    expect(await overflows()).toBe(false);
    await ui.screenshot(tab, "ui-narrow-sessions.png");
    await tab.close();
  }, TIMEOUT);

  it("closes a session's view and opens it again from the list, its transcript back", async () => {
    const tab = await ui.connected(ui.agentServer.baseUrl);
    await ui.newSession(tab, "Closed and reopened");
    const id = await tab.getAttribute(".session-view", "data-session");
    await ui.send(tab, "quick add a greeting helper");
    await tab.click("#permission button[data-kind=allow_once]", WAIT);
    await ui.stopReason(tab, "end_turn");
    await ui.back(tab);
    const row = tab.locator(`.session-list li[data-session="${id}"]`);
    expect(await row.locator(".session-name").textContent()).toBe("Closed and reopened");
    expect(await row.locator(".pill").textContent()).toBe("live");
    await row.locator(".session-open").click();
    await tab.waitForSelector(`.session-view[data-session="${id}"]`, WAIT);
    await tab.waitForSelector(".item.message h2 >> text=Added a greeting helper", WAIT);
    expect(await tab.locator(".item.user").count()).toBe(1);
    expect(await tab.getAttribute(`.session-list li[data-session="${id}"] .session-open`, "aria-current")).toBe("true");
    await tab.close();
  }, TIMEOUT);

  it("renders a 10,000-entry transcript with only the rows in view in the DOM, at the bottom and after scrolling to the top", async () => {
    const tab = await ui.open("?demo=10000", { width: 1280, height: 860 });
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
    await ui.screenshot(tab, "ui-10000.png");
    await tab.close();
  }, TIMEOUT);
});
