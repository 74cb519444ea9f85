import { jest } from "@jest/globals";
import { LeaseLostError, memoryStore, SandboxAgentClient } from "../../lib/sandbox/index.js";
import {
  LeaseKeeper,
  localLeases,
  type LeaseLost,
  type SessionLease,
  type SessionLeases,
} from "../../lib/sandbox/persistence/index.js";

const DAY = 24 * 3600 * 1000;

async function storeWithOpenSession() {
  const store = memoryStore();
  await store.updateSession({ id: "s1", agent: "mock", agentSessionId: "a1", lastConnectionId: "c", createdAt: 1 });
  return store;
}

describe("lease ttlMs", () => {
  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY, 366 * DAY, "15000"])(
    "refuses ttlMs %p with a TypeError naming the option, before anything is claimed",
    async (ttlMs) => {
      const store = await storeWithOpenSession();
      const client = new SandboxAgentClient({ baseUrl: "http://127.0.0.1:9", agent: "mock", store, autoConnect: false });
      const claim = { ttlMs } as unknown as { ttlMs: number };
      const error = await client.restoreSessions({ claim }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^ttlMs must be/);
      expect(() => new LeaseKeeper(localLeases(store), "w", ttlMs as number)).toThrow(TypeError);
      // Nothing was claimed: another worker still gets the session.
      expect(await localLeases(store).claim({ owner: "other", ttlMs: 1000, max: 1 })).toHaveLength(1);
    },
  );

  describe("a lease longer than a timer can wait (2^31 - 1 ms)", () => {
    beforeEach(() => jest.useFakeTimers({ now: Date.UTC(2026, 0, 1) }));
    afterEach(() => jest.useRealTimers());

    it("is held, and renewed, long past 24.8 days", async () => {
      const store = await storeWithOpenSession();
      const leases = localLeases(store);
      let renewals = 0;
      const counting: SessionLeases = {
        ...leases,
        renew: (owner, held, ttlMs) => {
          renewals++;
          return leases.renew(owner, held, ttlMs);
        },
      };
      const keeper = new LeaseKeeper(counting, "w", 90 * DAY);
      const lost: LeaseLost[] = [];
      keeper.lost$.subscribe((l) => lost.push(l));
      expect(await keeper.claim()).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1000);
      expect(lost).toEqual([]);
      expect(keeper.holds("s1")).toBe(true);
      await jest.advanceTimersByTimeAsync(200 * DAY);
      expect(lost).toEqual([]);
      expect(keeper.holds("s1")).toBe(true);
      expect(renewals).toBeGreaterThanOrEqual(8);
      await keeper.releaseAll();
    });

    it("is lost when no renewal gets through, at its deadline and not before", async () => {
      const store = await storeWithOpenSession();
      const leases = localLeases(store);
      const unreachable: SessionLeases = {
        ...leases,
        renew: (): Promise<SessionLease[]> => Promise.reject(new Error("store unreachable")),
      };
      const keeper = new LeaseKeeper(unreachable, "w", 30 * DAY);
      const lost: LeaseLost[] = [];
      keeper.lost$.subscribe((l) => lost.push(l));
      await keeper.claim();
      await jest.advanceTimersByTimeAsync(30 * DAY - 3000);
      expect(lost).toEqual([]);
      await jest.advanceTimersByTimeAsync(2000);
      expect(lost).toEqual([{ sessionId: "s1", generation: 1, reason: "expired" }]);
    });
  });
});

describe("a lease across a suspend of the machine", () => {
  // The monotonic clock does not run while a machine sleeps; the wall clock does. A suspend is the
  // wall clock moving on while the monotonic clock stands still: here, Date.now jumps 2 minutes.
  it("is lost on waking when the suspend outlasted it, though no timer has fired yet", async () => {
    const store = await storeWithOpenSession();
    const keeper = new LeaseKeeper(localLeases(store), "w", 60_000);
    const lost: LeaseLost[] = [];
    keeper.lost$.subscribe((l) => lost.push(l));
    expect(await keeper.claim()).toHaveLength(1);
    expect(keeper.holds("s1")).toBe(true);
    const realNow = Date.now;
    const woke = realNow.call(Date) + 120_000;
    Date.now = () => woke;
    try {
      expect(keeper.holds("s1")).toBe(false);
      expect(() => keeper.check("s1")).toThrow(LeaseLostError);
      expect(lost).toEqual([{ sessionId: "s1", generation: 1, reason: "expired" }]);
    } finally {
      Date.now = realNow;
      await keeper.releaseAll();
    }
  });
});
