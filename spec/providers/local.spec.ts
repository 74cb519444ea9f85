// local(): the real 0.4.2 server as a child process, the scripted agent as its `mock` agent.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PassThrough } from "node:stream";
import { local } from "../../lib/providers/local/index.js";
import { watchdogPid } from "../../lib/providers/local/watchdog.js";
import { freePort } from "../support/ports.js";
import { CallAbortedError, SandboxAgentClient } from "../../lib/sandbox/index.js";
import { } from "../../lib/sandbox/errors.js";
import { SandboxStartError } from "../../lib/sandbox/errors.js";
import { startSandbox } from "../../lib/sandbox/index.js";
import { runExample } from "../examples/run-example.js";
import { eventually, isRunning, portIsFree, processesMatching } from "./support/processes.js";
import { onLinux, procEnviron, procStat, spawnStrays } from "./support/stray-processes.js";

const agent = fileURLToPath(new URL("../support/scripted-agent.mjs", import.meta.url));
const text = (t: string) => [{ type: "text" as const, text: t }];

describe("local() provider", () => {
  let scratch: string;
  beforeAll(() => (scratch = mkdtempSync(join(tmpdir(), "local-spec-"))));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("starts a server, prompts through the scripted agent, and destroys it without a trace", async () => {
    const log = new PassThrough();
    let logged = "";
    log.on("data", (chunk: Buffer) => (logged += chunk.toString("utf8")));
    const provider = local({ mockAgent: agent, log });
    const started = await startSandbox({ sandbox: provider, agent: "mock" });
    const details = provider.details(started.info.id);
    if (!details) throw new Error("no details for a running sandbox");
    try {
      expect(started.info.baseUrl).toBe(`http://127.0.0.1:${details.port}`);
      expect(started.info.token).toMatch(/^[0-9a-f]{48}$/);
      expect(started.client.connected).toBe(true);
      const session = await started.client.newSession();
      const outcome = await started.client.prompt(session.sessionId, text("hello"));
      expect(outcome.stopReason).toBe("end_turn");
      // Without the token the server refuses: it really runs with one.
      const anonymous = await fetch(`${started.info.baseUrl}/v1/agents`);
      expect(anonymous.status).toBe(401);
      // Its logs reach the stream we gave, and its own dirs hold them no more (SANDBOX_AGENT_LOG_STDOUT).
      expect(logged).toContain('message="server listening"');
      expect(details.output()).toContain("session/prompt");
      expect(existsSync(join(details.dataHome, "sandbox-agent", "logs"))).toBe(false);
      expect(logged).not.toContain(started.info.token);
    } finally {
      await started.destroy();
    }
    expect(isRunning(details.pid)).toBe(false);
    expect(await portIsFree(details.port)).toBe(true);
    expect(existsSync(details.home)).toBe(false);
    expect(provider.details(started.info.id)).toBeUndefined();
    await started.destroy(); // idempotent
  }, 60_000);

  it("disconnect() alone leaves the sandbox running; destroy() ends it", async () => {
    const provider = local({ mockAgent: agent });
    const started = await startSandbox({ sandbox: provider, agent: "mock" });
    const pid = provider.details(started.info.id)?.pid ?? 0;
    await started.client.disconnect();
    const health = await fetch(`${started.info.baseUrl}/v1/health`, { headers: { Authorization: `Bearer ${started.info.token}` } });
    expect(health.status).toBe(200);
    expect(isRunning(pid)).toBe(true);
    await started.destroy();
    expect(isRunning(pid)).toBe(false);
  }, 60_000);

  it("SandboxAgentClient.start() owns the sandbox: destroySandbox() ends it, disconnect() alone does not", async () => {
    const provider = local({ mockAgent: agent });
    const client = await SandboxAgentClient.start({ sandbox: provider, agent: "mock" });
    const info = client.sandbox;
    if (!info) throw new Error("a started client knows its sandbox");
    const pid = provider.details(info.id)?.pid ?? 0;
    try {
      const session = await client.newSession();
      expect((await client.prompt(session.sessionId, text("hello"))).stopReason).toBe("end_turn");
      await client.disconnect();
      expect(isRunning(pid)).toBe(true);
    } finally {
      await client.destroySandbox();
    }
    expect(isRunning(pid)).toBe(false);
    expect(provider.details(info.id)).toBeUndefined();
    // A client made with `new` owns no sandbox: destroySandbox() does nothing.
    const plain = new SandboxAgentClient({ baseUrl: info.baseUrl, autoConnect: false });
    expect(plain.sandbox).toBeUndefined();
    await expect(plain.destroySandbox()).resolves.toBeUndefined();
  }, 60_000);

  const linuxOnly = onLinux ? it : it.skip;
  if (!onLinux) process.stderr.write("skipped: local() destroy vs. processes outside the server's group: needs Linux (/proc, setsid)\n");

  linuxOnly("destroySandbox() ends the processes that left the server's group: tty, setsid'd, env cleared", async () => {
    const provider = local({ mockAgent: agent });
    const client = await SandboxAgentClient.start({ sandbox: provider, agent: "mock" });
    const details = client.sandbox && provider.details(client.sandbox.id);
    if (!details) throw new Error("a started client knows its sandbox");
    let strays: number[] = [];
    try {
      const { tty, clearedEnv, orphan } = await spawnStrays(client, scratch);
      strays = [tty, clearedEnv, orphan];
      // What makes them hard to find: none is in the server's process group, two have their own session.
      for (const pid of strays) expect(procStat(pid).pgrp).not.toBe(details.pid);
      expect(procStat(tty)).toMatchObject({ ppid: details.pid, pgrp: tty, session: tty });
      expect(procStat(orphan)).toMatchObject({ pgrp: orphan, session: orphan });
      expect(procStat(orphan).ppid).not.toBe(details.pid);
      expect(procStat(clearedEnv).ppid).toBe(tty);
      expect(procEnviron(clearedEnv).filter((entry) => !entry.startsWith("PWD="))).toEqual([]);
      expect(strays.every(isRunning)).toBe(true);
    } finally {
      await client.destroySandbox();
    }
    expect(isRunning(details.pid)).toBe(false);
    expect(strays.filter(isRunning)).toEqual([]);
  }, 60_000);

  it("writes nothing to the terminal unless asked", async () => {
    const result = await runExample("spec/providers/support/local-parent.ts", ["quiet"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("");
  }, 60_000);

  it("accepts a token that starts with a dash (it is not read as a flag)", async () => {
    const provider = local({ token: "-d-looks-like-a-flag" });
    const info = await provider.create();
    try {
      const health = await fetch(`${info.baseUrl}/v1/agents`, { headers: { Authorization: "Bearer -d-looks-like-a-flag" } });
      expect(health.status).toBe(200);
    } finally {
      await provider.destroy(info.id);
    }
  }, 30_000);

  it("fails start-up with the server's output tail, the token redacted", async () => {
    const fake = join(scratch, "exits-at-once");
    writeFileSync(fake, `#!/bin/sh\necho "fake server starting with $*" >&2\necho "fatal: scripted failure" >&2\nexit 3\n`);
    chmodSync(fake, 0o755);
    const provider = local({ binaryPath: fake, token: "sekrit-token-123" });
    const error = await provider.create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    const start = error as SandboxStartError;
    expect(start.reason).toBe("exited");
    expect(start.output).toContain("fatal: scripted failure");
    expect(start.message).toContain("fatal: scripted failure");
    expect(start.message).toContain("[redacted]");
    expect(start.message).not.toContain("sekrit-token-123");
    expect(start.output).toContain("--no-telemetry");
  });

  it("reports the last of a server's output, even when it exits right after writing it", async () => {
    const fake = join(scratch, "floods-then-exits");
    writeFileSync(fake, `#!/bin/sh\nhead -c 400000 /dev/zero | tr '\\0' 'x' | fold -w 100 >&2\necho >&2\necho "LAST LINE" >&2\nexit 5\n`);
    chmodSync(fake, 0o755);
    for (let i = 0; i < 3; i++) {
      const error = await local({ binaryPath: fake }).create().catch((e: unknown) => e);
      expect((error as SandboxStartError).reason).toBe("exited");
      expect((error as SandboxStartError).output.split("\n").at(-1)).toBe("LAST LINE");
    }
  }, 30_000);

  it("says where it looked when there is no binary", async () => {
    const provider = local({ binaryPath: join(scratch, "does-not-exist") });
    const error = await provider.create().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    expect((error as SandboxStartError).reason).toBe("spawn-failed");
    expect((error as Error).message).toContain(join(scratch, "does-not-exist"));
  });

  it("honours SANDBOX_AGENT_BIN", async () => {
    const fake = join(scratch, "env-bin");
    writeFileSync(fake, `#!/bin/sh\necho "env binary ran" >&2\nexit 4\n`);
    chmodSync(fake, 0o755);
    const before = process.env.SANDBOX_AGENT_BIN;
    process.env.SANDBOX_AGENT_BIN = fake;
    try {
      const error = await local().create().catch((e: unknown) => e);
      expect((error as SandboxStartError).output).toContain("env binary ran");
    } finally {
      if (before === undefined) delete process.env.SANDBOX_AGENT_BIN;
      else process.env.SANDBOX_AGENT_BIN = before;
    }
  });

  it("an aborted create leaves no server and no port behind", async () => {
    const port = await freePort();
    const provider = local({ mockAgent: agent, port });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    await expect(provider.create({ signal: controller.signal })).rejects.toBeInstanceOf(CallAbortedError);
    expect(await eventually(() => processesMatching(`-p ${port}`).length === 0, 5000)).toBe(true);
    expect(await portIsFree(port)).toBe(true);
  }, 30_000);

  it("pauses (the server stops answering) and resumes", async () => {
    const provider = local({ mockAgent: agent });
    const info = await provider.create();
    const headers = { Authorization: `Bearer ${info.token}` };
    try {
      await provider.pause?.(info.id);
      await expect(fetch(`${info.baseUrl}/v1/health`, { headers, signal: AbortSignal.timeout(500) })).rejects.toThrow();
      const again = await provider.resume?.(info.id);
      expect(again?.baseUrl).toBe(info.baseUrl);
      expect((await fetch(`${info.baseUrl}/v1/health`, { headers })).status).toBe(200);
    } finally {
      await provider.destroy(info.id);
    }
    await expect(provider.resume?.(info.id)).rejects.toMatchObject({ name: "SandboxAgentError", kind: "sandbox-not-found" });
  }, 30_000);

  it("20 start/destroy cycles leave no process, port, dir or watchdog behind", async () => {
    const provider = local({ mockAgent: agent });
    const seen: { pid: number; port: number; home: string }[] = [];
    const watchdogs = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const started = await startSandbox({ sandbox: provider, agent: "mock" });
      const details = provider.details(started.info.id);
      if (!details) throw new Error("no details");
      seen.push({ pid: details.pid, port: details.port, home: details.home });
      const watchdog = watchdogPid();
      if (watchdog !== undefined) watchdogs.add(watchdog);
      await started.destroy();
    }
    expect(watchdogPid()).toBeUndefined();
    for (const { pid, port, home } of seen) {
      expect(isRunning(pid)).toBe(false);
      expect(await portIsFree(port)).toBe(true);
      expect(existsSync(home)).toBe(false);
    }
    expect(watchdogs.size).toBeGreaterThan(0);
    expect(await eventually(() => [...watchdogs].every((pid) => !isRunning(pid)), 5000)).toBe(true);
  }, 180_000);
});
