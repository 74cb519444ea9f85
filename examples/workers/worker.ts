// The workers example's worker: claims open sessions from PostgreSQL one at a time
// (`restoreSessions({ claim })`), runs the session's task as a turn, ends the session and gives its
// lease up; a session whose worker died is claimed again once that worker's lease has expired, and
// its task is run again from the start by the new worker. Run as many as you like, anywhere.
//
//   DATABASE_URL=postgres://... node --import tsx examples/workers/worker.ts --url URL --agent NAME \
//     [--name worker-1] [--ttl-ms 5000] [--exit-when-idle]
//
// Output lines (the spec reads them): "claimed <id>", "turn <id> <stopReason>", "finished <id>",
// "lost <id> <reason>", "idle".
import { parseArgs } from "node:util";
import { defaultOwner, postgresStore } from "../../lib/postgres/index.js";
import { LeaseLostError, SandboxAgentClient } from "../../lib/sandbox/index.js";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    agent: { type: "string", default: "mock" },
    name: { type: "string" },
    schema: { type: "string", default: "sandbox_agent" },
    "ttl-ms": { type: "string", default: "5000" },
    "poll-ms": { type: "string", default: "200" },
    "exit-when-idle": { type: "boolean", default: false },
    /** What ends a session once its task is done (the scripted test agent's verb; a real agent would be told otherwise). */
    "end-prompt": { type: "string" },
  },
});
const connectionString = process.env.DATABASE_URL;
if (!values.url || !connectionString) {
  process.stderr.write("usage: DATABASE_URL=... worker.ts --url URL [--agent NAME] [--name NAME] [--ttl-ms MS]\n");
  process.exit(2);
}
const say = (line: string) => process.stdout.write(`${line}\n`);
const owner = values.name ?? defaultOwner();
const ttlMs = Number(values["ttl-ms"]);
const pollMs = Number(values["poll-ms"]);

const store = postgresStore({ connectionString, schema: values.schema });
const client = new SandboxAgentClient({ baseUrl: values.url, agent: values.agent, store });
client.storeErrors$.subscribe((error) => process.stderr.write(`store error: ${error.message}\n`));
client.leaseLost$.subscribe((lost) => say(`lost ${lost.sessionId} ${lost.reason}`));

async function openSessionsLeft(): Promise<boolean> {
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ limit: 1000, ...(cursor ? { cursor } : {}) });
    if (page.items.some((record) => record.endedAt === undefined)) return true;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return false;
}

/** Runs the session's task, then ends the session; the lease is given up either way. */
async function drive(sessionId: string): Promise<void> {
  try {
    const record = await store.getSession(sessionId);
    const task = typeof record?.metadata?.task === "string" ? record.metadata.task : "";
    const { stopReason } = await client.prompt(sessionId, task);
    say(`turn ${sessionId} ${stopReason}`);
    if (values["end-prompt"]) await client.prompt(sessionId, values["end-prompt"]);
    say(`finished ${sessionId}`);
  } catch (error) {
    // A lost lease is the normal way to stop: another worker drives the session now.
    if (!(error instanceof LeaseLostError)) throw error;
  } finally {
    await client.releaseSession(sessionId);
  }
}

const stop = new AbortController();
process.once("SIGTERM", () => stop.abort());
try {
  await client.ready;
  while (!stop.signal.aborted) {
    const claimed = await client.restoreSessions({ claim: { max: 1, ttlMs, owner } });
    for (const session of claimed) {
      say(`claimed ${session.localId}`);
      await drive(session.localId);
    }
    if (claimed.length > 0) continue;
    if (values["exit-when-idle"] && !(await openSessionsLeft())) break;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  say("idle");
} finally {
  await client.disconnect();
  await store.close();
}
