import { Subject, type Observable } from "rxjs";
import { LeaseLostError, StoreError } from "../errors.js";
import { checkLeaseTtl, DEFAULT_LEASE_TTL_MS, LeaseKeeper, type ClaimOptions, type LeaseLost } from "./lease-keeper.js";
import { localLeases } from "./lease.js";
import type { SessionStore } from "./store.js";

/** The session a refused write was for, when the store refused it for a lost lease. */
function refusedSession(error: StoreError): string | undefined {
  if (error instanceof LeaseLostError) return error.sessionId;
  const refusedWrite = error instanceof StoreError && error.kind === "store-write";
  if (refusedWrite && error.cause instanceof LeaseLostError) return error.cause.sessionId;
  return undefined;
}

/**
 * A client's claimed sessions: one `LeaseKeeper` over the store's leases (or local ones for a store
 * without), made on the first claim with that claim's owner and ttl. A lease lost (expired, taken,
 * or a write refused by the store's fencing) goes to `onLost` (which stops driving the session)
 * first, then out on `lost$`.
 */
export class SessionClaims {
  readonly lost$: Observable<LeaseLost>;
  readonly #lost = new Subject<LeaseLost>();
  readonly #store: SessionStore;
  readonly #onLost: (lost: LeaseLost) => void;
  #keeper: LeaseKeeper | undefined;

  constructor(store: SessionStore, storeErrors$: Observable<StoreError>, onLost: (lost: LeaseLost) => void) {
    this.#store = store;
    this.#onLost = onLost;
    this.lost$ = this.#lost.asObservable();
    storeErrors$.subscribe((error) => {
      const sessionId = refusedSession(error);
      if (sessionId !== undefined) this.#keeper?.refused(sessionId);
    });
  }

  keeper(options: ClaimOptions): LeaseKeeper {
    // Checked on every call, although only the first one's ttl is used: a wrong value is never silent.
    if (options.ttlMs !== undefined) checkLeaseTtl(options.ttlMs);
    if (this.#keeper) return this.#keeper;
    const leases = this.#store.leases ?? localLeases(this.#store);
    const owner = options.owner ?? `worker-${globalThis.crypto.randomUUID()}`;
    const keeper = new LeaseKeeper(leases, owner, options.ttlMs ?? DEFAULT_LEASE_TTL_MS);
    keeper.lost$.subscribe((lost) => {
      try {
        this.#onLost(lost);
      } finally {
        this.#lost.next(lost);
      }
    });
    this.#keeper = keeper;
    return keeper;
  }

  /** True once this client has claimed something (only then do disconnects wait to release). */
  get active(): boolean {
    return this.#keeper !== undefined;
  }

  /** Throws `LeaseLostError` when the session was claimed here and its lease is not held now. */
  check(localId: string): void {
    this.#keeper?.check(localId);
  }

  /**
   * Gives back the leases of one claim whose sessions were not resumed (ended between the claim and
   * the resume, or gone): nothing drives them, and renewing them would keep them from every worker.
   */
  async keepResumed<T extends { localId: string }>(leases: Array<{ sessionId: string }>, resumed: T[]): Promise<T[]> {
    const driven = new Set(resumed.map((session) => session.localId));
    const idle = leases.filter((lease) => !driven.has(lease.sessionId));
    await Promise.allSettled(idle.map((lease) => this.release(lease.sessionId)));
    return resumed;
  }

  release(localId: string): Promise<void> {
    return this.#keeper?.release(localId) ?? Promise.resolve();
  }

  releaseAll(): Promise<void> {
    return this.#keeper?.releaseAll() ?? Promise.resolve();
  }

  /** `work`, waited for at most until the held leases would expire anyway (see `LeaseKeeper.whileHeld`). */
  whileHeld(work: () => Promise<void>): Promise<void> {
    return this.#keeper ? this.#keeper.whileHeld(work) : work();
  }
}
