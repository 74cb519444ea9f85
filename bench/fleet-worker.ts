// One worker of scenario 15 (bench/scenarios/fleet.ts), a process of its own: a SandboxAgentClient
// recording into postgresStore drives SESSIONS sessions on one server, each prompting `chunks N` in
// a loop until the duration is over, then waits for the recorder to store what was delivered.
// Prints one JSON line: updates delivered and stored, store lag samples' quantiles, CPU used.
//   node --import tsx bench/fleet-worker.ts <baseUrl> <connectionString> <schema> <sessions> <durationMs> <chunks>
import { tmpdir } from "node:os";
import { postgresStore } from "../lib/postgres/index.js";
import { SandboxAgentClient, type NewSessionEvent, type SessionStore } from "../lib/sandbox/index.js";

const [baseUrl, connectionString, schema, sessionsArg, durationArg, chunksArg] = process.argv.slice(2);
const SESSIONS = Number(sessionsArg);
const DURATION_MS = Number(durationArg);
const CHUNKS = Number(chunksArg);
const inner = postgresStore({ connectionString: connectionString!, schema: schema! });
const lags: number[] = [];
let stored = 0;
/** Agent events written (every update delivered is one; a turn's answer is one more). */
let agentStored = 0;
let delivered = 0;
let measuring = false;
const note = (events: NewSessionEvent[], inserted: number): void => {
  const wall = Date.now();
  for (const event of events) {
    if (event.sender !== "agent") continue;
    if (measuring) lags.push(wall - event.createdAt);
    agentStored++;
  }
  stored += inserted;
};
// The store with its writes timed (as a user's wrapper could).
const store: SessionStore = {
  ...inner,
  getSession: (id) => inner.getSession(id),
  listSessions: (request) => inner.listSessions(request),
  updateSession: (record) => inner.updateSession(record),
  listEvents: (request) => inner.listEvents(request),
  insertEvent: async (sessionId, event) => {
    const outcome = await inner.insertEvent(sessionId, event);
    note([event], outcome.inserted ? 1 : 0);
    return outcome;
  },
  insertEvents: async (events) => {
    const outcomes = await inner.insertEvents!(events);
    note(events, outcomes.filter((outcome) => outcome.inserted).length);
    return outcomes;
  },
};
const client = new SandboxAgentClient({ baseUrl: baseUrl!, agent: "mock", store });
client.events$.subscribe((event) => {
  if (measuring && event.kind === "update") delivered++;
});
await client.ready;
const ids = await Promise.all(Array.from({ length: SESSIONS }, () => client.newSession({ cwd: tmpdir() })));
await Promise.all(ids.map(({ sessionId }) => client.prompt(sessionId, "chunks 10"))); // warm-up
process.stdout.write("ready\n");
// The parent starts every worker's clock together.
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
const cpu = process.cpuUsage();
const started = performance.now();
measuring = true;
const storedAtStart = stored;
const agentAtStart = agentStored;
let turns = 0;
await Promise.all(
  ids.map(async ({ sessionId }) => {
    while (performance.now() - started < DURATION_MS) {
      await client.prompt(sessionId, `chunks ${CHUNKS}`);
      turns++;
    }
  }),
);
const drivenMs = performance.now() - started;
const storedInTime = stored - storedAtStart;
// What was delivered but not yet stored when the turns stopped is stored after them (bounded wait).
const deadline = performance.now() + 30_000;
while (agentStored - agentAtStart < delivered && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
const tailMs = performance.now() - started - drivenMs;
measuring = false;
const used = process.cpuUsage(cpu);
lags.sort((a, b) => a - b);
const q = (p: number) => lags[Math.min(lags.length - 1, Math.max(0, Math.ceil(p * lags.length) - 1))] ?? Number.NaN;
console.log(JSON.stringify({
  turns,
  delivered,
  storedInTime,
  stored: stored - storedAtStart,
  drivenMs,
  tailMs,
  lagP50: q(0.5),
  lagP95: q(0.95),
  cpuMs: (used.user + used.system) / 1000,
}));
await client.disconnect();
await inner.close();
process.exit(0);
