// Helpers of the client persistence specs.
import type { SandboxAgentClient, SessionEvent, SessionStore } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import type { StartSandboxAgentOptions } from "../support/sandbox-agent-server.js";

/**
 * Two 0.4.2 servers with the scripted agent for one describe block: `withLoad` (its agent can
 * `session/load`; `withLoadOptions` may change it) and `withoutLoad` (it cannot, and echoes the
 * text blocks of every prompt in the result). The `clients` are disconnected when the block ends.
 */
export function statelessServers(withLoadOptions: StartSandboxAgentOptions = {}) {
  const servers = {
    withLoad: undefined as unknown as SandboxAgentServer,
    withoutLoad: undefined as unknown as SandboxAgentServer,
    clients: [] as SandboxAgentClient[],
  };
  beforeAll(async () => {
    servers.withLoad = await startSandboxAgent(withLoadOptions);
    const env = { SCRIPTED_AGENT_NO_LOAD: "1", SCRIPTED_AGENT_ECHO_PROMPT: "1" };
    servers.withoutLoad = await startSandboxAgent({ env });
  }, 60_000);
  afterAll(async () => {
    for (const c of servers.clients) await c.disconnect().catch(() => undefined);
    await servers.withLoad?.stop();
    await servers.withoutLoad?.stop();
  });
  return servers;
}

/**
 * A page's handle on `store` that goes with the page: once `gone` aborts, nothing it writes reaches
 * the store (reads still do), as when the page reloads mid-write.
 */
export function pageStore(store: SessionStore, gone: AbortSignal): SessionStore {
  const refused = () => Promise.reject(new Error("the page is gone"));
  return {
    getSession: (id) => store.getSession(id),
    listSessions: (request) => store.listSessions(request),
    listEvents: (request) => store.listEvents(request),
    updateSession: (record) => (gone.aborted ? refused() : store.updateSession(record)),
    insertEvent: (id, event) => (gone.aborted ? refused() : store.insertEvent(id, event)),
  };
}

/** A fetch that can be cut like a killed process: in-flight requests abort, later ones fail. */
export function killableFetch() {
  const controller = new AbortController();
  const fetch: typeof globalThis.fetch = (input, init) => {
    if (controller.signal.aborted) return Promise.reject(new TypeError("the process is gone"));
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    return globalThis.fetch(input, { ...init, signal });
  };
  return { fetch, kill: () => controller.abort(), signal: controller.signal };
}

export const chunkText = (payload: unknown): string | undefined => {
  const update = (payload as { params?: { update?: { sessionUpdate?: string; content?: { text?: string } } } })
    .params?.update;
  return update?.sessionUpdate === "agent_message_chunk" ? update.content?.text : undefined;
};

export async function allEvents(store: SessionStore, sessionId: string): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listEvents({ sessionId, limit: 1000, ...(cursor ? { cursor } : {}) });
    events.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return events;
}
