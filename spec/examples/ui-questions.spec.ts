// examples/ui in real headless Chromium against the real sandbox-agent 0.4.2 server: the agent's
// questions (a form card from the schema, multi-selects as checkboxes, a URL card, all answered
// through `onInput: "ask"`), the agent's text in them kept as text, and Delete in the session list
// (offered where the scripted agent advertises session/delete, off with its reason when it then
// refuses; not offered at all to the demo agent, which does not advertise it). Screenshots go to
// spec/artifacts/.
import type { Page } from "playwright-core";
import { CHROMIUM, describeWith } from "../support/system-component.js";
import { TIMEOUT, useUiBuild, useUiFixture, WAIT } from "./ui-fixture.js";

const build = useUiBuild();

const HOSTILE = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script> Your name?';

/** The text of the transcript's last agent message. */
const lastMessage = (tab: Page) => tab.locator(".item.message").last().textContent();

describeWith([CHROMIUM])("examples/ui: the agent's questions and deleting sessions, in headless Chromium", () => {
  const ui = useUiFixture(build, { scripted: true, echo: true });

  afterEach(() => {
    expect(ui.errors.splice(0)).toEqual([]);
  });

  it("shows a form question as a card of fields and sends what the user filled in", async () => {
    const tab = await ui.connected(ui.scriptedServer().baseUrl);
    await ui.newSession(tab, "Questions");
    await ui.send(tab, "elicit");
    await tab.waitForSelector("#question[data-kind=form]", WAIT);
    expect(await tab.textContent("#question-message")).toBe("Which project, and how many runs?");
    // The first field has the focus; the required one is marked.
    expect(await tab.evaluate(() => document.activeElement?.id)).toBe("question-project");
    expect(await tab.locator("label[for=question-project]").textContent()).toContain("project *");
    expect(await tab.getAttribute("#question-runs", "type")).toBe("number");
    await tab.fill("#question-project", "rx");
    await tab.fill("#question-runs", "2");
    await ui.screenshot(tab, "ui-question-form.png");
    await tab.click("#question-accept");
    await ui.stopReason(tab, "end_turn");
    expect(await tab.locator("#question").count()).toBe(0);
    expect(JSON.parse((await lastMessage(tab)) ?? "")).toEqual({
      method: "elicitation/create",
      result: { action: "accept", content: { project: "rx", runs: 2 } },
    });
    await tab.close();
  }, TIMEOUT);

  it("shows multi-selects as checkboxes, keeps to their bounds and sends the chosen values", async () => {
    const tab = await ui.connected(ui.scriptedServer().baseUrl);
    await ui.newSession(tab, "Multi-select");
    await ui.send(tab, "elicit multi");
    await tab.waitForSelector("#question[data-kind=form]", WAIT);
    const labels = (field: string) => tab.locator(`#question-${field} .question-choice`).allTextContents();
    expect((await labels("areas")).map((label) => label.trim())).toEqual(["api", "ui", "docs"]);
    // Titled items show their titles; the schema's default is chosen at first.
    expect((await labels("reviewers")).map((label) => label.trim())).toEqual(["Ada Lovelace", "Alan Turing"]);
    expect(await tab.isChecked("#question-reviewers-alan")).toBe(true);
    expect(await tab.textContent("#question-areas-label")).toBe("Areas *");
    expect(await tab.evaluate(() => document.activeElement?.id)).toBe("question-areas-api");
    // Fewer than minItems: the card says so and stays.
    await tab.click("#question-accept");
    expect(await tab.textContent("#question-problem")).toBe("Areas: choose at least 1");
    expect(await tab.locator("#question").count()).toBe(1);
    // At maxItems the other boxes are off.
    await tab.check("#question-areas-docs");
    await tab.check("#question-areas-api");
    expect(await tab.isDisabled("#question-areas-ui")).toBe(true);
    await tab.check("#question-reviewers-ada");
    await ui.screenshot(tab, "ui-question-multi.png");
    await tab.click("#question-accept");
    await ui.stopReason(tab, "end_turn");
    expect(await tab.locator("#question").count()).toBe(0);
    // In the schema's order, whatever the order of the clicks.
    expect(JSON.parse((await lastMessage(tab)) ?? "")).toEqual({
      method: "elicitation/create",
      result: { action: "accept", content: { areas: ["api", "docs"], reviewers: ["ada", "alan"] } },
    });
    await tab.close();
  }, TIMEOUT);

  it("shows a URL question's link as plain text, and Decline answers decline", async () => {
    const tab = await ui.connected(ui.scriptedServer().baseUrl);
    await ui.newSession(tab, "Sign in");
    await ui.send(tab, "elicit url");
    await tab.waitForSelector("#question[data-kind=url]", WAIT);
    expect(await tab.textContent("#question-url")).toBe("https://example.invalid/sign-in");
    expect(await tab.locator("#question a").count()).toBe(0);
    expect(await tab.isEnabled("#question-open")).toBe(true);
    await ui.screenshot(tab, "ui-question-url.png");
    await tab.click("#question-decline");
    await ui.stopReason(tab, "end_turn");
    expect(JSON.parse((await lastMessage(tab)) ?? "")).toEqual({
      method: "elicitation/create",
      result: { action: "decline" },
    });
    expect(await tab.locator("#question").count()).toBe(0);
    await tab.close();
  }, TIMEOUT);

  it("keeps an agent's hostile question as text: no markup runs, a javascript: URL does not open", async () => {
    const tab = await ui.connected(ui.echoServer().baseUrl);
    await ui.newSession(tab, "Hostile question");
    await ui.send(tab, `question ${HOSTILE}`);
    await tab.waitForSelector("#question[data-kind=form]", WAIT);
    expect(await tab.textContent("#question-message")).toBe(HOSTILE);
    expect(await tab.locator("#question img, #question script").count()).toBe(0);
    // An enum is a choice, a boolean a checkbox.
    expect(await tab.locator("#question-colour option").allTextContents()).toEqual(["—", "red", "green"]);
    expect(await tab.getAttribute("#question-sure", "type")).toBe("checkbox");
    await tab.fill("#question-name", "Ada");
    await tab.selectOption("#question-colour", "green");
    await tab.check("#question-sure");
    await tab.click("#question-accept");
    await ui.stopReason(tab, "end_turn");
    expect(JSON.parse((await lastMessage(tab)) ?? "")).toEqual({
      action: "accept",
      content: { name: "Ada", colour: "green", sure: true },
    });

    await ui.send(tab, "question-url javascript:window.__pwned=3");
    await tab.waitForSelector("#question[data-kind=url]", WAIT);
    expect(await tab.textContent("#question-url")).toBe("javascript:window.__pwned=3");
    expect(await tab.isDisabled("#question-open")).toBe(true);
    await tab.click("#question-decline");
    await tab.waitForSelector("#question", { ...WAIT, state: "detached" });
    expect(await tab.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await tab.close();
  }, TIMEOUT);

  it("offers Delete where the agent advertises it (off, with why, if it then refuses), and not elsewhere", async () => {
    const tab = await ui.connected(ui.scriptedServer().baseUrl);
    tab.on("dialog", (dialog) => void dialog.accept());
    await ui.newSession(tab, "Doomed");
    const doomed = await tab.getAttribute(".session-view", "data-session");
    const row = tab.locator(`#session-list li[data-session="${doomed}"]`);
    await row.waitFor(WAIT);
    await ui.screenshot(tab, "ui-session-delete.png");
    await row.locator(".session-delete").click();
    await row.waitFor({ ...WAIT, state: "detached" });
    await tab.waitForSelector(".empty-main", WAIT);

    // The agent said it deletes sessions, yet this one it refuses ("method not found"): the action
    // goes off, with the reason shown, and the session stays.
    await ui.newSession(tab, "Refused");
    const refused = await tab.getAttribute(".session-view", "data-session");
    await ui.send(tab, "refuse session/delete");
    await ui.stopReason(tab, "end_turn");
    const refusedRow = tab.locator(`#session-list li[data-session="${refused}"]`);
    await refusedRow.locator(".session-delete").click();
    await tab.waitForSelector("#delete-off", WAIT);
    expect(await tab.textContent("#delete-off")).toBe("Delete is off: mock cannot delete sessions.");
    expect(await refusedRow.locator(".session-delete").isDisabled()).toBe(true);
    expect(await refusedRow.count()).toBe(1);
    await tab.close();

    // The demo agent does not advertise session/delete: no row offers it.
    const demo = await ui.connected(ui.agentServer.baseUrl);
    await ui.newSession(demo, "Kept");
    const kept = await demo.getAttribute(".session-view", "data-session");
    const keptRow = demo.locator(`#session-list li[data-session="${kept}"]`);
    await keptRow.waitFor(WAIT);
    expect(await keptRow.locator(".session-open").count()).toBe(1);
    expect(await demo.locator("#session-list .session-delete").count()).toBe(0);
    expect(await demo.locator("#delete-off").count()).toBe(0);
    await demo.close();
  }, TIMEOUT);
});
