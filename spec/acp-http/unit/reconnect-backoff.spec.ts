import { normalizeReconnectPolicy, reconnectDelay, type NormalizedReconnectPolicy } from "../../../lib/internal/backoff.js";
import { ACP_DEFAULTS } from "../../../lib/acp-http/defaults.js";
import { mulberry32 } from "../../support/prng.js";

const noJitter = (overrides: Partial<NormalizedReconnectPolicy> = {}): NormalizedReconnectPolicy =>
  ({ ...normalizeReconnectPolicy({ jitter: 0 }, ACP_DEFAULTS.reconnect), ...overrides });
const middle = () => 0.5;

describe("normalizeReconnectPolicy", () => {
  it("fills in the documented defaults, with no stall timeout", () => {
    expect(normalizeReconnectPolicy(undefined, ACP_DEFAULTS.reconnect)).toEqual({
      initialDelayMs: 500,
      maxDelayMs: 10_000,
      factor: 2,
      jitter: 0.2,
      maxRetries: 6,
      stallTimeoutMs: undefined,
    });
  });

  it("keeps valid values as given", () => {
    expect(normalizeReconnectPolicy({ initialDelayMs: 0, maxDelayMs: 30, factor: 3, jitter: 0.5, maxRetries: 0, stallTimeoutMs: 45_000 }, ACP_DEFAULTS.reconnect)).toEqual({
      initialDelayMs: 0,
      maxDelayMs: 30,
      factor: 3,
      jitter: 0.5,
      maxRetries: 0,
      stallTimeoutMs: 45_000,
    });
  });

  it("replaces negative and non-finite numbers with the defaults", () => {
    const policy = normalizeReconnectPolicy({ initialDelayMs: -1, maxDelayMs: Number.NaN, jitter: -0.5, maxRetries: Number.POSITIVE_INFINITY }, ACP_DEFAULTS.reconnect);
    expect(policy).toMatchObject({ initialDelayMs: 500, maxDelayMs: 10_000, jitter: 0.2, maxRetries: 6 });
  });

  it("takes false as no reconnect at all (0 retries), the rest defaulted", () => {
    expect(normalizeReconnectPolicy(false, ACP_DEFAULTS.reconnect)).toEqual({ ...normalizeReconnectPolicy(undefined, ACP_DEFAULTS.reconnect), maxRetries: 0 });
  });

  it("never shrinks the delay between attempts and never spreads it past 100 %", () => {
    expect(normalizeReconnectPolicy({ factor: 0.5 }, ACP_DEFAULTS.reconnect).factor).toBe(1);
    expect(normalizeReconnectPolicy({ jitter: 3 }, ACP_DEFAULTS.reconnect).jitter).toBe(1);
  });
});

describe("reconnectDelay", () => {
  it("grows by the factor from the initial delay", () => {
    const policy = noJitter({ initialDelayMs: 100, factor: 2, maxDelayMs: 1_000_000 });
    expect([1, 2, 3, 4, 5].map((attempt) => reconnectDelay(policy, attempt, undefined, middle))).toEqual([100, 200, 400, 800, 1600]);
  });

  it("is capped at maxDelayMs", () => {
    const policy = noJitter({ initialDelayMs: 500, factor: 2, maxDelayMs: 3000 });
    expect([3, 4, 5, 30, 1000].map((attempt) => reconnectDelay(policy, attempt, undefined, middle))).toEqual([2000, 3000, 3000, 3000, 3000]);
  });

  it("treats attempt 0 like the first attempt", () => {
    expect(reconnectDelay(noJitter({ initialDelayMs: 250 }), 0, undefined, middle)).toBe(250);
  });

  it("spreads the delay within ±jitter of the base, both ends reachable", () => {
    const policy = normalizeReconnectPolicy({ initialDelayMs: 1000, factor: 2, maxDelayMs: 4000, jitter: 0.25 }, ACP_DEFAULTS.reconnect);
    expect(reconnectDelay(policy, 1, undefined, () => 0)).toBe(750);
    expect(reconnectDelay(policy, 1, undefined, () => 0.999999)).toBe(1250);
    const random = mulberry32(42);
    const ratios: number[] = [];
    const firstAttempt = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const attempt = 1 + (i % 5);
      const base = Math.min(4000, 1000 * 2 ** (attempt - 1));
      const delay = reconnectDelay(policy, attempt, undefined, random);
      ratios.push(delay / base);
      if (attempt === 1) firstAttempt.add(delay);
    }
    expect(Math.min(...ratios)).toBeGreaterThanOrEqual(0.75);
    expect(Math.max(...ratios)).toBeLessThanOrEqual(1.25);
    // The spread is real, not a constant, and uses most of its range.
    expect(firstAttempt.size).toBeGreaterThan(100);
    expect(Math.max(...ratios) - Math.min(...ratios)).toBeGreaterThan(0.45);
  });

  it("uses the server's retry: value as the base instead of the backoff", () => {
    const policy = noJitter({ initialDelayMs: 500, maxDelayMs: 10_000 });
    expect([1, 2, 6].map((attempt) => reconnectDelay(policy, attempt, 3000, middle))).toEqual([3000, 3000, 3000]);
    expect(reconnectDelay(policy, 4, 0, middle)).toBe(0);
  });

  it("caps a server retry: value at maxDelayMs, as it caps the backoff", () => {
    const policy = noJitter({ initialDelayMs: 500, maxDelayMs: 2000 });
    expect(reconnectDelay(policy, 1, 3_600_000, middle)).toBe(2000);
    expect(reconnectDelay(policy, 3, 1500, middle)).toBe(1500);
  });

  it("still jitters a server retry: value, so clients told the same value spread out", () => {
    const policy = normalizeReconnectPolicy({ jitter: 0.2 }, ACP_DEFAULTS.reconnect);
    expect(reconnectDelay(policy, 1, 1000, () => 0)).toBe(800);
    expect(reconnectDelay(policy, 1, 1000, () => 0.999999)).toBe(1200);
  });

  it("never goes below zero and always returns whole milliseconds", () => {
    const policy = normalizeReconnectPolicy({ initialDelayMs: 3, jitter: 1 }, ACP_DEFAULTS.reconnect);
    const random = mulberry32(7);
    const delays = Array.from({ length: 200 }, (_, i) => reconnectDelay(policy, 1 + (i % 4), undefined, random));
    expect(delays.filter((delay) => delay < 0 || !Number.isInteger(delay))).toEqual([]);
    expect(delays).toContain(0);
  });
});
