// Helpers of the client persistence specs.
import type { SessionEvent, SessionStore } from "../../lib/sandbox/index.js";

/** A fetch that can be cut like a killed process: in-flight requests abort, later ones fail. */
export function killableFetch() {
  const controller = new AbortController();
  const fetch: typeof globalThis.fetch = (input, init) => {
    if (controller.signal.aborted) return Promise.reject(new TypeError("the process is gone"));
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    return globalThis.fetch(input, { ...init, signal });
  };
  return { fetch, kill: () => controller.abort() };
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
