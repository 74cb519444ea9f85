// docs/getting-started.md, followed as written from empty folders with the packed package (packed
// from a fresh copy of the tree): its install lines run (sandbox-agent-rx from the tarball, the other
// packages it names from the repository's install: no registry), its files are written as printed,
// and each way ends in a streamed turn: the Node script, the browser app in headless Chromium, the
// Angular service through Angular's injector. `ng new` cannot run offline: a folder with
// @angular/core and rxjs stands in for the app it generates.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { freePort } from "../support/ports.js";
import { launchChromium } from "../support/chromium.js";
import { serveStatic } from "../support/static-server.js";
import { CHROMIUM, describeWith } from "../support/system-component.js";
import { packFreshCopy } from "./fresh-pack.js";
import { runShell, sections, writeFiles, type Section, type Stage } from "./getting-started-tools.js";
import { repoRoot } from "./run-example.js";

const run = promisify(execFile);
const TIMEOUT = 240_000;
const page = sections(readFileSync(join(repoRoot, "docs/getting-started.md"), "utf8"));
const section = (heading: string): Section => {
  const found = page.find((s) => s.heading === heading);
  if (!found) throw new Error(`docs/getting-started.md has no "## ${heading}"`);
  return found;
};
const file = (s: Section, title: string) => s.files.find((f) => f.title === title)?.code ?? `(no ${title})`;
const tsc = join(repoRoot, "node_modules/typescript/bin/tsc");
const ANSWER = "## Change not applied"; // the demo agent's answer when no one approves its edit

describe("docs/getting-started.md from empty folders", () => {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-getting-started-"));
  let stage: Stage;
  let server: { child: ChildProcess; baseUrl: string } | undefined;
  let pages: { server: Server; origin: string } | undefined;
  let webDist = "";

  beforeAll(async () => {
    const { tarball } = await packFreshCopy(join(dir, "pack"));
    stage = { dir, tarball, repoModules: join(repoRoot, "node_modules") };
  }, TIMEOUT);

  afterAll(async () => {
    if (server) {
      server.child.kill("SIGTERM");
      await once(server.child, "close");
    }
    await new Promise((resolve) => (pages ? pages.server.close(resolve) : resolve(undefined)));
    rmSync(dir, { recursive: true, force: true });
  });

  it("has the three ways and the server the browser ones use, each with its install lines", () => {
    expect(page.map((s) => s.heading)).toEqual([
      "A Node script",
      "A local server for browser apps",
      "A browser app (Vite)",
      "An Angular service",
      "When the first steps fail",
    ]);
    // Each way starts with its install line; the last section is the table of first errors.
    for (const s of page.slice(0, -1)) expect(s.shell[0]).toMatch(/^npm install sandbox-agent-rx\b/m);
  });

  it("a Node script: install, first-turn.mjs, node first-turn.mjs streams a turn", async () => {
    const node = section("A Node script");
    const project = await runShell(stage, join(dir, "node"), node.shell[0] ?? "");
    writeFiles(project, node.files);
    expect(node.shell[1]?.trim()).toBe("node first-turn.mjs");
    const { stdout } = await run("bash", ["-c", node.shell[1] ?? ""], { cwd: project, timeout: 60_000 });
    expect(stdout).toContain(ANSWER);
    expect(stdout.trimEnd().split("\n").at(-1)).toBe("(end_turn)");
  }, TIMEOUT);

  it("the local server for browser apps starts and answers the app's origin", async () => {
    const web = section("A browser app (Vite)");
    const webProject = await runShell(stage, join(dir, "web"), web.shell[0] ?? "");
    writeFiles(webProject, web.files);
    // `npx vite build`, as the page says, for a static host: here the spec's own, on a loopback origin.
    expect(web.shell.map((s) => s.trim())).toContain("npx vite");
    await run("bash", ["-c", "npx vite build"], { cwd: webProject, timeout: 120_000 });
    webDist = join(webProject, "dist");
    pages = await serveStatic(webDist);

    const serverSection = section("A local server for browser apps");
    const project = await runShell(stage, join(dir, "server"), serverSection.shell[0] ?? "");
    writeFiles(project, serverSection.files);
    expect(serverSection.shell[1]?.trim()).toBe("node server.mjs");
    const port = await freePort();
    const child = spawn("bash", ["-c", serverSection.shell[1] ?? ""], {
      cwd: project,
      env: { ...process.env, PORT: String(port), APP_ORIGIN: pages.origin },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server.mjs did not start:\n${out}`)), 60_000);
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("sandbox-agent on ")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    server = { child, baseUrl: `http://127.0.0.1:${port}` };
    expect(out).toContain(`sandbox-agent on ${server.baseUrl}, for pages from ${pages.origin}`);
    const preflight = await fetch(`${server.baseUrl}/v1/health`, {
      method: "OPTIONS",
      headers: { origin: pages.origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBe(pages.origin);
  }, TIMEOUT);

  describeWith([CHROMIUM])("a browser app (Vite) in headless Chromium", () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await launchChromium();
    }, TIMEOUT);
    afterAll(async () => {
      await browser?.close();
    });

    it("streams the turn into the page", async () => {
      if (!browser || !pages || !server) throw new Error("the server step did not run");
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on("pageerror", (error) => errors.push(error.message));
      await tab.goto(`${pages.origin}/index.html?server=${encodeURIComponent(server.baseUrl)}`);
      await tab.waitForFunction(() => document.querySelector("#answer")?.textContent?.endsWith("(end_turn)"), undefined, {
        timeout: 60_000,
      });
      expect(await tab.textContent("#answer")).toContain(ANSWER);
      expect(errors).toEqual([]);
    }, TIMEOUT);
  });

  it("an Angular service: installs into the app, type-checks as written, streams a turn into its signals", async () => {
    if (!server) throw new Error("the server step did not run");
    const angular = section("An Angular service");
    const project = await runShell(stage, join(dir, "angular"), angular.shell[0] ?? "");
    writeFiles(project, angular.files);
    // The Angular CLI's own settings that matter here: decorators, bundler resolution, strict.
    const compilerOptions = {
      target: "ES2022",
      module: "ES2022",
      moduleResolution: "bundler",
      lib: ["ES2022", "DOM"],
      experimentalDecorators: true,
      strict: true,
      skipLibCheck: true,
      outDir: "out",
    };
    const files = angular.files.map((f) => f.title);
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files }, null, 2));
    const checked = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(checked).toBe("");

    // The service through Angular's injector (no platform, no compiler: the service is constructed in
    // an injection context), pointed at the server above.
    mkdirSync(join(project, "out"), { recursive: true });
    writeFileSync(join(project, "out/package.json"), JSON.stringify({ type: "module" }));
    const harness = `
      import { createEnvironmentInjector, runInInjectionContext } from "@angular/core";
      import { AGENT_SERVER_URL, AgentService } from "./agent.service.js";
      const injector = createEnvironmentInjector([{ provide: AGENT_SERVER_URL, useValue: ${JSON.stringify(server.baseUrl)} }], null);
      import { filter, firstValueFrom, timeout } from "rxjs";
      const agent = runInInjectionContext(injector, () => new AgentService());
      // Counts the sessions the service opens (its client is private to TypeScript, not to JavaScript).
      const client = agent.client;
      const newSession = client.newSession.bind(client);
      let opened = 0;
      client.newSession = (...args) => ((opened += 1), newSession(...args));
      await agent.ask("Add a greeting helper");
      const first = { answer: agent.answer(), stopReason: agent.stopReason() };
      await agent.ask("Add a greeting helper, quick");
      const second = { answer: agent.answer(), stopReason: agent.stopReason() };
      const closed = firstValueFrom(client.state$.pipe(filter((s) => s === "disconnected"), timeout(10000)));
      injector.destroy();
      await closed;
      console.log(JSON.stringify({ first, second, opened }));
    `;
    writeFileSync(join(project, "out/harness.js"), harness);
    const { stdout } = await run(process.execPath, ["out/harness.js"], { cwd: project, timeout: 60_000 });
    type Turn = { answer: string; stopReason: string };
    const result = JSON.parse(stdout) as { first: Turn; second: Turn; opened: number };
    expect(result.first.stopReason).toBe("end_turn");
    expect(result.first.answer).toContain(ANSWER);
    // The second question goes to the same session, with only its own answer shown; the injector's end
    // disconnected the client (the harness waited for it).
    expect(result.second.stopReason).toBe("end_turn");
    expect(result.second.answer).toContain(ANSWER);
    expect(result.second.answer.length).toBeLessThan(result.first.answer.length * 1.5);
    expect(result.opened).toBe(1);
  }, TIMEOUT);
});
