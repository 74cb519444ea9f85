// Kill-and-restore: a child process records a 200-update turn (of the v2 contract server, then of
// the real 0.4.2 server with the scripted agent) into sqliteStore and is SIGKILLed at 20 seeded
// random points of the turn (once the store has passed a random count; the kill lands a little
// later, wherever the child then is, possibly mid-write; a child that has stored 5 updates past
// it kills itself, so no child can finish the turn early); each fresh process reattaches with the
// stored connection and Last-Event-ID. At the end the store holds every update of the turn exactly
// once, in stream order, numbered 1..200.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sqliteStore } from "../../lib/sqlite/index.js";
import { mulberry32, randomInt } from "../support/prng.js";
import { resumeCases, serverPerBlock, type ResumeCase } from "./resume-servers.js";

const CHILD = fileURLToPath(new URL("./kill-restore/recording-child.ts", import.meta.url));
// The same kills through SandboxAgentClient's public API (restoreSessions on a new client).
const CLIENT_CHILD = fileURLToPath(new URL("./kill-restore/client-child.ts", import.meta.url));
const SEED = 13;
const KILLS = 20;
const UPDATES = 200;
const EXITED = "(exited)";
const LINE_TIMEOUT_MS = 30_000;

interface Child {
  process: ChildProcess;
  /** The first output line that satisfies `match` (bounded wait), or EXITED if allowed. */
  next(match: (line: string) => boolean, what: string, exitOk?: boolean): Promise<string>;
  exited: Promise<number | null>;
}

function startChild(script: string, args: string[]): Child {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let buffered = "";
  child.stdout?.on("data", (data: Buffer) => {
    buffered += data.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop() ?? "";
    lines.push(...parts);
  });
  let stderr = "";
  child.stderr?.on("data", (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const next = async (match: (line: string) => boolean, what: string, exitOk = false) => {
    const deadline = Date.now() + LINE_TIMEOUT_MS;
    for (;;) {
      const line = lines.find(match);
      if (line) return line;
      if (child.exitCode !== null || child.signalCode !== null) {
        if (exitOk) return EXITED;
        throw new Error(`child exited before ${what}: ${stderr}`);
      }
      if (Date.now() > deadline) throw new Error(`no ${what} from the child within ${LINE_TIMEOUT_MS} ms: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { process: child, next, exited };
}

type Chunk = { params: { update: { content: { text: string } } } };

const CASES = resumeCases(UPDATES, 100);

const VIAS: Array<[string, string]> = [
  ["the protocol prototype", CHILD],
  ["the client's public API", CLIENT_CHILD],
];
type Run = [string, ResumeCase & { script: string }];
const RUNS = VIAS.flatMap(([via, script]) =>
  CASES.map(([name, spec]): Run => [`${name}, through ${via}`, { ...spec, script }]),
);

describe.each(RUNS)("kill-and-restore with sqliteStore against %s", (_, spec) => {
  const children: Child[] = [];
  const fixture = serverPerBlock(spec, "sarx-kill-", () => {
    for (const { process: child } of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });

  it(`stores every update exactly once and in order across ${KILLS} SIGKILLs`, async () => {
    const random = mulberry32(SEED);
    const thresholds = Array.from({ length: KILLS }, () => randomInt(random, 1, UPDATES - 10)).sort((a, b) => a - b);
    const db = join(fixture.dir, "sessions.db");
    const resumedFrom: number[] = [];
    const killedAt: number[] = [];
    let selfKills = 0;
    const started = Date.now();
    const last = spec.texts.at(-1) as string;
    for (let kill = 0; kill <= KILLS; kill++) {
      const threshold = thresholds[kill] ?? 0;
      const dieAt = kill === KILLS ? 0 : threshold + 5;
      const { baseUrl } = fixture.server;
      const args = [kill === 0 ? "start" : "resume", spec.api, baseUrl, db, spec.prompt, last, String(dieAt)];
      const child = startChild(spec.script, args);
      children.push(child);
      // A resumed child can race past its bound (replaying) before it says "ready".
      const ready = await child.next((line) => line.startsWith("ready"), "ready", kill < KILLS);
      if (ready !== EXITED) resumedFrom.push(Number(ready.split(" ")[1]));
      if (kill === KILLS) {
        // The last one is left alone: it records to the end of the turn and exits.
        await child.next((line) => line === "done", "done");
        expect(await child.exited).toBe(0);
        break;
      }
      // A resumed child may already be past the threshold: then it dies right after reattaching.
      const reached = (line: string) => line.startsWith("stored ") && Number(line.slice(7)) >= threshold;
      await child.next(reached, `stored ${threshold}`, true);
      if (child.process.exitCode !== null || child.process.signalCode !== null) selfKills += 1;
      child.process.kill("SIGKILL");
      await child.exited;
      expect(child.process.signalCode).toBe("SIGKILL");
      killedAt.push(threshold);
    }
    const store = sqliteStore({ database: db });
    const { items: sessions } = await store.listSessions();
    expect(sessions).toHaveLength(1);
    const listed = await store.listEvents({ sessionId: sessions[0]?.id as string, limit: 1000 });
    await store.close?.();
    // The client also stores the user's prompt (sender "client"), once.
    expect(listed.items.filter((item) => item.sender === "client").length).toBeLessThanOrEqual(1);
    const agent = listed.items.filter((item) => item.sender === "agent");
    // A client that restored the session mid-turn stores the turn's answer as its end: once, last.
    const ends = agent.filter((item) => "result" in item.payload);
    expect(ends.length).toBeLessThanOrEqual(1);
    if (ends[0]) expect(agent.at(-1)).toBe(ends[0]);
    const items = agent.filter((item) => !("result" in item.payload));
    const texts = items.map((item) => (item.payload as unknown as Chunk).params.update.content.text);
    expect(texts).toEqual(spec.texts);
    const first = items[0]?.eventIndex ?? 1;
    expect(items.map((item) => item.eventIndex)).toEqual(Array.from({ length: UPDATES }, (_, i) => i + first));
    expect(new Set(items.map((item) => item.id)).size).toBe(UPDATES);
    expect(killedAt).toHaveLength(KILLS);
    // The figures for the report.
    process.stderr.write(
      `kill-and-restore (${spec.api}, ${spec.script === CLIENT_CHILD ? "client" : "prototype"}): ` +
        `${KILLS} kills after stored counts [${killedAt.join(", ")}]; ` +
        `${selfKills} of them self-inflicted (stored 5 past the threshold first); restarts resumed from stream ids ` +
        `[${resumedFrom.join(", ")}]; ${Date.now() - started} ms\n`,
    );
  }, 300_000);
});
