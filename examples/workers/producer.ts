// The workers example's producer: opens one session per coding task on a sandbox-agent server,
// records each (with its task in the session's metadata) in PostgreSQL, and leaves without running
// anything: the open sessions are the queue the workers (worker.ts) claim from.
//
//   DATABASE_URL=postgres://... node --import tsx examples/workers/producer.ts --url URL [--agent mock] \
//     [--token TOKEN] --task "fix the build" --task "write the changelog" [--schema sandbox_agent]
//
// The connection string comes from the environment, not the command line (where `ps` would show it).
import { parseArgs } from "node:util";
import { SandboxAgentClient } from "sandbox-agent-rx";
import { postgresStore } from "sandbox-agent-rx/postgres";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    agent: { type: "string", default: "mock" },
    token: { type: "string", default: process.env.SANDBOX_AGENT_TOKEN },
    task: { type: "string", multiple: true, default: [] },
    schema: { type: "string", default: "sandbox_agent" },
  },
});
const connectionString = process.env.DATABASE_URL;
if (!values.url || !connectionString || values.task.length === 0) {
  process.stderr.write(
    "usage: DATABASE_URL=... producer.ts --url URL [--agent NAME] [--token TOKEN] --task TEXT [--task TEXT ...]\n",
  );
  process.exit(2);
}

const store = postgresStore({ connectionString, schema: values.schema });
const client = new SandboxAgentClient({
  baseUrl: values.url,
  agent: values.agent,
  store,
  ...(values.token ? { token: values.token } : {}),
});
client.storeErrors$.subscribe((error) => process.stderr.write(`store error: ${error.message}\n`));
try {
  await client.ready;
  for (const task of values.task) {
    // Session ids are the queue's keys: they must be unique across the whole fleet (see docs/persistence.md).
    const { sessionId } = await client.newSession({ metadata: { title: task, task } });
    console.log(`produced ${sessionId} ${JSON.stringify(task)}`);
  }
} finally {
  await client.disconnect();
  await store.close();
}
