import { SandboxAgentHttpError } from "../../../lib/sandbox/errors.js";
import { } from "../../../lib/sandbox/errors.js";
import { } from "../../../lib/sandbox/errors.js";
import { } from "../../../lib/sandbox/errors.js";
import { } from "../../../lib/sandbox/errors.js";
import { } from "../../../lib/sandbox/errors.js";
import type { Processes } from "../../../lib/sandbox/server/processes/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { processesFor, until, untilExited } from "./helpers.js";

let server: SandboxAgentServer;
let processes: Processes;

beforeAll(async () => {
  server = await startSandboxAgent();
  processes = processesFor(server.baseUrl);
});
afterAll(() => server?.stop());

describe("processes.run against the real server", () => {
  it("returns stdout, stderr and the exit code of a command", async () => {
    const result = await processes.run({ command: "sh", args: ["-c", "echo hello; echo oops >&2"] });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: "hello\n", stderr: "oops\n", stdoutTruncated: false });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("treats a non-zero exit as a result", async () => {
    const result = await processes.run({ command: "sh", args: ["-c", "exit 7"] });
    expect(result.exitCode).toBe(7);
    expect(result.timedOut).toBe(false);
  });

  it("reports a timeout with timedOut and no exit code", async () => {
    const result = await processes.run({ command: "sleep", args: ["5"], timeoutMs: 300 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it("truncates output at maxOutputBytes", async () => {
    const result = await processes.run({ command: "sh", args: ["-c", "echo 0123456789"], maxOutputBytes: 5 });
    expect(result.stdout).toBe("01234");
    expect(result.stdoutTruncated).toBe(true);
  });

  it("passes cwd and env", async () => {
    const result = await processes.run({ command: "sh", args: ["-c", 'pwd; echo "$GREETING"'], cwd: "/tmp", env: { GREETING: "hi" } });
    expect(result.stdout).toBe("/tmp\nhi\n");
  });

  it("throws a spawn-failed error for a missing binary, run and spawn alike", async () => {
    const run = processes.run({ command: "/no/such/binary" });
    await expect(run).rejects.toMatchObject({ name: "SandboxAgentHttpError", kind: "spawn-failed" });
    await expect(run).rejects.toMatchObject({ status: 502, command: "/no/such/binary" });
    await expect(processes.spawn({ command: "/no/such/binary" })).rejects.toMatchObject({ name: "SandboxAgentHttpError", kind: "spawn-failed" });
  });
});

describe("spawned processes against the real server", () => {
  it("spawn cat interactive → input → logs contain it → stop → exited", async () => {
    const info = await processes.spawn({ command: "cat", interactive: true });
    expect(info).toMatchObject({ command: "cat", status: "running", interactive: true, tty: false, owner: "user" });
    expect(await processes.input(info.id, "hello from text\n")).toEqual({ bytesWritten: 16 });
    await processes.input(info.id, new Uint8Array([0x62, 0x79, 0x74, 0x65, 0x73, 0x0a]));
    await until(async () => (await processes.logs(info.id)).map((e) => e.text).join("") === "hello from text\nbytes\n", 5_000, "echoed input");
    const stdout = await processes.logs(info.id, { stream: "stdout" });
    expect(stdout.every((entry) => entry.stream === "stdout" && entry.data instanceof Uint8Array)).toBe(true);
    const stopped = await processes.stop(info.id, { waitMs: 2_000 });
    expect(stopped.status).toBe("exited");
    expect((await processes.get(info.id)).status).toBe("exited");
    await expect(processes.input(info.id, "late\n")).rejects.toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "process-not-running" });
    expect((await processes.list()).map((p) => p.id)).toContain(info.id);
  });

  it("logs: tail and since select entries; sequences grow", async () => {
    const info = await processes.spawn({ command: "sh", args: ["-c", "for i in 1 2 3 4 5; do echo $i; sleep 0.05; done"] });
    await untilExited(() => processes.get(info.id));
    const all = await processes.logs(info.id);
    expect(all.map((e) => e.text).join("")).toBe("1\n2\n3\n4\n5\n");
    const sequences = all.map((e) => e.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    expect((await processes.logs(info.id, { tail: 1 })).map((e) => e.sequence)).toEqual([sequences.at(-1)]);
    expect((await processes.logs(info.id, { since: sequences[0] })).map((e) => e.sequence)).toEqual(sequences.slice(1));
  });

  it("stop leaves a TERM-ignoring shell running; kill ends it without an exit code", async () => {
    const info = await processes.spawn({ command: "sh", args: ["-c", "trap '' TERM; while true; do sleep 0.1; done"] });
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the shell install its trap
    expect((await processes.stop(info.id, { waitMs: 500 })).status).toBe("running");
    const killed = await processes.kill(info.id, { waitMs: 2_000 });
    expect(killed.status).toBe("exited");
    expect(killed.exitCode ?? null).toBeNull();
  });

  it("remove: running → a 409 of kind process-running; exited → removed, then a process-not-found NotFoundError (404)", async () => {
    const info = await processes.spawn({ command: "sleep", args: ["30"] });
    const running = processes.remove(info.id);
    await expect(running).rejects.toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "process-running" });
    await expect(running).rejects.toMatchObject({ status: 409, processId: info.id });
    await processes.kill(info.id, { waitMs: 2_000 });
    await untilExited(() => processes.get(info.id));
    await expect(processes.remove(info.id)).resolves.toBeUndefined();
    const gone = processes.get(info.id);
    await expect(gone).rejects.toMatchObject({ name: "NotFoundError", kind: "process-not-found" });
    await expect(gone).rejects.toBeInstanceOf(SandboxAgentHttpError);
    await expect(processes.remove(info.id)).rejects.toMatchObject({ status: 404 });
  });

  it("unknown ids are a process-not-found NotFoundError on every route", async () => {
    for (const call of [
      () => processes.get("proc_nope"),
      () => processes.stop("proc_nope"),
      () => processes.kill("proc_nope"),
      () => processes.input("proc_nope", "x"),
      () => processes.logs("proc_nope"),
    ]) {
      await expect(call()).rejects.toMatchObject({ name: "NotFoundError", kind: "process-not-found" });
    }
  });

  it("list filters by owner", async () => {
    const info = await processes.spawn({ command: "true" });
    expect((await processes.list({ owner: "user" })).map((p) => p.id)).toContain(info.id);
    expect((await processes.list({ owner: "system" })).map((p) => p.id)).not.toContain(info.id);
  });

  it("resize over HTTP: a tty process answers its size; a pipe process is a 409 of kind not-a-terminal", async () => {
    const tty = await processes.spawn({ command: "sleep", args: ["10"], tty: true });
    expect(await processes.resize(tty.id, 100, 30)).toEqual({ cols: 100, rows: 30 });
    await processes.kill(tty.id);
    const pipe = await processes.spawn({ command: "sleep", args: ["10"] });
    await expect(processes.resize(pipe.id, 100, 30)).rejects.toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "not-a-terminal" });
    await processes.kill(pipe.id);
  });

  it("status$ emits running, then exited with the exit code, and completes", async () => {
    const info = await processes.spawn({ command: "sh", args: ["-c", "sleep 0.3; exit 3"] });
    const seen: Array<{ status: string; exitCode?: number | null }> = [];
    await new Promise<void>((resolve, reject) =>
      processes.status$(info.id, { pollIntervalMs: 50 }).subscribe({ next: (i) => seen.push(i), error: reject, complete: resolve }),
    );
    expect(seen.map((i) => i.status)).toEqual(["running", "exited"]);
    expect(seen[1]?.exitCode).toBe(3);
  });

  it("status$ of a signal-killed process ends with no exit code", async () => {
    const info = await processes.spawn({ command: "sleep", args: ["30"] });
    const done = new Promise<Array<{ status: string; exitCode?: number | null }>>((resolve, reject) => {
      const seen: Array<{ status: string; exitCode?: number | null }> = [];
      processes.status$(info.id, { pollIntervalMs: 50 }).subscribe({ next: (i) => seen.push(i), error: reject, complete: () => resolve(seen) });
    });
    await processes.kill(info.id);
    const seen = await done;
    expect(seen.at(-1)?.status).toBe("exited");
    expect(seen.at(-1)?.exitCode ?? null).toBeNull();
  });

  it("status$ of an unknown process errors with a process-not-found NotFoundError", async () => {
    await expect(
      new Promise((resolve, reject) => processes.status$("proc_nope").subscribe({ error: reject, complete: () => resolve(undefined) })),
    ).rejects.toMatchObject({ name: "NotFoundError", kind: "process-not-found" });
  });

  it("getConfig / setConfig round-trip the limits", async () => {
    const config = await processes.getConfig();
    expect(config).toMatchObject({ maxConcurrentProcesses: expect.any(Number), maxInputBytesPerRequest: expect.any(Number) });
    const changed = await processes.setConfig({ ...config, maxOutputBytes: 4096 });
    expect(changed.maxOutputBytes).toBe(4096);
    expect((await processes.getConfig()).maxOutputBytes).toBe(4096);
    const result = await processes.run({ command: "head", args: ["-c", "10000", "/dev/zero"] });
    expect(result.stdout.length).toBe(4096);
    expect(result.stdoutTruncated).toBe(true);
    await processes.setConfig(config);
  });
});

describe("processes.run and the call's deadline", () => {
  /** Whether the process `pid` still exists on the server's machine. */
  const alive = async (pid: string): Promise<boolean> =>
    (await processes.run({ command: "sh", args: ["-c", `kill -0 ${pid} 2>/dev/null`] })).exitCode === 0;

  it("has the server stop a command the call gave up on at its timeoutMs", async () => {
    const script = "echo $$ > run-deadline.pid; exec sleep 30";
    const run = processes.run({ command: "sh", args: ["-c", script], cwd: "/tmp" }, { timeoutMs: 500 });
    // The server's answer (timedOut) comes just before the call's deadline, or just after it.
    const outcome = await run.then((result) => (result.timedOut ? "timedOut" : "finished"), (e: Error) => e.name);
    expect(["timedOut", "TimeoutError"]).toContain(outcome);
    const pid = (await processes.run({ command: "cat", args: ["/tmp/run-deadline.pid"] })).stdout.trim();
    expect(pid).toMatch(/^\d+$/);
    // Gone long before its 30 s sleep (or the server's 30 s default) would end it.
    await until(async () => !(await alive(pid)), 5_000, `process ${pid} to be stopped`);
  });

  it("keeps the request's own timeoutMs over the call's", async () => {
    const result = await processes.run({ command: "sleep", args: ["5"], timeoutMs: 200 }, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
  });
});
