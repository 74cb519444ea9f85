// The Angular example (examples/angular) as an application in real headless Chromium against the real
// 0.4.2 server with the demo agent: its component bootstrapped with the example's own `appConfig`
// (zoneless), the server's address given in place of the default. The Angular runtime is a test-only
// install (spec/examples/angular-install, on first use), and the page compiles the component's template
// just in time, where an Angular CLI app would compile it ahead of time: the service and the component
// are the example's files as written.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { ensureInstalled } from "../support/interop-install.js";
import { launchChromium } from "../support/chromium.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { serveStatic } from "../support/static-server.js";
import { CHROMIUM, describeWith } from "../support/system-component.js";

const demoAgent = fileURLToPath(new URL("../../lib/providers/local/demo-agent.mjs", import.meta.url));
const exampleDir = fileURLToPath(new URL("../../examples/angular/", import.meta.url));
const sandboxEntry = fileURLToPath(new URL("../../lib/sandbox/index.ts", import.meta.url));
const vite = fileURLToPath(new URL("../../node_modules/vite/bin/vite.js", import.meta.url));
const run = promisify(execFile);
const artifacts = fileURLToPath(new URL("../artifacts/", import.meta.url));
const TIMEOUT = 240_000;

const INDEX = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Angular example</title></head>
<body><app-agent-session></app-agent-session><script type="module" src="./main.ts"></script></body></html>
`;

// What an application's main.ts is, with the server's address taken from the page's query instead of
// the default of appConfig (the later provider of a token wins), and the JIT compiler loaded first.
const MAIN = `import "@angular/compiler";
import { mergeApplicationConfig } from "@angular/core";
import { bootstrapApplication } from "@angular/platform-browser";
import { AgentSessionComponent } from "./example/agent-session.component.js";
import { SANDBOX_AGENT_CONFIG } from "./example/agent-session.service.js";
import { appConfig } from "./example/app.config.js";

const query = new URLSearchParams(location.search);
const server = { baseUrl: query.get("server") ?? "", agent: query.get("agent") ?? "mock" };
await bootstrapApplication(
  AgentSessionComponent,
  mergeApplicationConfig(appConfig, { providers: [{ provide: SANDBOX_AGENT_CONFIG, useValue: server }] }),
);
`;

describeWith([CHROMIUM])("examples/angular in headless Chromium", () => {
  let app: string | undefined;
  let page: { server: Server; origin: string } | undefined;
  let agentServer: SandboxAgentServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    // Built inside the install folder, so that Angular, rxjs and the SDK resolve to one copy each.
    const runtime = await ensureInstalled("angular");
    app = mkdtempSync(join(runtime, "app-"));
    cpSync(exampleDir, join(app, "example"), { recursive: true, filter: (path) => !path.endsWith("tsconfig.json") });
    writeFileSync(join(app, "index.html"), INDEX);
    writeFileSync(join(app, "main.ts"), MAIN);
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2022", experimentalDecorators: true, useDefineForClassFields: false } }),
    );
    // Vite in a child process: its native bundler stays out of jest's module sandbox.
    const config = {
      root: app,
      logLevel: "warn",
      resolve: { alias: { "sandbox-agent-rx": sandboxEntry }, dedupe: ["rxjs"] },
      oxc: { decorator: { legacy: true } },
      build: { outDir: join(app, "dist"), target: "es2022", reportCompressedSize: false },
    };
    writeFileSync(join(app, "vite.config.mjs"), `export default ${JSON.stringify(config)};\n`);
    await run(process.execPath, [vite, "build", "--config", join(app, "vite.config.mjs")], { cwd: app, timeout: 120_000 });
    page = await serveStatic(join(app, "dist"));
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
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it("connects, streams a turn into the transcript, waits for Allow, and ends the turn", async () => {
    if (!browser || !page || !agentServer) throw new Error("setup failed");
    const tab = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    const pageErrors: string[] = [];
    tab.on("console", (message) => {
      if (message.type() === "error") pageErrors.push(message.text());
    });
    tab.on("pageerror", (error) => pageErrors.push(error.message));

    await tab.goto(`${page.origin}/index.html?server=${encodeURIComponent(agentServer.baseUrl)}&agent=mock`);
    await tab.waitForFunction(() => document.querySelector(".state")?.textContent?.includes("connected"), undefined, {
      timeout: 15_000,
    });
    await tab.fill("form input", "quick angular demo");
    await tab.click("form button[type=submit]");

    // The agent stops at its edit and waits for the user: the service's permission card.
    await tab.waitForSelector(".permission", { timeout: 15_000 });
    expect(await tab.textContent(".permission")).toContain("Write src/greeting.ts");
    await tab.click(".permission button:first-of-type");

    await tab.waitForFunction(() => document.body.textContent?.includes("Stop reason: end_turn"), undefined, {
      timeout: 15_000,
    });
    expect(await tab.$(".permission")).toBeNull();
    expect(await tab.textContent(".state")).toMatch(/connected · session \S+/);
    expect(await tab.$$eval(".transcript li.user", (items) => items.map((li) => li.textContent))).toEqual([
      "quick angular demo",
    ]);
    expect(await tab.$$eval(".transcript li.tool", (items) => items.map((li) => li.textContent?.trim()))).toEqual([
      "Read src/index.ts — completed",
      "Write src/greeting.ts — completed",
    ]);
    const answer = (await tab.textContent(".transcript li.answer")) ?? "";
    expect(answer).toContain("## Added a greeting helper");
    expect(await tab.textContent(".transcript li.turn-end")).toBe("Turn ended: end_turn");

    mkdirSync(artifacts, { recursive: true });
    await tab.screenshot({ path: join(artifacts, "angular.png"), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
