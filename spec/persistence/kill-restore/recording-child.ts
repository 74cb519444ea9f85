// A process that records a server's stream into sqliteStore, to be SIGKILLed at any moment. `start`
// opens a connection, creates a session and starts a turn; `resume` reattaches to the stored
// connection with the stored Last-Event-ID (the server replays what was missed) and records on.
// Either exits 0 once the update whose text is <lastText> is stored. With <dieAt> > 0 it SIGKILLs
// itself once an update whose text number is at least <dieAt> is stored (later ones may be queued):
// the harness kills it from outside first; this only bounds how far a child can get.
//
//   node --import tsx recording-child.ts <start|resume> <v2|v1> <baseUrl> <dbFile> <prompt> <lastText> <dieAt>
//
// v2: the v2 contract server (/v2/rpc, x-acp-connection-id). v1: the released 0.4.2 server
// (/v1/acp/{serverId}?agent=mock); the serverId is the connection, kept by the server until DELETE.
import { tmpdir } from "node:os";
import { AcpHttpClient, isNotification, type AcpEnvelope } from "../../../lib/acp-http/index.js";
import { createRecorder, eventIdentity, type NewSessionEvent } from "../../../lib/sandbox/persistence/index.js";
import { sqliteStore } from "../../../lib/sqlite/index.js";
import { SANDBOX_AGENT_HEADER, SANDBOX_AGENT_V2 } from "../../support/sandbox-agent-transport.js";

const [mode, api, baseUrl, dbFile, promptText, lastText, dieAtArg] = process.argv.slice(2) as string[] as [
  string, string, string, string, string, string, string,
];
const dieAt = Number(dieAtArg ?? 0);
const LOCAL_ID = "local-1";
const agentMeta = { "sandboxagent.dev": { agent: "mock" } };
const SERVER_ID = "kill-restore-1";
const BOOTSTRAP = { agent: "mock" };
const transport = (resume: boolean) =>
  api === "v1"
    ? {
        path: `/v1/acp/${SERVER_ID}`,
        ...SANDBOX_AGENT_HEADER,
        responseEcho: true as const,
        ...(resume ? {} : { bootstrapQuery: BOOTSTRAP }),
      }
    : SANDBOX_AGENT_V2;
const say = (line: string) => process.stdout.write(`${line}\n`);

const store = sqliteStore({ database: dbFile });
const recorder = createRecorder(store);
recorder.storeErrors$.subscribe((error) => say(`store-error ${error.message}`));

/** The stream number of a stored id `sse:<conn>::<n>`. */
const streamNumber = (id: string) => Number(id.split(":").at(-1));

const textOf = (payload: unknown) =>
  (payload as { params?: { update?: { content?: { text?: string } } } }).params?.update?.content?.text;

/** The highest stream id stored, and whether the turn's last update is among the stored. */
async function scan(): Promise<{ lastEventId: string | undefined; finished: boolean }> {
  let last = 0;
  let finished = false;
  let cursor: string | undefined;
  do {
    const page = await store.listEvents({ sessionId: LOCAL_ID, limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const item of page.items) {
      last = Math.max(last, streamNumber(item.id));
      finished ||= textOf(item.payload) === lastText;
    }
    cursor = page.nextCursor;
  } while (cursor);
  return { lastEventId: last > 0 ? String(last) : undefined, finished };
}

async function finish(): Promise<never> {
  await recorder.flush();
  await store.close?.();
  say("done");
  process.exit(0);
}

function watch(acp: AcpHttpClient, agentSessionId: () => string | undefined): void {
  const toEvent = (envelope: AcpEnvelope): NewSessionEvent | undefined => {
    if (!isNotification(envelope) || envelope.method !== "session/update") return undefined;
    if ((envelope.params as { sessionId?: string } | undefined)?.sessionId !== agentSessionId()) return undefined;
    // Today's public API has no per-envelope SSE id; the cursor was advanced to this frame's id
    // just before the envelope was emitted (phase 2 hook: the id on the envelope itself).
    const connectionId = acp.connectionId ?? SERVER_ID;
    const streamEventId = acp.lastEventId;
    return {
      id: eventIdentity({
        connectionId,
        sender: "agent",
        payload: envelope,
        ...(streamEventId ? { streamEventId } : {}),
      }),
      sessionId: LOCAL_ID,
      createdAt: Date.now(),
      connectionId,
      sender: "agent",
      payload: envelope,
    };
  };
  acp.envelopes$.pipe(recorder.record(toEvent)).subscribe();
  recorder.stored$.subscribe((event) => {
    say(`stored ${event.eventIndex}`);
    const number = Number(/\d+/.exec(textOf(event.payload) ?? "")?.[0] ?? 0);
    if (dieAt > 0 && number >= dieAt) process.kill(process.pid, "SIGKILL");
    if (textOf(event.payload) === lastText) void finish();
  });
}

if (mode === "start") {
  let agentSessionId: string | undefined;
  const acp = new AcpHttpClient({ baseUrl, ...transport(false) });
  watch(acp, () => agentSessionId);
  await acp.initialize({ _meta: agentMeta });
  ({ sessionId: agentSessionId } = await acp.newSession({ cwd: tmpdir(), mcpServers: [], _meta: agentMeta }));
  await store.updateSession({
    id: LOCAL_ID,
    agent: "mock",
    agentSessionId,
    lastConnectionId: acp.connectionId ?? SERVER_ID,
    createdAt: Date.now(),
  });
  void acp.prompt({ sessionId: agentSessionId, prompt: [{ type: "text", text: promptText }] }).catch(() => undefined);
  say("ready 0");
} else {
  const record = await store.getSession(LOCAL_ID);
  if (!record) throw new Error("no stored session to resume");
  const { lastEventId, finished } = await scan();
  if (finished) await finish();
  const resumeAt = lastEventId ? { lastEventId } : {};
  const connection = api === "v1" ? {} : { connectionId: record.lastConnectionId };
  const acp = new AcpHttpClient({ baseUrl, ...transport(true), ...connection, ...resumeAt });
  watch(acp, () => record.agentSessionId);
  // The stream opens after the first POST on a resumed connection (phase 2 hook: reattach without one).
  await acp.request("session/list", {});
  say(`ready ${lastEventId ?? 0}`);
}
