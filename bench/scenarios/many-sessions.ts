// Scenario 13: many sessions on one client. One connection, `sessions` sessions, every one of them
// receiving updates at once (update i belongs to session i mod sessions) from an in-process server,
// so only the client is in the figure. Modes:
//   acp        AcpHttpClient, one subscriber on envelopes$ (the protocol client's own cost)
//   events     SandboxAgentClient, one subscriber on session(id).events$ per session
//   transcript SandboxAgentClient, one subscriber on session(id).transcript$ per session
//   raw        no client and no rxjs: the same bytes decoded, split into events and parsed, each update
//              reduced into its session's messages (the chunk's text appended to the newest message's
//              chunk list) with an immutable snapshot per update handed to that session's subscriber.
//              What the machine charges for the same work and the same live state per session; its
//              own 1,000 ÷ 1 is the memory hierarchy's share of every row's curve.
// Heap per idle session: the views subscribed, nothing arriving yet, against the connected client
// before them (two full collections before each reading).
import type { Observable, Subscription } from "rxjs";
import { AcpHttpClient } from "../../lib/acp-http/index.js";
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
export { sessionsBody } from "../../spec/support/sessions-push-server.js";
import { pushServer } from "../../spec/support/sessions-push-server.js";
import { SANDBOX_AGENT_HEADER } from "../../spec/support/sandbox-agent-transport.js";
import { memoryAfterGc, sleep, Stopwatch, whenCount } from "../support/measure.js";

export type ManySessionsMode = "acp" | "events" | "transcript" | "raw";

export interface ManySessionsResult {
  mode: ManySessionsMode;
  sessions: number;
  updates: number;
  cpuMs: number;
  wallMs: number;
  /** Heap added per session by its view and subscription, before any update (not for `acp`, `raw`). */
  heapPerIdleSession: number;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 1000) throw new Error(`many sessions: ${what} did not happen within 10 s`);
    await sleep(10);
  }
}

/** One run: connect, subscribe the views, measure their heap, push the body, clock its delivery. */
export async function manySessions(mode: ManySessionsMode, sessions: number, body: Uint8Array[], updates: number): Promise<ManySessionsResult> {
  if (mode === "raw") return manySessionsRaw(sessions, body, updates);
  const server = pushServer();
  let seen = 0;
  const counter = whenCount(() => seen, updates);
  let close: () => Promise<void>;
  let heapPerIdleSession = Number.NaN;
  if (mode === "acp") {
    const client = new AcpHttpClient({ baseUrl: "http://bench.invalid", path: "/v1/acp/many", ...SANDBOX_AGENT_HEADER, fetch: server.fetch, closeTimeoutMs: 500 });
    await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    client.envelopes$.subscribe(() => {
      seen++;
      counter.notify();
    });
    close = () => client.disconnect();
  } else {
    const client = new SandboxAgentClient({ baseUrl: "http://bench.invalid", agent: "mock", fetch: server.fetch, autoConnect: false });
    await client.connect();
    const before = memoryAfterGc();
    const subscriptions: Subscription[] = [];
    for (let s = 0; s < sessions; s++) {
      const view = client.session(`s-${s}`);
      const source: Observable<unknown> = mode === "events" ? view.events$ : view.transcript$;
      subscriptions.push(
        source.subscribe(() => {
          seen++;
          counter.notify();
        }),
      );
    }
    heapPerIdleSession = (memoryAfterGc().heapUsed - before.heapUsed) / sessions;
    close = async () => {
      for (const subscription of subscriptions) subscription.unsubscribe();
      await client.disconnect();
    };
  }
  await until(server.opened, "the event stream's GET");
  // A transcript$ emits its first (empty) snapshot on subscription: those are not updates.
  seen = 0;
  const watch = new Stopwatch();
  server.push(body);
  await counter.done;
  const sample = watch.read();
  await close();
  return { mode, sessions, updates, cpuMs: sample.cpuMs, wallMs: sample.wallMs, heapPerIdleSession };
}

/** A message as the raw reduction keeps it: its kind and its chunks' text, appended in place. */
interface RawMessage {
  readonly kind: string;
  readonly chunks: string[];
}

/** One session's state in the raw reduction, and the subscriber its snapshots go to. */
interface RawSession {
  readonly messages: RawMessage[];
  version: number;
  /** The latest snapshot, kept as a transcript keeps its latest for the next subscriber. */
  snapshot: RawSnapshot | undefined;
  readonly subscriber: (snapshot: RawSnapshot) => void;
}

/** What a subscriber gets per update: immutable, and it tells which prefix of the newest message it saw. */
interface RawSnapshot {
  readonly version: number;
  readonly size: number;
  readonly last: RawMessage;
  readonly chunks: number;
}

const RAW_KINDS: Record<string, string> = {
  agent_message_chunk: "agent-message",
  agent_thought_chunk: "thought",
  user_message_chunk: "user-message",
};

/**
 * The raw row: the cheapest honest reduction of the same bytes into the same information, with the
 * sessions' states as live as the clients' (one per session, touched round-robin).
 */
function manySessionsRaw(sessions: number, body: Uint8Array[], updates: number): ManySessionsResult {
  let seen = 0;
  const states = new Map<string, RawSession>();
  for (let s = 0; s < sessions; s++) {
    states.set(`s-${s}`, { messages: [], version: 0, snapshot: undefined, subscriber: () => void seen++ });
  }
  const watch = new Stopwatch();
  const decoder = new TextDecoder();
  let buffer = "";
  for (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    let end: number;
    while ((end = buffer.indexOf("\n\n", start)) >= 0) {
      const data = buffer.indexOf("data: ", start);
      const from = start;
      start = end + 2;
      if (data < from || data > end) continue;
      const message = JSON.parse(buffer.slice(data + 6, end)) as {
        params: { sessionId: string; update: { sessionUpdate: string; content?: { type: string; text?: string } } };
      };
      const state = states.get(message.params.sessionId);
      const update = message.params.update;
      const kind = RAW_KINDS[update.sessionUpdate];
      if (state === undefined || kind === undefined || update.content?.type !== "text") continue;
      const messages = state.messages;
      let last = messages[messages.length - 1];
      if (last === undefined || last.kind !== kind) {
        last = { kind, chunks: [] };
        messages.push(last);
      }
      last.chunks.push(update.content.text ?? "");
      state.version++;
      const snapshot: RawSnapshot = { version: state.version, size: messages.length, last, chunks: last.chunks.length };
      state.snapshot = Object.freeze(snapshot);
      state.subscriber(state.snapshot);
    }
    buffer = buffer.slice(start);
  }
  const sample = watch.read();
  if (seen !== updates) throw new Error(`many sessions, raw: ${seen} of ${updates} updates reduced`);
  return { mode: "raw", sessions, updates, cpuMs: sample.cpuMs, wallMs: sample.wallMs, heapPerIdleSession: Number.NaN };
}
