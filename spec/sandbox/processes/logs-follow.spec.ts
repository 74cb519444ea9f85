import { firstValueFrom, toArray, type Subscription } from "rxjs";
import { ProcessNotFoundError } from "../../../lib/sandbox/errors/process-not-found-error.js";
import type { ProcessLogEntry, Processes } from "../../../lib/sandbox/processes/index.js";
import { startFaultProxy, type FaultProxy } from "../../support/fault-proxy.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { processesFor, until, untilExited } from "./helpers.js";

let server: SandboxAgentServer;
let proxy: FaultProxy;
let direct: Processes;
let proxied: Processes;

beforeAll(async () => {
  server = await startSandboxAgent();
  proxy = await startFaultProxy(server.baseUrl);
  direct = processesFor(server.baseUrl);
  proxied = processesFor(proxy.baseUrl);
});
afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
});

const collect = (entries: ProcessLogEntry[]) => entries.map((e) => e.text).join("");
const fast = { pollIntervalMs: 100, reconnect: { initialDelayMs: 10, maxDelayMs: 100, maxRetries: 10 } };

describe("logs$ (follow) against the real server", () => {
  it("delivers every entry exactly once, in sequence, across 25 forced drops, and completes after exit", async () => {
    const info = await direct.spawn({ command: "sh", args: ["-c", 'i=0; while true; do i=$((i+1)); echo "line$i"; sleep 0.01; done'] });
    const received: ProcessLogEntry[] = [];
    let completed = false;
    let failure: unknown;
    const subscription = proxied.logs$(info.id, fast).subscribe({
      next: (entry) => received.push(entry),
      error: (error) => (failure = error),
      complete: () => (completed = true),
    });
    let cuts = 0;
    while (cuts < 25) {
      await until(() => proxy.openStreams() > 0, 5_000, "the log stream to be open");
      const before = received.length;
      await until(() => received.length > before, 5_000, "an entry after reconnecting");
      cuts += proxy.cutStreams();
    }
    await direct.stop(info.id, { waitMs: 2_000 });
    await until(() => completed || failure !== undefined, 10_000, "logs$ to complete after exit");
    subscription.unsubscribe();
    expect(failure).toBeUndefined();

    const sequences = received.map((e) => e.sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    const retained = await direct.logs(info.id);
    expect(sequences).toEqual(retained.map((e) => e.sequence));
    const lines = collect(received).trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(25);
    expect(lines).toEqual(lines.map((_, i) => `line${i + 1}`));
    // Every reconnect resumed from the last delivered entry.
    const resumed = proxy.lastEventIds().filter((id) => id !== undefined).map(Number);
    expect(resumed.length).toBeGreaterThanOrEqual(25);
    expect(resumed.every((id) => sequences.includes(id))).toBe(true);
    // Completing aborted the stream request (the proxy sees the socket close a moment later).
    await until(() => proxy.openStreams() === 0, 5_000, "the stream request to be aborted");
  }, 60_000);

  it("completes after a quick process exits, with all of its output", async () => {
    const info = await direct.spawn({ command: "sh", args: ["-c", "for i in $(seq 1 2000); do echo row$i; done; echo done >&2"] });
    const entries = await firstValueFrom(direct.logs$(info.id, { pollIntervalMs: 50 }).pipe(toArray()));
    const stdout = collect(entries.filter((e) => e.stream === "stdout"));
    expect(stdout.trimEnd().split("\n")).toEqual(Array.from({ length: 2000 }, (_, i) => `row${i + 1}`));
    expect(collect(entries.filter((e) => e.stream === "stderr"))).toBe("done\n");
  });

  it("follows one stream only (sequence numbers then skip) and still completes", async () => {
    const info = await direct.spawn({ command: "sh", args: ["-c", "for i in 1 2 3; do echo out$i; echo err$i >&2; sleep 0.05; done"] });
    const entries = await firstValueFrom(direct.logs$(info.id, { stream: "stderr", pollIntervalMs: 50 }).pipe(toArray()));
    expect(entries.every((e) => e.stream === "stderr")).toBe(true);
    expect(collect(entries)).toBe("err1\nerr2\nerr3\n");
  });

  it("starts after `since` and follows a tty process's pty stream", async () => {
    const info = await direct.spawn({ command: "sh", args: ["-c", "echo one; sleep 0.2; echo two; sleep 0.2; echo three"], tty: true });
    await until(async () => (await direct.logs(info.id, { stream: "pty" })).length > 0, 5_000, "the first pty entry");
    const first = (await direct.logs(info.id, { stream: "pty" }))[0] as ProcessLogEntry;
    const rest = await firstValueFrom(direct.logs$(info.id, { stream: "pty", since: first.sequence, pollIntervalMs: 50 }).pipe(toArray()));
    expect(rest.every((e) => e.sequence > first.sequence && e.stream === "pty")).toBe(true);
    // At exit the server logs its own read error of the PTY (EIO) into the pty stream.
    expect(collect([first, ...rest]).replace(/\r/g, "")).toBe("one\ntwo\nthree\n\n[process stream error: I/O error (os error 5)]\n");
  });

  it("a process that has already exited: replays its log and completes", async () => {
    const info = await direct.spawn({ command: "sh", args: ["-c", "echo gone"] });
    await untilExited(() => direct.get(info.id));
    expect(collect(await firstValueFrom(direct.logs$(info.id).pipe(toArray())))).toBe("gone\n");
  });

  it("follow: false reads the retained entries once", async () => {
    const info = await direct.spawn({ command: "sh", args: ["-c", "echo a; sleep 5"] });
    await until(async () => (await direct.logs(info.id)).length > 0, 5_000, "output");
    expect(collect(await firstValueFrom(direct.logs$(info.id, { follow: false }).pipe(toArray())))).toBe("a\n");
    await direct.kill(info.id);
  });

  it("unsubscribing aborts the stream request", async () => {
    const info = await direct.spawn({ command: "sleep", args: ["30"] });
    const subscription: Subscription = proxied.logs$(info.id).subscribe();
    await until(() => proxy.openStreams() > 0, 5_000, "the stream to open");
    subscription.unsubscribe();
    await until(() => proxy.openStreams() === 0, 5_000, "the stream to close");
    await direct.kill(info.id);
  });

  it("an unknown process errors with ProcessNotFoundError", async () => {
    await expect(firstValueFrom(direct.logs$("proc_nope"))).rejects.toBeInstanceOf(ProcessNotFoundError);
  });
});
