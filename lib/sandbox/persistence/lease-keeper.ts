import { Subject, type Observable } from "rxjs";
import { LeaseLostError } from "../errors.js";
import type { SessionLease, SessionLeases } from "./lease.js";
import { PERSISTENCE_DEFAULTS } from "../defaults.js";

/**
 * How `restoreSessions({ claim })` claims: `claim: true` is all defaults. A client's first claim
 * fixes its `owner` and `ttlMs`; later claims only take `max` from their options.
 */
export interface ClaimOptions {
  /** Sessions to claim at most in this call (default: all the open sessions nobody holds). */
  max?: number;
  /**
   * How long a lease lasts without renewal (default 15000 ms; more than 0, at most a year, else a
   * `TypeError`). A killed worker's sessions are taken over this long after its last renewal; the
   * worker renews every third of it.
   */
  ttlMs?: number;
  /** This worker's name in the lease rows (default: a random one per client). */
  owner?: string;
}

/** Why a worker stopped driving a session. */
export interface LeaseLost {
  sessionId: string;
  generation: number;
  /**
   * `expired`: no renewal succeeded in time (the store was unreachable, or this process paused);
   * `taken`: the store says another worker holds the session (a newer generation);
   * `refused`: the store refused a write on it (`LeaseLostError`).
   */
  reason: "expired" | "taken" | "refused";
}

export const DEFAULT_LEASE_TTL_MS = PERSISTENCE_DEFAULTS.leaseTtlMs;
const UNLIMITED = 1_000_000;
/** The longest delay a timer takes: a longer one fires at once (Node warns, browsers do not). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Throws a `TypeError` naming `ttlMs` unless it is a number of milliseconds a lease can last. */
export function checkLeaseTtl(ttlMs: unknown): number {
  const max = PERSISTENCE_DEFAULTS.leaseTtlMaxMs;
  if (typeof ttlMs === "number" && Number.isFinite(ttlMs) && ttlMs > 0 && ttlMs <= max) return ttlMs;
  const got = String(ttlMs);
  throw new TypeError(`ttlMs must be a number of milliseconds above 0 and at most ${max} (a year), got ${got}`);
}

/**
 * This process's monotonic clock (ms): every local time of a keeper. The wall clock can be stepped
 * (NTP, a VM's clock correction); stepped back during a renewal, it would push a deadline past the
 * store's expiry, and two workers would both believe they hold a session. The store's own clock
 * stays the authority on expiry.
 */
const monotonic = (): number => performance.now();

/**
 * A moment on both clocks. The monotonic one does not run while the machine is suspended (a laptop
 * asleep, a VM paused and resumed): after a suspend longer than a lease, only the wall clock shows
 * that the lease ran out. A lease is held while both clocks say its deadline has not passed: a
 * wall-clock step back cannot extend it (the monotonic clock still ends it) and a suspend cannot
 * either (the wall clock does).
 */
interface Moment {
  mono: number;
  wall: number;
}
const moment = (): Moment => ({ mono: monotonic(), wall: Date.now() });

/** A timeout of any length at a `monotonic()` time: longer than a timer can take, a chain of timers (unref'd). */
function deadlineTimer(at: number, fire: () => void): { clear(): void } {
  let timer: ReturnType<typeof setTimeout>;
  const arm = () => {
    const wait = at - monotonic();
    timer = wait > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(fire, Math.max(0, wait));
    // Leases alone do not keep a process alive.
    (timer as { unref?: () => void }).unref?.();
  };
  arm();
  return { clear: () => clearTimeout(timer) };
}

/** Whether a held lease's deadline has passed on neither clock (see `Moment`). */
const inTime = (held: Held): boolean => monotonic() < held.deadline && Date.now() < held.wallDeadline;

interface Held {
  lease: SessionLease;
  /** `monotonic()` time by which a renewal must have succeeded: past it, the lease is treated as lost. */
  deadline: number;
  /** The same deadline on the wall clock (see `Moment`). */
  wallDeadline: number;
  timer: { clear(): void };
}

/**
 * A worker's leases: claims, renews every `ttlMs / 3`, and gives each lease up locally before the
 * store could let another worker have it. The store sets a lease's expiry to its own clock at the
 * moment the claim or renewal runs plus `ttlMs`; that moment is after this process sent the request,
 * so `sent + ttlMs` (on the local clocks, see `Moment`) is never later than the store's expiry,
 * assuming both clocks run at the same rate; a margin (a tenth of `ttlMs`, at most 2 s) covers timer
 * lateness and drift. When no renewal has succeeded by `sent + ttlMs - margin`, the lease is lost here
 * and `lost$` says so, while the store still refuses every other claimant. A paused process misses
 * that moment: its timer fires late, and the store's fencing (writes carry the generation) refuses
 * what it writes. A renewal that never returns is waited on until the earliest deadline among the
 * leases it asked for; then the next renewal goes out.
 */
export class LeaseKeeper {
  readonly owner: string;
  readonly ttlMs: number;
  readonly #leases: SessionLeases;
  readonly #held = new Map<string, Held>();
  /** Every session this keeper has claimed: driving one of them needs its lease, held now. */
  readonly #claimed = new Map<string, number>();
  readonly #lost = new Subject<LeaseLost>();
  readonly #margin: number;
  #renewing: ReturnType<typeof setInterval> | undefined;
  /** The renewal waited on now (its token), if any. */
  #inFlight: object | undefined;

  constructor(leases: SessionLeases, owner: string, ttlMs: number) {
    this.#leases = leases;
    this.owner = owner;
    this.ttlMs = checkLeaseTtl(ttlMs);
    this.#margin = Math.min(2000, Math.floor(this.ttlMs / 10));
  }

  /** Leases this worker lost (hot, no replay); each at most once per claim. */
  get lost$(): Observable<LeaseLost> {
    return this.#lost.asObservable();
  }

  /** Claims up to `max` sessions; the new leases are renewed from now on. */
  async claim(max = UNLIMITED): Promise<SessionLease[]> {
    const sent = moment();
    const claimed = await this.#leases.claim({ owner: this.owner, ttlMs: this.ttlMs, max });
    for (const lease of claimed) {
      this.#claimed.set(lease.sessionId, lease.generation);
      this.#hold(lease, sent);
    }
    if (this.#held.size > 0) this.#startRenewing();
    return claimed;
  }

  holds(sessionId: string): boolean {
    const held = this.#held.get(sessionId);
    return held !== undefined && inTime(held);
  }

  /**
   * Throws `LeaseLostError` when this worker once claimed the session and does not hold its lease
   * now (checked before each prompt; sessions never claimed here pass).
   */
  check(sessionId: string): void {
    const generation = this.#claimed.get(sessionId);
    if (generation === undefined) return;
    const held = this.#held.get(sessionId);
    if (held && inTime(held)) return;
    if (held) this.#drop(sessionId, "expired");
    throw new LeaseLostError(sessionId, generation, "this worker no longer holds it");
  }

  /** The store refused a write on the session (fencing): lost at once. */
  refused(sessionId: string): void {
    if (this.#held.has(sessionId)) this.#drop(sessionId, "refused");
  }

  /** Gives one lease up (another worker may claim the session at once). */
  async release(sessionId: string): Promise<void> {
    const held = this.#held.get(sessionId);
    if (!held) return;
    held.timer.clear();
    this.#held.delete(sessionId);
    await this.#leases.release(held.lease);
  }

  /** Gives every lease up and stops renewing. */
  async releaseAll(): Promise<void> {
    const ids = [...this.#held.keys()];
    await Promise.allSettled(ids.map((id) => this.release(id)));
    this.#stopRenewing();
  }

  /**
   * `work` (the last writes, then `releaseAll`), waited for at most as long as this worker holds a
   * lease: while renewals get through, the leases' deadlines move on and so does the wait; once the
   * last one passes, any worker may claim the sessions and there is nothing left to give back, so a
   * store that stopped answering holds the caller no longer. With no lease held any more (they ran
   * out before), at most one `ttlMs`. Then the keeper lets go of every lease without telling the
   * store, and stops renewing.
   */
  async whileHeld(work: () => Promise<void>): Promise<void> {
    let timer: { clear(): void } | undefined;
    const expired = new Promise<void>((resolve) => {
      const check = () => {
        const latest = this.#latestDeadline();
        if (latest !== undefined && latest > monotonic()) timer = deadlineTimer(latest, check);
        else resolve();
      };
      timer = deadlineTimer(this.#latestDeadline() ?? monotonic() + this.ttlMs, check);
    });
    try {
      await Promise.race([work(), expired]);
    } finally {
      timer?.clear();
    }
    for (const held of this.#held.values()) held.timer.clear();
    this.#held.clear();
    this.#stopRenewing();
  }

  /** The latest deadline among the leases held now, if any. */
  #latestDeadline(): number | undefined {
    let latest: number | undefined;
    for (const held of this.#held.values()) latest = Math.max(latest ?? held.deadline, held.deadline);
    return latest;
  }

  #hold(lease: SessionLease, sent: Moment): void {
    const previous = this.#held.get(lease.sessionId);
    previous?.timer.clear();
    const deadline = sent.mono + this.ttlMs - this.#margin;
    const wallDeadline = sent.wall + this.ttlMs - this.#margin;
    const timer = deadlineTimer(deadline, () => this.#drop(lease.sessionId, "expired"));
    this.#held.set(lease.sessionId, { lease, deadline, wallDeadline, timer });
  }

  #drop(sessionId: string, reason: LeaseLost["reason"]): void {
    const held = this.#held.get(sessionId);
    if (!held) return;
    held.timer.clear();
    this.#held.delete(sessionId);
    if (this.#held.size === 0) this.#stopRenewing();
    this.#lost.next({ sessionId, generation: held.lease.generation, reason });
  }

  #startRenewing(): void {
    if (this.#renewing !== undefined) return;
    // A long lease is renewed at least every 24.8 days (the longest a timer waits), which is sooner than needed.
    const every = Math.min(MAX_TIMER_MS, Math.max(50, Math.floor(this.ttlMs / 3)));
    this.#renewing = setInterval(() => void this.#renew(), every);
    (this.#renewing as { unref?: () => void }).unref?.();
  }

  #stopRenewing(): void {
    if (this.#renewing !== undefined) clearInterval(this.#renewing);
    this.#renewing = undefined;
  }

  async #renew(): Promise<void> {
    // One renewal at a time: a slow store must not pile requests up (the deadline timers still run).
    if (this.#inFlight !== undefined || this.#held.size === 0) return;
    const attempt = {};
    this.#inFlight = attempt;
    const sent = moment();
    const holding = [...this.#held.values()];
    const asked = holding.map((held) => held.lease);
    // A renewal that never returns (its connection went silent: no reset ever comes) must not stop
    // every later one. Past the earliest deadline of the leases it asked for, those are lost anyway:
    // stop waiting on it, and the next tick sends a new renewal for the leases still held.
    const earliest = Math.min(...holding.map((held) => held.deadline));
    const giveUp = deadlineTimer(earliest, () => {
      if (this.#inFlight === attempt) this.#inFlight = undefined;
    });
    try {
      const renewed = await this.#leases.renew(this.owner, asked, this.ttlMs);
      // Given up on: a later renewal's answer decides (this one's may be older than it).
      if (this.#inFlight !== attempt) return;
      const back = new Set(renewed.map((lease) => lease.sessionId));
      for (const lease of renewed) {
        // Renewed, but only counts if it came back in time (the deadline timer may have fired already).
        const held = this.#held.get(lease.sessionId);
        if (held && held.lease.generation === lease.generation && inTime(held)) this.#hold(lease, sent);
      }
      for (const lease of asked) {
        if (!back.has(lease.sessionId) && this.#held.get(lease.sessionId)?.lease.generation === lease.generation) {
          this.#drop(lease.sessionId, "taken");
        }
      }
    } catch {
      // Unreachable store: nothing renewed; each lease's deadline timer decides.
    } finally {
      giveUp.clear();
      if (this.#inFlight === attempt) this.#inFlight = undefined;
    }
  }
}
