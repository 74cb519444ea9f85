// The kill-and-restore child again, through the client's public API only: `start` creates a
// SandboxAgentClient with sqliteStore, a session and a turn; `resume` is a new client with
// `autoConnect: false` and `restoreSessions()`. Same arguments and output lines as recording-child.ts
// ("ready <stream id>", "stored <index>", "done"); the store is wrapped (as a user's own driver
// could be) only to print each real insert.
//
//   node --import tsx client-child.ts <start|resume> <v2|v1> <baseUrl> <dbFile> <prompt> <lastText> <dieAt>
import { tmpdir } from "node:os";
import { SandboxAgentClient, type SessionEvent, type SessionStore } from "../../../lib/sandbox/index.js";
import { sqliteStore } from "../../../lib/sqlite/index.js";

const [mode, api, baseUrl, dbFile, promptText, lastText, dieAtArg] = process.argv.slice(2) as string[] as [
  string, string, string, string, string, string, string,
];
const dieAt = Number(dieAtArg ?? 0);
const say = (line: string) => process.stdout.write(`${line}\n`);
const textOf = (payload: unknown) =>
  (payload as { params?: { update?: { content?: { text?: string } } } }).params?.update?.content?.text;

const inner = sqliteStore({ database: dbFile });
let finishing = false;
const onStored = (event: SessionEvent) => {
  say(`stored ${event.eventIndex}`);
  const number = Number(/\d+/.exec(textOf(event.payload) ?? "")?.[0] ?? 0);
  if (dieAt > 0 && number >= dieAt) process.kill(process.pid, "SIGKILL");
  if (textOf(event.payload) === lastText) void finish();
};
const store: SessionStore = {
  getSession: (id) => inner.getSession(id),
  listSessions: (request) => inner.listSessions(request),
  updateSession: (session) => inner.updateSession(session),
  listEvents: (request) => inner.listEvents(request),
  insertEvent: async (sessionId, event) => {
    const outcome = await inner.insertEvent(sessionId, event);
    if (outcome.inserted) onStored(outcome.event);
    return outcome;
  },
};

const client = new SandboxAgentClient({
  baseUrl,
  agent: "mock",
  serverApi: api as "v1" | "v2",
  store,
  autoConnect: mode === "start",
});
client.storeErrors$.subscribe((error) => say(`store-error ${error.message}`));

async function finish(): Promise<void> {
  if (finishing) return;
  finishing = true;
  // Give the recorder its last writes, then leave without a DELETE (the server keeps the connection).
  await new Promise((resolve) => setTimeout(resolve, 50));
  await inner.close?.();
  say("done");
  process.exit(0);
}

/** The last stored stream id and whether the turn's last update is stored already. */
async function scan(): Promise<{ last: number; finished: boolean }> {
  const { items: sessions } = await store.listSessions();
  let last = 0;
  let finished = false;
  for (const session of sessions) {
    let cursor: string | undefined;
    do {
      const page = await store.listEvents({ sessionId: session.id, limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const item of page.items) {
        if (item.id.startsWith("sse:")) last = Math.max(last, Number(item.id.split(":").at(-1)));
        finished ||= textOf(item.payload) === lastText;
      }
      cursor = page.nextCursor;
    } while (cursor);
  }
  return { last, finished };
}

if (mode === "start") {
  await client.ready;
  const { sessionId } = await client.newSession({ cwd: tmpdir() });
  void client.prompt(sessionId, promptText).catch(() => undefined);
  say("ready 0");
} else {
  const { last, finished } = await scan();
  if (finished) await finish();
  const resumed = await client.restoreSessions({ timeoutMs: 20_000 });
  if (resumed[0]?.resumedBy !== "reattached") throw new Error(`not reattached: ${JSON.stringify(resumed)}`);
  say(`ready ${last}`);
}
