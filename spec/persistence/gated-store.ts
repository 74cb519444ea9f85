// A real memoryStore behind gates the test opens by hand, to stage races (slow writes, a history
// load overtaken by live events) without timing.
import { memoryStore, type SessionStore } from "../../lib/sandbox/persistence/index.js";

export class Gate {
  #waiters: Array<() => void> = [];
  #open = true;
  close(): void {
    this.#open = false;
  }
  open(): void {
    this.#open = true;
    for (const wake of this.#waiters.splice(0)) wake();
  }
  /** Lets exactly one waiter through, keeping the gate closed. */
  step(): void {
    this.#waiters.shift()?.();
  }
  get waiting(): number {
    return this.#waiters.length;
  }
  pass(): Promise<void> {
    return this.#open ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
}

export interface GatedStore extends SessionStore {
  inserts: Gate;
  listing: Gate;
  listCalls: number;
}

export function gatedStore(inner: SessionStore = memoryStore()): GatedStore {
  const inserts = new Gate();
  const listing = new Gate();
  const store: GatedStore = {
    inserts,
    listing,
    listCalls: 0,
    getSession: (id) => inner.getSession(id),
    listSessions: (request) => inner.listSessions(request),
    updateSession: (session) => inner.updateSession(session),
    listEvents: async (request) => {
      store.listCalls += 1;
      // Read at the gate's opening, not before: what was written meanwhile is seen, as in a real store.
      await listing.pass();
      return inner.listEvents(request);
    },
    insertEvent: async (sessionId, event) => {
      await inserts.pass();
      return inner.insertEvent(sessionId, event);
    },
  };
  return store;
}

/** Resolves after pending promise callbacks (several hops) have run. */
export const settle = async (rounds = 20): Promise<void> => {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
};

/** Waits until `predicate` holds, bounded. */
export async function until(predicate: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
