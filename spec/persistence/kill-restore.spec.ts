// Kill-and-restore: a child process records a 200-update turn of the v2 contract server into
// sqliteStore and is SIGKILLed at 20 seeded random points of the turn (once the store has passed
// a random count; the kill lands a little later, wherever the child then is, possibly mid-write);
// each fresh process reattaches with the stored connection id and Last-Event-ID. At the end the
// store holds every update of the turn exactly once, in stream order, numbered 1..200.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sqliteStore } from "../../lib/sqlite/index.js";
import { mulberry32, randomInt } from "../support/prng.js";
import { startV2ContractServer, type V2ContractServer } from "../support/v2-contract-server.js";

const CHILD = fileURLToPath(new URL("./kill-restore/recording-child.ts", import.meta.url));
const SEED = 13;
const KILLS = 20;
const WORDS = 199; // "mock: w1 ... w199": 200 updates
const LINE_TIMEOUT_MS = 30_000;

interface Child {
  process: ChildProcess;
  /** The first output line that satisfies `match` (bounded wait). */
  next(match: (line: string) => boolean, what: string): Promise<string>;
  exited: Promise<number | null>;
}

function startChild(args: string[]): Child {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], { stdio: ["ignore", "pipe", "pipe"] });
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
  const next = async (match: (line: string) => boolean, what: string) => {
    const deadline = Date.now() + LINE_TIMEOUT_MS;
    for (;;) {
      const line = lines.find(match);
      if (line) return line;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`child exited before ${what}: ${stderr}`);
      }
      if (Date.now() > deadline) throw new Error(`no ${what} from the child within ${LINE_TIMEOUT_MS} ms: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { process: child, next, exited };
}

type Chunk = { params: { update: { content: { text: string } } } };

describe("kill-and-restore with sqliteStore against the v2 contract server", () => {
  let server: V2ContractServer;
  let dir: string;
  const children: Child[] = [];

  beforeAll(async () => {
    server = await startV2ContractServer({ mockChunkDelayMs: 100 });
    dir = mkdtempSync(join(tmpdir(), "sarx-kill-"));
  });

  afterAll(async () => {
    for (const { process: child } of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`stores every update exactly once and in order across ${KILLS} SIGKILLs`, async () => {
    const random = mulberry32(SEED);
    const thresholds = Array.from({ length: KILLS }, () => randomInt(random, 1, WORDS - 1)).sort((a, b) => a - b);
    const db = join(dir, "sessions.db");
    const resumedFrom: number[] = [];
    const killedAt: number[] = [];
    const started = Date.now();
    for (let kill = 0; kill <= KILLS; kill++) {
      const child = startChild([kill === 0 ? "start" : "resume", server.baseUrl, db, String(WORDS)]);
      children.push(child);
      const ready = await child.next((line) => line.startsWith("ready"), "ready");
      resumedFrom.push(Number(ready.split(" ")[1]));
      if (kill === KILLS) {
        // The last one is left alone: it records to the end of the turn and exits.
        await child.next((line) => line === "done", "done");
        expect(await child.exited).toBe(0);
        break;
      }
      const threshold = thresholds[kill] as number;
      // A resumed child may already be past the threshold: then it dies right after reattaching.
      const reached = (line: string) =>
        line === "done" || (line.startsWith("stored ") && Number(line.slice(7)) >= threshold);
      if (resumedFrom.at(-1)! < threshold) await child.next(reached, `stored ${threshold}`);
      child.process.kill("SIGKILL");
      await child.exited;
      killedAt.push(threshold);
    }
    const store = sqliteStore({ database: db });
    const { items } = await store.listEvents({ sessionId: "local-1", limit: 1000 });
    await store.close?.();
    const texts = items.map((item) => (item.payload as unknown as Chunk).params.update.content.text);
    const words = Array.from({ length: WORDS }, (_, i) => (i < WORDS - 1 ? `w${i + 1} ` : `w${i + 1}`));
    expect(texts).toEqual(["mock: ", ...words]);
    expect(items.map((item) => item.eventIndex)).toEqual(Array.from({ length: WORDS + 1 }, (_, i) => i + 1));
    expect(new Set(items.map((item) => item.id)).size).toBe(WORDS + 1);
    // The figures for the report: where each restarted process resumed the stream from.
    expect(killedAt).toHaveLength(KILLS);
    process.stderr.write(
      `kill-and-restore: ${KILLS} kills after stored counts [${killedAt.join(", ")}]; ` +
        `restarts resumed from stream ids [${resumedFrom.join(", ")}]; ${Date.now() - started} ms\n`,
    );
  }, 240_000);
});
