// Scenario 13: many sessions on one client. One connection, `sessions` sessions, every one of them
// receiving updates at once (update i belongs to session i mod sessions) from an in-process server,
// so only the client is in the figure. Modes:
//   acp        AcpHttpClient, one subscriber on envelopes$ (the protocol client's own cost)
//   events     SandboxAgentClient, one subscriber on session(id).events$ per session
//   transcript SandboxAgentClient, one subscriber on session(id).transcript$ per session
// Heap per idle session: the views subscribed, nothing arriving yet, against the connected client
// before them (two full collections before each reading).
import type { Observable, Subscription } from "rxjs";
import { AcpHttpClient } from "../../lib/acp-http/index.js";
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
export { sessionsBody } from "../../spec/support/sessions-push-server.js";
import { pushServer } from "../../spec/support/sessions-push-server.js";
import { SANDBOX_AGENT_HEADER } from "../../spec/support/sandbox-agent-transport.js";
import { memoryAfterGc, sleep, Stopwatch, whenCount } from "../support/measure.js";

export type ManySessionsMode = "acp" | "events" | "transcript";

export interface ManySessionsResult {
  mode: ManySessionsMode;
  sessions: number;
  updates: number;
  cpuMs: number;
  wallMs: number;
  /** Heap added per session by its view and subscription, before any update (not for `acp`). */
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
