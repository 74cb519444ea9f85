/**
 * Session leases: which worker drives a stored session. A lease has an owner, a generation (raised on
 * every new claim, never reused) and an expiry the owner keeps pushing back (heartbeat). Stores that
 * are shared between processes (PostgreSQL) implement `SessionLeases` themselves and fence their
 * writes with the generation; every other store gets `localLeases`, where a claim is local to this
 * process.
 */

export interface SessionLease {
  sessionId: string;
  owner: string;
  generation: number;
  /** When the lease runs out if not renewed (ms since the epoch, by the store's clock). */
  expiresAt: number;
}

export interface ClaimRequest {
  owner: string;
  ttlMs: number;
  /** Claims at most this many sessions. */
  max: number;
}

export interface SessionLeases {
  /**
   * Takes up to `max` open sessions (no `endedAt`) that nobody holds or whose lease has expired,
   * oldest first, each with the next generation. Two claims never get the same session.
   */
  claim(request: ClaimRequest): Promise<SessionLease[]>;
  /** Extends the leases still held (same owner and generation) by `ttlMs`; returns those, renewed. */
  renew(owner: string, leases: SessionLease[], ttlMs: number): Promise<SessionLease[]>;
  /** Gives a lease up now: another worker may claim the session at once (with the next generation). */
  release(lease: SessionLease): Promise<void>;
}

interface LocalEntry {
  owner: string;
  generation: number;
  expiresAt: number;
}

/**
 * The local store's clock: ms since the epoch, but never stepped (the process's monotonic clock from
 * its start), so a wall-clock step cannot expire a lease early while its keeper still holds it.
 */
const storeClock = (): number => performance.timeOrigin + performance.now();

/** Leases of in-process stores, per store object: claims are only seen by this process. */
const local = new WeakMap<object, Map<string, LocalEntry>>();

/**
 * Leases for a store that has none of its own (memory, IndexedDB, SQLite): kept in this process's
 * memory, so two clients of one process split the sessions between them; other processes never see
 * these claims.
 */
export function localLeases(store: {
  listSessions(request?: { cursor?: string; limit?: number }): Promise<{
    items: Array<{ id: string; endedAt?: number }>;
    nextCursor?: string;
  }>;
}): SessionLeases {
  let entries = local.get(store);
  if (!entries) {
    entries = new Map();
    local.set(store, entries);
  }
  const table = entries;
  return {
    async claim({ owner, ttlMs, max }) {
      const claimed: SessionLease[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listSessions({ limit: 1000, ...(cursor ? { cursor } : {}) });
        for (const record of page.items) {
          if (claimed.length >= max) return claimed;
          if (record.endedAt !== undefined) continue;
          const now = storeClock();
          const held = table.get(record.id);
          if (held && held.expiresAt > now) continue;
          const entry = { owner, generation: (held?.generation ?? 0) + 1, expiresAt: now + ttlMs };
          table.set(record.id, entry);
          claimed.push({ sessionId: record.id, ...entry });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return claimed;
    },
    async renew(owner, leases, ttlMs) {
      const renewed: SessionLease[] = [];
      for (const lease of leases) {
        const held = table.get(lease.sessionId);
        if (!held || held.owner !== owner || held.generation !== lease.generation) continue;
        held.expiresAt = storeClock() + ttlMs;
        renewed.push({ ...lease, expiresAt: held.expiresAt });
      }
      return renewed;
    },
    async release(lease) {
      const held = table.get(lease.sessionId);
      if (held && held.owner === lease.owner && held.generation === lease.generation) held.expiresAt = 0;
    },
  };
}
