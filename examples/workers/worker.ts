// The workers example's worker: claims open sessions from PostgreSQL one at a time
// (`restoreSessions({ claim })`), runs the session's task as one turn, and marks the session
// finished (`endSession`, which also gives its lease up). A session whose worker died mid-turn is
// claimed again once that worker's lease has expired, and its task runs again from the start on the
// new worker. Run as many workers as you like, on any machine that reaches the server and the database.
//
//   DATABASE_URL=postgres://... node --import tsx examples/workers/worker.ts --url URL \
//     [--agent mock] [--token TOKEN] [--name worker-1] [--ttl-ms 5000] [--exit-when-idle]
//
// Output lines (the specs read them): "claimed <id>", "turn <id> <stopReason>", "done <id>",
// "lost <id> <reason>", "idle". The connection string and the token come from the environment or
// the flags, never from a file the example writes.
import { parseArgs } from "node:util";
import { LeaseLostError, SandboxAgentClient } from "sandbox-agent-rx";
import { defaultOwner, postgresStore } from "sandbox-agent-rx/postgres";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    agent: { type: "string", default: "mock" },
    token: { type: "string", default: process.env.SANDBOX_AGENT_TOKEN },
    name: { type: "string" },
    schema: { type: "string", default: "sandbox_agent" },
    "ttl-ms": { type: "string", default: "5000" },
    "poll-ms": { type: "string", default: "200" },
    "exit-when-idle": { type: "boolean", default: false },
  },
});
const connectionString = process.env.DATABASE_URL;
if (!values.url || !connectionString) {
  process.stderr.write(
    "usage: DATABASE_URL=... worker.ts --url URL [--agent NAME] [--token TOKEN] [--name NAME] [--ttl-ms MS]" +
      " [--exit-when-idle]\n",
  );
  process.exit(2);
}
const say = (line: string) => process.stdout.write(`${line}\n`);
const owner = values.name ?? defaultOwner();
const ttlMs = Number(values["ttl-ms"]);
const pollMs = Number(values["poll-ms"]);

const store = postgresStore({ connectionString, schema: values.schema });
const client = new SandboxAgentClient({
  baseUrl: values.url,
  agent: values.agent,
  store,
  ...(values.token ? { token: values.token } : {}),
});
client.storeErrors$.subscribe((error) => process.stderr.write(`store error: ${error.message}\n`));
client.leaseLost$.subscribe((lost) => say(`lost ${lost.sessionId} ${lost.reason}`));

/** True while the queue has a session nobody has finished (held by another worker or not). */
async function openSessionsLeft(): Promise<boolean> {
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ limit: 1000, ...(cursor ? { cursor } : {}) });
    if (page.items.some((record) => record.endedAt === undefined)) return true;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return false;
}

/** Runs the session's task as one turn; a turn that ended finishes the session, anything else gives it back. */
async function drive(sessionId: string): Promise<void> {
  try {
    const record = await store.getSession(sessionId);
    const task = typeof record?.metadata?.task === "string" ? record.metadata.task : "";
    const { stopReason } = await client.prompt(sessionId, task);
    say(`turn ${sessionId} ${stopReason}`);
    // A turn the agent ended (any stop reason but a cancel) is the task done; a cancelled one stays queued.
    if (stopReason !== "cancelled") {
      await client.endSession(sessionId);
      say(`done ${sessionId}`);
      return;
    }
  } catch (error) {
    // A lost lease is the normal way to stop: another worker drives the session now.
    if (error instanceof LeaseLostError) return;
    process.stderr.write(`task of ${sessionId} failed: ${(error as Error).message}\n`);
  }
  await client.releaseSession(sessionId);
}

const stop = new AbortController();
process.once("SIGTERM", () => stop.abort());
process.once("SIGINT", () => stop.abort());
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
