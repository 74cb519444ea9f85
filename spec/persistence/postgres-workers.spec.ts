// The workers example (examples/workers/) for real: a producer queues coding tasks as open sessions
// in PostgreSQL, three worker processes claim and drive them against the real 0.4.2 server, and the
// test SIGKILLs a random worker mid-turn (3 times; WORKERS_KILLS=20 for the longer run documented in
// docs/persistence.md), starting a fresh worker each time. Then, from the store's own records:
// every update stored exactly once and in order, no session written by two workers at once (each
// generation one writer, generations in index order, the next claimed only after the last write of
// the one before), and every orphaned session finished by another worker. Takeover times (kill to
// the next claim) are printed as p50/p95.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { postgresStore, type PostgresStore } from "../../lib/postgres/index.js";
import type { SessionEvent } from "../../lib/sandbox/index.js";
import { POSTGRES, startPostgresCluster, type PostgresCluster } from "../support/postgres-cluster.js";
import { mulberry32 } from "../support/prng.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { describeWith } from "../support/system-component.js";
import { allEvents, chunkText } from "./client-helpers.js";

const KILLS = Number(process.env.WORKERS_KILLS ?? 3);
const TASKS = KILLS + 4;
const CHUNKS = 30;
const TASK = `slowchunks ${CHUNKS} 50`;
const TTL_MS = 1500;
const SCHEMA = "fleet";
const SEED = 25;
const PRODUCER = fileURLToPath(new URL("../../examples/workers/producer.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("../../examples/workers/worker.ts", import.meta.url));
const TRY = fileURLToPath(new URL("../../examples/workers/try.ts", import.meta.url));

const describePg = describeWith([POSTGRES]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Proc {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(script: string, name: string, args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (data: Buffer) => (output += data.toString()));
  child.stderr?.on("data", (data: Buffer) => (output += data.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { name, child, output: () => output, exited };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

describePg("the workers example: a producer, three workers, SIGKILLs", () => {
  let cluster: PostgresCluster;
  let server: SandboxAgentServer;
  let db: pg.Pool;
  const procs: Proc[] = [];
  beforeAll(async () => {
    [cluster, server] = await Promise.all([startPostgresCluster(), startSandboxAgent()]);
    db = cluster.pool(4);
  }, 60_000);
  afterAll(async () => {
    for (const { child } of procs) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await server?.stop();
    await cluster?.stop();
  });

  it(`stores every update once and in order, one driver per session, orphans finished, across ${KILLS} kills`, async () => {
    const env = { DATABASE_URL: cluster.connectionString };
    const common = ["--url", server.baseUrl, "--agent", "mock", "--schema", SCHEMA];
    const tasks = Array.from({ length: TASKS }, () => ["--task", TASK]).flat();
    const producer = run(PRODUCER, "producer", [...common, ...tasks], env);
    procs.push(producer);
    expect(await producer.exited).toBe(0);

    let workers = 0;
    const live = new Map<string, Proc>();
    const startWorker = () => {
      const name = `worker-${++workers}`;
      const args = [...common, "--name", name, "--ttl-ms", String(TTL_MS), "--poll-ms", "100", "--exit-when-idle"];
      const proc = run(WORKER, name, args, env);
      procs.push(proc);
      live.set(name, proc);
      void proc.exited.then(() => live.delete(name));
    };
    for (let i = 0; i < 3; i++) startWorker();

    const random = mulberry32(SEED);
    const kills: Array<{ sessionId: string; generation: number; owner: string; at: number }> = [];
    const takeoversMs: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      // A session mid-turn: its holder has stored 5 to 25 of the turn's 30 chunks under its generation.
      const deadline = Date.now() + 60_000;
      let victim: { session_id: string; owner: string; generation: string } | undefined;
      while (!victim) {
        const { rows } = await db.query<{ session_id: string; owner: string; generation: string }>(
          `SELECT l.session_id, l.owner, l.generation FROM ${SCHEMA}.leases l
           JOIN ${SCHEMA}.events e ON e.session_id = l.session_id AND e.generation = l.generation AND e.sender = 'agent'
           WHERE l.expires_at > now() AND l.owner = ANY($1)
           GROUP BY l.session_id, l.owner, l.generation HAVING count(*) BETWEEN 5 AND 25 ORDER BY l.session_id`,
          [[...live.keys()]],
        );
        victim = rows[Math.floor(random() * rows.length)];
        if (!victim) {
          if (Date.now() > deadline) throw new Error(`no session mid-turn within 60 s:\n${procs.map((p) => `${p.name}: ${p.output()}`).join("\n")}`);
          await sleep(20);
        }
      }
      const proc = live.get(victim.owner) as Proc;
      proc.child.kill("SIGKILL");
      const at = Date.now();
      await proc.exited;
      kills.push({ sessionId: victim.session_id, generation: Number(victim.generation), owner: victim.owner, at });
      startWorker();
      const claimedAt = await (async () => {
        for (const bound = Date.now() + 30_000; Date.now() < bound; await sleep(20)) {
          const { rows } = await db.query<{ ms: string }>(
            `SELECT (extract(epoch FROM claimed_at) * 1000)::bigint AS ms FROM ${SCHEMA}.lease_log
             WHERE session_id = $1 AND generation = $2`,
            [victim.session_id, Number(victim.generation) + 1],
          );
          if (rows[0]) return Number(rows[0].ms);
        }
        throw new Error(`session ${victim.session_id} not taken over within 30 s`);
      })();
      takeoversMs.push(claimedAt - at);
    }

    // Every worker runs until no open session is left.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("timeout"), 120_000)));
    try {
      for (const proc of [...live.values()]) {
        const code = await Promise.race([proc.exited, bound]);
        if (code !== 0) throw new Error(`${proc.name} ended with ${code}:\n${proc.output()}`);
      }
    } finally {
      clearTimeout(timer);
    }

    const store: PostgresStore = postgresStore({ pool: db, schema: SCHEMA });
    const { items: sessions } = await store.listSessions({ limit: 1000 });
    expect(sessions).toHaveLength(TASKS);
    const log = await db.query<{ session_id: string; generation: string; owner: string; claimed_ms: string }>(
      `SELECT session_id, generation, owner, (extract(epoch FROM claimed_at) * 1000)::bigint AS claimed_ms
       FROM ${SCHEMA}.lease_log ORDER BY session_id, generation`,
    );
    const written = await db.query<{ session_id: string; event_index: string; generation: string | null; written_ms: string }>(
      `SELECT session_id, event_index, generation, (extract(epoch FROM written_at) * 1000)::bigint AS written_ms
       FROM ${SCHEMA}.events ORDER BY session_id, event_index`,
    );
    let orphansFinished = 0;
    for (const record of sessions) {
      expect(record.endedAt).toBeDefined();
      const events = await allEvents(store, record.id);
      // Once each, numbered 1..n with no gap.
      expect(events.map((e) => e.eventIndex)).toEqual(events.map((_, i) => i + 1));
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      // In order: each turn's chunks are c0, c1, ... with none missing or repeated; the last task turn is whole.
      const turns: Array<{ prompt: SessionEvent; chunks: string[] }> = [];
      for (const e of events) {
        if (e.sender === "client") turns.push({ prompt: e, chunks: [] });
        const text = chunkText(e.payload);
        if (text !== undefined && e.sender === "agent") turns.at(-1)?.chunks.push(text);
      }
      for (const turn of turns) expect(turn.chunks).toEqual(turn.chunks.map((_, i) => `c${i}`));
      const taskTurns = turns.filter((turn) => JSON.stringify(turn.prompt.payload).includes(TASK));
      expect(taskTurns.at(-1)?.chunks).toHaveLength(CHUNKS);

      // One writer per generation, generations in index order, and the next one claimed after the last write.
      const rows = written.rows.filter((row) => row.session_id === record.id && row.generation !== null);
      const generations = rows.map((row) => Number(row.generation));
      expect(generations).toEqual([...generations].sort((a, b) => a - b));
      const owners = log.rows.filter((row) => row.session_id === record.id);
      const byGeneration = new Map(owners.map((row) => [Number(row.generation), row]));
      const connectionsOf = new Map<number, Set<string>>();
      for (const e of events) {
        const generation = Number(rows.find((row) => Number(row.event_index) === e.eventIndex)?.generation ?? 0);
        if (generation === 0) continue;
        connectionsOf.set(generation, (connectionsOf.get(generation) ?? new Set()).add(e.connectionId));
      }
      for (const connections of connectionsOf.values()) expect(connections.size).toBe(1);
      for (const [generation] of connectionsOf) {
        const next = byGeneration.get(generation + 1);
        if (!next) continue;
        const lastWrite = Math.max(...rows.filter((row) => Number(row.generation) === generation).map((row) => Number(row.written_ms)));
        expect(lastWrite).toBeLessThanOrEqual(Number(next.claimed_ms));
      }
      // An orphan (its worker killed) was finished by another worker: a later generation of another owner.
      const killed = kills.find((kill) => kill.sessionId === record.id);
      if (killed) {
        const finisher = byGeneration.get(Math.max(...generations));
        expect(finisher?.owner).not.toBe(killed.owner);
        expect(Number(finisher?.generation)).toBeGreaterThan(killed.generation);
        orphansFinished += 1;
      }
    }
    expect(kills).toHaveLength(KILLS);
    expect(orphansFinished).toBe(new Set(kills.map((kill) => kill.sessionId)).size);
    process.stderr.write(
      `workers: ${KILLS} kills, ${TASKS} tasks, lease ttl ${TTL_MS} ms; takeover (kill to next claim) ms: ` +
        `[${takeoversMs.join(", ")}], p50 ${percentile(takeoversMs, 50)}, p95 ${percentile(takeoversMs, 95)}\n`,
    );
  }, 600_000);
  it("a paused worker (SIGSTOP past its lease) is fenced: after SIGCONT it writes nothing more and says it lost the lease", async () => {
    const schema = "paused";
    const env = { DATABASE_URL: cluster.connectionString };
    const common = ["--url", server.baseUrl, "--agent", "mock", "--schema", schema];
    const task = "slowchunks 60 50";
    const producer = run(PRODUCER, "producer", [...common, "--task", task], env);
    procs.push(producer);
    expect(await producer.exited).toBe(0);
    const worker = (name: string) => {
      const args = [...common, "--name", name, "--ttl-ms", String(TTL_MS), "--poll-ms", "100", "--exit-when-idle"];
      const proc = run(WORKER, name, args, env);
      procs.push(proc);
      return proc;
    };
    /** Waits (bounded) until `generation` has stored at least `count` agent events. */
    const storedUnder = async (generation: number, count: number) => {
      for (const bound = Date.now() + 30_000; Date.now() < bound; await sleep(20)) {
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM ${schema}.events WHERE generation = $1 AND sender = 'agent'`,
          [generation],
        );
        if (Number(rows[0]?.n) >= count) return;
      }
      throw new Error(`generation ${generation} did not store ${count} events within 30 s`);
    };
    const a = worker("paused-a");
    await storedUnder(1, 5);
    a.child.kill("SIGSTOP");
    const b = worker("paused-b");
    await storedUnder(2, 5);
    a.child.kill("SIGCONT");
    for (const bound = Date.now() + 15_000; !/^lost /m.test(a.output()); await sleep(20)) {
      if (Date.now() > bound) throw new Error(`the paused worker did not report a lost lease:\n${a.output()}`);
    }
    for (const proc of [a, b]) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const code = await Promise.race([proc.exited, new Promise((resolve) => (timer = setTimeout(resolve, 60_000, "timeout")))]);
      clearTimeout(timer);
      if (code !== 0) throw new Error(`${proc.name} ended with ${String(code)}:\n${proc.output()}`);
    }
    const claims = await db.query<{ generation: string; owner: string; claimed_ms: string }>(
      `SELECT generation, owner, (extract(epoch FROM claimed_at) * 1000)::bigint AS claimed_ms
       FROM ${schema}.lease_log ORDER BY generation`,
    );
    expect(claims.rows.map((row) => [Number(row.generation), row.owner])).toEqual([[1, "paused-a"], [2, "paused-b"]]);
    const lastOfA = await db.query<{ ms: string | null }>(
      `SELECT (extract(epoch FROM max(written_at)) * 1000)::bigint AS ms FROM ${schema}.events WHERE generation = 1`,
    );
    expect(Number(lastOfA.rows[0]?.ms)).toBeLessThanOrEqual(Number(claims.rows[1]?.claimed_ms));
    const order = await db.query<{ generation: string }>(
      `SELECT generation FROM ${schema}.events WHERE generation IS NOT NULL ORDER BY event_index`,
    );
    const generations = order.rows.map((row) => Number(row.generation));
    expect(generations).toEqual([...generations].sort((x, y) => x - y));
    expect(a.output()).toMatch(/^lost \S+ (expired|refused)$/m);
    expect(a.output()).not.toMatch(/^done /m);
    expect(b.output()).toMatch(/^done /m);
    const refused = a.output().split("\n").filter((line) => line.includes("LeaseLostError") || line.includes("lease on session")).length;
    process.stderr.write(`paused worker: "${/^lost .*$/m.exec(a.output())?.[0]}", ${refused} write(s) refused after SIGCONT\n`);
  }, 180_000);

  it("the one-command try-out drains its queue with the demo agent: each task done once, a killed worker's task redone, all exit", async () => {
    // `npm run workers -- --kill-one` as the workers' README shows it: its own throwaway PostgreSQL and server.
    const env = { DATABASE_URL: "" };
    const proc = run(TRY, "try", ["--kill-one"], env);
    procs.push(proc);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const code = await Promise.race([proc.exited, new Promise((resolve) => (timer = setTimeout(resolve, 90_000, "timeout")))]);
    clearTimeout(timer);
    const output = proc.output();
    if (code !== 0) throw new Error(`the try-out ended with ${String(code)}:\n${output}`);
    const produced = [...output.matchAll(/^producer\s+produced (\S+)/gm)].map((m) => m[1]);
    const done = [...output.matchAll(/^worker-\d+\s+done (\S+)$/gm)].map((m) => m[1]);
    expect(produced).toHaveLength(4);
    expect([...done].sort()).toEqual([...produced].sort());
    // The killed worker's session was claimed by another worker and done there.
    const killedClaim = /^worker-1\s+claimed (\S+)$/m.exec(output)?.[1];
    expect(killedClaim).toBeDefined();
    expect(output).toMatch(new RegExp(`^worker-[2-9]\\s+claimed ${killedClaim}$`, "m"));
    expect(output).toMatch(/SIGKILLed worker-1 mid-turn/);
    expect(output.match(/^worker-\d+\s+idle$/gm)).toHaveLength(2);
    expect(output).toMatch(/all 4 tasks done; every worker went idle and exited/);
  }, 120_000);
});
