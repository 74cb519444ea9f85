/**
 * One AbortSignal shared by thousands of calls (an app's "page closed" signal, say) must not
 * collect a listener per call: every operation that listens on the caller's signal stops
 * listening when it ends, whether it succeeded, failed or was unsubscribed. 1,000 operations
 * of each kind run on one signal against the real server (connect/disconnect cycles: 20,
 * each starts an agent process and takes about 1 s); afterwards the signal has no abort listener left, and Node
 * never warned about too many (`MaxListenersExceededWarning`, from the 11th listener).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { getEventListeners } from "node:events";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { firstValueFrom, fromEvent, lastValueFrom, takeUntil, toArray } from "rxjs";
import type { AcpHttpClient } from "../../lib/acp-http/index.js";
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
import { wsConstructor } from "../sandbox/processes/helpers.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { report, scratchDir, sessionParams, textPrompt, v1Client } from "./support/helpers.js";

const PER_KIND = 1000;
const CONNECT_CYCLES = 20;
/** Operations of one kind in flight at once (prompts: one lane per session, as a session runs one turn). */
const LANES = 8;

let server: SandboxAgentServer;
let client: SandboxAgentClient;
let acp: AcpHttpClient;

beforeAll(async () => {
  server = await startSandboxAgent();
  client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", serverApi: "v1", WebSocket: wsConstructor });
  await client.ready;
  acp = v1Client(server.baseUrl, "abort-listeners");
  await acp.initialize();
}, 30_000);

afterAll(async () => {
  await acp?.disconnect();
  await client?.disconnect();
  await server?.stop();
});

/** Settles either way: failures are part of what is measured (an error path must unlink too). */
const settle = (promise: Promise<unknown>): Promise<unknown> => promise.then(
  () => undefined,
  () => undefined,
);

/** Runs `op(i)` for i < count, `lanes` at a time, each lane in order. */
async function runLanes(count: number, lanes: number, op: (i: number, lane: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (next < count) await settle(op(next++, lane));
    }),
  );
}

type Op = (signal: AbortSignal, i: number, lane: number) => Promise<unknown>;

describe("one AbortSignal shared by every call", () => {
  it("has no abort listener left after 1,000 operations of every kind, and Node never warned", async () => {
    const dir = scratchDir();
    const file = join(dir, "shared.txt");
    await client.fs.writeFile(file, "x");
    mkdirSync(join(dir, "moved"));
    const sessions = await Promise.all(Array.from({ length: LANES }, () => client.newSession({ cwd: dir })));
    const acpSessions = await Promise.all(Array.from({ length: LANES }, () => acp.newSession(sessionParams())));
    const shell = await client.processes.spawn({ command: "sh", tty: true, interactive: true });
    const cat = await client.processes.spawn({ command: "cat", interactive: true });
    const exited = await client.processes.run({ command: "true" }).then(() => client.processes.spawn({ command: "true" }));
    const other = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", serverApi: "v1", autoConnect: false });

    const ops: Record<string, Op> = {
      // The agent connection: requests and prompts, answered and failed, with and without a deadline.
      "client.request": (signal) => client.request("_probe/echo", { a: 1 }, { signal }),
      "client.request (timeoutMs)": (signal) => client.request("_probe/echo", { a: 1 }, { signal, timeoutMs: 30_000 }),
      "client.request (agent error)": (signal) => client.request("_probe/nope", {}, { signal }),
      "client.prompt": (signal, _, lane) => client.prompt(sessions[lane]!.sessionId, "chunks 2", { signal }),
      "client.prompt (timeoutMs)": (signal, _, lane) =>
        client.prompt(sessions[lane]!.sessionId, "chunks 1", { signal, timeoutMs: 30_000 }),
      "client.prompt (agent error)": (signal, _, lane) => client.prompt(sessions[lane]!.sessionId, "error", { signal }),
      // Listed before newSession adds 1,000 sessions to the list.
      "client.listSessions": (signal) => client.listSessions({}, { signal }),
      "client.newSession": (signal) => client.newSession({ cwd: dir }, { signal }),
      "client.listModels": (signal) => client.listModels(undefined, { signal }),
      "client.setSessionMode": (signal, i, lane) =>
        client.setSessionMode(sessions[lane]!.sessionId, i % 2 ? "plan" : "normal", { signal }),
      "acp.extMethod": (signal) => acp.extMethod("_probe/echo", { a: 1 }, { signal }),
      "acp.prompt": (signal, _, lane) => acp.prompt(textPrompt(acpSessions[lane]!.sessionId, "chunks 2"), { signal }),
      "acp.request$ (unsubscribed in flight)": async (signal) => {
        const subscription = acp.request$("_probe/echo", { a: 1 }, { signal }).subscribe({ error: () => undefined });
        await new Promise((resolve) => setImmediate(resolve));
        subscription.unsubscribe();
      },
      "acp.request$ (completed)": (signal) => firstValueFrom(acp.request$("_probe/echo", { a: 1 }, { signal })),
      // The control plane.
      health: (signal) => client.health({ signal }),
      "health (timeoutMs)": (signal) => client.health({ signal, timeoutMs: 30_000 }),
      waitForHealth: (signal) => client.waitForHealth({ signal }),
      listAgents: (signal) => client.listAgents({ signal }),
      getAgent: (signal) => client.getAgent("mock", { signal }),
      listConnections: (signal) => client.listConnections({ signal }),
      "desktop.status": (signal) => client.desktop.status({ signal }),
      "config.getMcpConfig (not found)": (signal) => client.config.getMcpConfig({ directory: dir, name: "none" }, { signal }),
      "config.setSkillsConfig": (signal) => client.config.setSkillsConfig({ directory: dir, name: "s" }, { sources: [] }, { signal }),
      "fs.writeFile": (signal, i) => client.fs.writeFile(join(dir, `w${i % 16}.txt`), "data", { signal }),
      "fs.readFile": (signal) => client.fs.readFile(file, { signal }),
      "fs.readFile (missing)": (signal) => client.fs.readFile(join(dir, "missing.txt"), { signal }),
      "fs.stat": (signal) => client.fs.stat(file, { signal }),
      "fs.listEntries": (signal) => client.fs.listEntries(dir, { signal }),
      "fs.mkdir + move + deleteEntry": async (signal, i) => {
        const a = join(dir, `d${i}`);
        await client.fs.mkdir(a, { signal });
        await client.fs.move(a, join(dir, "moved", `d${i}`), {}, { signal });
        await client.fs.deleteEntry(join(dir, "moved", `d${i}`), { recursive: true }, { signal });
      },
      // Processes and terminals.
      "processes.run": (signal) => client.processes.run({ command: "true" }, { signal }),
      "processes.spawn + kill + remove": async (signal) => {
        const info = await client.processes.spawn({ command: "sleep", args: ["30"] }, { signal });
        await client.processes.kill(info.id, { signal, waitMs: 2_000 });
        await client.processes.remove(info.id, { signal });
      },
      "processes.get": (signal) => client.processes.get(shell.id, { signal }),
      "processes.get (unknown)": (signal) => client.processes.get("proc_nope", { signal }),
      "processes.list": (signal) => client.processes.list({}, { signal }),
      "processes.logs": (signal) => client.processes.logs(exited.id, {}, { signal }),
      "processes.input": (signal) => client.processes.input(cat.id, "x\n", { signal }),
      "processes.resize": (signal, i) => client.processes.resize(shell.id, 80 + (i % 2), 24, { signal }),
      "processes.getConfig": (signal) => client.processes.getConfig({ signal }),
      "processes.terminal": async (signal) => {
        const terminal = client.processes.terminal(shell.id, { signal });
        await terminal.ready;
        terminal.close();
        await terminal.closed;
      },
      "processes.terminal (not a terminal)": async (signal) => {
        const terminal = client.processes.terminal(cat.id, { signal });
        await settle(terminal.ready);
        await terminal.closed;
      },
      // Observables end by unsubscribing; tied to the signal the usual way, they must still complete.
      "processes.logs$": (signal) =>
        lastValueFrom(client.processes.logs$(exited.id, { pollIntervalMs: 20 }).pipe(takeUntil(fromEvent(signal, "abort")), toArray())),
      "processes.status$": (signal) =>
        lastValueFrom(client.processes.status$(exited.id).pipe(takeUntil(fromEvent(signal, "abort")), toArray())),
    };

    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    const shared = new AbortController();
    const { signal } = shared;
    /** Listeners each kind left behind (the count after it minus the count before it). */
    const left: Record<string, number> = {};
    const count = (): number => getEventListeners(signal, "abort").length;
    const ms: Record<string, number> = {};
    let peak = 0;
    const sample = setInterval(() => (peak = Math.max(peak, getEventListeners(signal, "abort").length)), 5);
    try {
      for (const [kind, op] of Object.entries(ops)) {
        const [before, startedAt] = [count(), Date.now()];
        await runLanes(PER_KIND, LANES, (i, lane) => op(signal, i, lane));
        ms[kind] = Date.now() - startedAt;
        left[kind] = count() - before;
      }
      const [before, startedAt] = [count(), Date.now()];
      for (let i = 0; i < CONNECT_CYCLES; i++) {
        await other.connect({ signal });
        await other.disconnect();
      }
      ms["connect + disconnect"] = Date.now() - startedAt;
      left["connect + disconnect"] = count() - before;
    } finally {
      clearInterval(sample);
      process.off("warning", onWarning);
      await other.disconnect();
      await client.processes.kill(shell.id).catch(() => undefined);
      await client.processes.kill(cat.id).catch(() => undefined);
    }

    const leaking = Object.entries(left).filter(([, count]) => count > 0);
    report("abort listeners on one shared signal", {
      kinds: Object.keys(left).length,
      operations: Object.keys(ops).length * PER_KIND + CONNECT_CYCLES,
      listenersLeft: count(),
      peakListenersWhileRunning: peak,
      leaking: Object.fromEntries(leaking),
      totalMs: Object.values(ms).reduce((a, b) => a + b, 0),
      slowestKindsMs: Object.fromEntries(Object.entries(ms).sort((a, b) => b[1] - a[1]).slice(0, 5)),
    });
    expect(Object.fromEntries(leaking)).toEqual({});
    expect(count()).toBe(0);
    expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
  }, 240_000);
});
