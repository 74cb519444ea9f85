import { firstValueFrom, toArray, type Subscription } from "rxjs";
import { followLogs, type LogFollowDeps } from "../../../lib/sandbox/server/processes/log-follow.js";
import { toLogEntry } from "../../../lib/sandbox/server/processes/log-entry.js";
import type { ProcessInfo } from "../../../lib/sandbox/server/processes/schemas.js";
import type { ProcessLogEntry, Processes } from "../../../lib/sandbox/server/processes/index.js";
import { startFaultProxy, type FaultProxy } from "../../support/fault-proxy.js";
import { startLoopbackProxy, type LoopbackProxy } from "../../support/loopback-proxy.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { processesFor, until, untilExited } from "./helpers.js";

let server: SandboxAgentServer;
let proxy: FaultProxy;
let direct: Processes;
let proxied: Processes;
// A proxy that buffers event streams (as nginx with proxy_buffering does): it reads the upstream but
// passes nothing on until `release()`, so the follow stream is always slower than the exit path.
let holding: LoopbackProxy<Buffer[]>;
let held: Processes;
// A proxy that answers event-stream GETs only after a delay (a slow or far-away stream endpoint).
let delaying: LoopbackProxy<undefined>;
let delayed: Processes;
let streamDelayMs = 0;

beforeAll(async () => {
  server = await startSandboxAgent();
  proxy = await startFaultProxy(server.baseUrl);
  direct = processesFor(server.baseUrl);
  proxied = processesFor(proxy.baseUrl);
  holding = await startLoopbackProxy<Buffer[]>(server.baseUrl, {
    track: () => [],
    relay: (stream) => stream.upstream.on("data", (chunk: Buffer) => stream.data.push(chunk)),
  });
  held = processesFor(holding.baseUrl);
  delaying = await startLoopbackProxy(server.baseUrl, {
    onRequest: (req, forward) => {
      if (req.method === "GET" && /follow=true/.test(req.url ?? "")) setTimeout(forward, streamDelayMs);
      else forward();
    },
  });
  delayed = processesFor(delaying.baseUrl);
});
afterAll(async () => {
  await holding?.stop();
  await delaying?.stop();
  await proxy?.stop();
  await server?.stop();
});

const collect = (entries: ProcessLogEntry[]) => entries.map((e) => e.text).join("");

/**
 * Follows process `id` behind the buffering proxy (`tail` entries first), then writes `go` to it
 * once the held stream is open, and returns what `logs$` delivered by the time it completed.
 */
async function followHeldUntilExit(id: string, tail: number): Promise<ProcessLogEntry[]> {
  const entries: ProcessLogEntry[] = [];
  let completed = false;
  const subscription = held.logs$(id, { tail, pollIntervalMs: 20 }).subscribe({
    next: (entry) => entries.push(entry),
    complete: () => (completed = true),
  });
  try {
    await until(() => holding.streams.size > 0, 5_000, "the held stream to open");
    await direct.input(id, "go\n");
    await until(() => completed, 10_000, "logs$ to complete after exit");
  } finally {
    subscription.unsubscribe();
  }
  return entries;
}
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

  it("processes writing stdout and stderr at once, exiting quickly: every line of each, once", async () => {
    // Both of the server's pipe readers store at once: an entry can be stored after the next-numbered
    // one of the other stream; and the exit is recorded before the readers store the last output.
    const script = "for i in $(seq 1 1000); do echo out$i; echo err$i >&2; done";
    const lines = (name: string) => Array.from({ length: 1000 }, (_, i) => `${name}${i + 1}`);
    const infos = await Promise.all(Array.from({ length: 10 }, () => direct.spawn({ command: "sh", args: ["-c", script] })));
    const logs = await Promise.all(infos.map((info) => firstValueFrom(direct.logs$(info.id, { pollIntervalMs: 10 }).pipe(toArray()))));
    for (const entries of logs) {
      expect(collect(entries.filter((e) => e.stream === "stdout")).trimEnd().split("\n")).toEqual(lines("out"));
      expect(collect(entries.filter((e) => e.stream === "stderr")).trimEnd().split("\n")).toEqual(lines("err"));
      expect(new Set(entries.map((e) => e.sequence)).size).toBe(entries.length);
    }
  }, 60_000);

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

  describe("`tail` holds when the follow stream is slower than the exit path", () => {
    // One entry per line needs a pause between writes: the server logs each read as one entry.
    const rows = (n: number) => `for i in $(seq 1 ${n}); do echo row$i; sleep 0.01; done`;
    const sequences = (entries: ProcessLogEntry[]) => entries.map((e) => e.sequence);

    it("an exited process behind a buffering proxy: only the last 5 entries, then completes", async () => {
      const info = await direct.spawn({ command: "sh", args: ["-c", rows(40)] });
      await untilExited(() => direct.get(info.id));
      const all = await direct.logs(info.id);
      expect(all.length).toBeGreaterThan(10);
      const entries = await firstValueFrom(held.logs$(info.id, { tail: 5, pollIntervalMs: 20 }).pipe(toArray()));
      expect(sequences(entries)).toEqual(sequences(all.slice(-5)));
      expect(collect(entries)).toBe(collect(all.slice(-5)));
      expect(collect(entries)).toMatch(/row40\n$/);
      // Completing closed the held stream: nothing of it ever reached the client.
      await until(() => holding.streams.size === 0, 5_000, "the held stream to close");
    });

    it("an exited process whose stream answers late: only the last 5 entries", async () => {
      const info = await direct.spawn({ command: "sh", args: ["-c", rows(40)] });
      await untilExited(() => direct.get(info.id));
      const all = await direct.logs(info.id);
      expect(all.length).toBeGreaterThan(10);
      streamDelayMs = 500;
      try {
        const entries = await firstValueFrom(delayed.logs$(info.id, { tail: 5, pollIntervalMs: 20 }).pipe(toArray()));
        expect(sequences(entries)).toEqual(sequences(all.slice(-5)));
      } finally {
        streamDelayMs = 0;
      }
    });

    it("with `since` and one stream: the last N entries of that stream after `since`", async () => {
      const script = "for i in $(seq 1 30); do echo out$i; echo err$i >&2; sleep 0.01; done";
      const info = await direct.spawn({ command: "sh", args: ["-c", script] });
      await untilExited(() => direct.get(info.id));
      const stderr = await direct.logs(info.id, { stream: "stderr" });
      expect(stderr.length).toBeGreaterThan(10);
      const since = (stderr[3] as ProcessLogEntry).sequence;
      const options = { stream: "stderr" as const, since, tail: 3, pollIntervalMs: 20 };
      const entries = await firstValueFrom(held.logs$(info.id, options).pipe(toArray()));
      expect(sequences(entries)).toEqual(sequences(stderr.slice(-3)));
      expect(entries.every((e) => e.stream === "stderr")).toBe(true);
      // The same from the stream itself (no proxy: it answers first).
      const streamed = await firstValueFrom(direct.logs$(info.id, options).pipe(toArray()));
      expect(sequences(streamed)).toEqual(sequences(stderr.slice(-3)));
    });

    it("a running process behind a buffering proxy: the last 5 at subscription, then everything after", async () => {
      const script = `${rows(40)}; read go; echo after1; sleep 0.05; echo after2`;
      const info = await direct.spawn({ command: "sh", args: ["-c", script], interactive: true });
      await until(async () => collect(await direct.logs(info.id)).endsWith("row40\n"), 10_000, "the first 40 rows");
      const before = await direct.logs(info.id);
      const entries = await followHeldUntilExit(info.id, 5);
      const all = await direct.logs(info.id);
      const firstKept = (before[before.length - 5] as ProcessLogEntry).sequence;
      expect(sequences(entries)).toEqual(sequences(all.filter((e) => e.sequence >= firstKept)));
      expect(collect(entries)).toMatch(/^row3[6-9]\n(.|\n)*row40\nafter1\nafter2\n$/);
    });

    it("`tail: 0` behind a buffering proxy: only what is written after subscribing", async () => {
      const script = `${rows(20)}; read go; echo after1; sleep 0.05; echo after2`;
      const info = await direct.spawn({ command: "sh", args: ["-c", script], interactive: true });
      await until(async () => collect(await direct.logs(info.id)).endsWith("row20\n"), 10_000, "the first 20 rows");
      const entries = await followHeldUntilExit(info.id, 0);
      expect(collect(entries)).toBe("after1\nafter2\n");
    });
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

  it("an unknown process errors with a process-not-found NotFoundError", async () => {
    await expect(firstValueFrom(direct.logs$("proc_nope"))).rejects.toMatchObject({ name: "NotFoundError", kind: "process-not-found" });
  });
});

/**
 * A scripted server with the two orderings the real one (0.4.2) has at exit, found in its source
 * and by experiment: it marks a process `exited` as soon as the child is reaped, while its stdout
 * and stderr reader tasks may still be storing the last output (entries stamped after `exitedAtMs`
 * were seen); and each reader takes its sequence number before it stores the entry, so stdout's
 * last chunk was seen stored after stderr's entry with the next number.
 */
function scriptedServer(script: { exitAt: number; entries: { sequence: number; stream: string; text: string; storedAt: number }[] }): LogFollowDeps {
  const started = Date.now();
  const now = () => Date.now() - started;
  const wire = (e: (typeof script.entries)[number]) =>
    toLogEntry({ sequence: e.sequence, stream: e.stream, timestampMs: started + e.storedAt, data: Buffer.from(e.text).toString("base64"), encoding: "base64" });
  return {
    // The follow stream stays silent, as the real one is when it is slower than the exit path.
    open: async (_id, signal) => new ReadableStream({ start: (c) => signal.addEventListener("abort", () => c.close(), { once: true }) }),
    get: async () => {
      const exited = now() >= script.exitAt;
      return { id: "proc_1", command: "sh", args: [], tty: false, interactive: false, owner: "user", createdAtMs: started,
        status: exited ? "exited" : "running", ...(exited ? { exitCode: 0, exitedAtMs: started + script.exitAt } : {}) } as ProcessInfo;
    },
    read: async ({ since, tail }) => {
      const stored = script.entries.filter((e) => e.storedAt <= now()).sort((a, b) => a.storedAt - b.storedAt);
      const kept = stored.filter((e) => since === undefined || e.sequence > since).map(wire);
      return tail === undefined ? kept : kept.slice(-tail);
    },
  };
}

describe("logs$ (follow) at exit, against a scripted server", () => {
  const options = { pollIntervalMs: 20 };

  it("delivers output the server stores shortly after it reports the exit", async () => {
    const deps = scriptedServer({
      exitAt: 0,
      entries: [
        { sequence: 1, stream: "stdout", text: "first\n", storedAt: 0 },
        { sequence: 2, stream: "stdout", text: "last\n", storedAt: 180 },
      ],
    });
    const entries = await firstValueFrom(followLogs("proc_1", deps, options).pipe(toArray()));
    expect(collect(entries)).toBe("first\nlast\n");
  });

  it("delivers an entry stored after 21 later-numbered ones (stdout and stderr readers race)", async () => {
    // As seen once: stderr's entry 14 stored after stdout's 15 to 35, all of them before the exit.
    const stdout = Array.from({ length: 35 }, (_, i) => i + 1).filter((n) => n !== 14);
    const deps = scriptedServer({
      exitAt: 40,
      entries: [
        ...stdout.map((n) => ({ sequence: n, stream: "stdout", text: `out${n}\n`, storedAt: 0 })),
        { sequence: 14, stream: "stderr", text: "err14\n", storedAt: 60 },
      ],
    });
    const entries = await firstValueFrom(followLogs("proc_1", deps, options).pipe(toArray()));
    expect(entries.map((e) => e.sequence).sort((a, b) => a - b)).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    expect(collect(entries.filter((e) => e.stream === "stderr"))).toBe("err14\n");
  });

  it("delivers the very first entry when it is stored after later-numbered ones", async () => {
    const deps = scriptedServer({
      exitAt: 40,
      entries: [
        ...[2, 3, 4].map((n) => ({ sequence: n, stream: "stdout", text: `out${n}\n`, storedAt: 0 })),
        { sequence: 1, stream: "stderr", text: "err1\n", storedAt: 60 },
      ],
    });
    const entries = await firstValueFrom(followLogs("proc_1", deps, options).pipe(toArray()));
    expect(entries.map((e) => e.sequence).sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
  });
});
