// Timing, CPU and memory probes shared by the scenarios.

export interface Sample {
  wallMs: number;
  /** User + system CPU time of this process (the server's CPU is not in it). */
  cpuMs: number;
}

const gcFn = (globalThis as { gc?: () => void }).gc;

/** A full collection, so memory figures and the next timing start from the same state. */
export function collect(): void {
  if (!gcFn) throw new Error("run with --expose-gc (npm run bench does)");
  // Twice: the first pass may only queue finalizers that free more on the second.
  gcFn();
  gcFn();
}

export interface Memory {
  heapUsed: number;
  rss: number;
}

export function memoryAfterGc(): Memory {
  collect();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, rss: usage.rss };
}

export class Stopwatch {
  readonly #wall = performance.now();
  readonly #cpu = process.cpuUsage();

  read(): Sample {
    const cpu = process.cpuUsage(this.#cpu);
    return { wallMs: performance.now() - this.#wall, cpuMs: (cpu.user + cpu.system) / 1000 };
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * Resolves once `count()` reaches `target`; rejects when it stops moving for `stallMs` (a contender
 * that silently dropped or rejected messages must fail the run, not hang it).
 */
export function whenCount(count: () => number, target: number, stallMs = 20_000): { done: Promise<void>; notify: () => void } {
  let resolveDone!: () => void;
  let rejectDone!: (error: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  let last = -1;
  const timer = setInterval(() => {
    const now = count();
    if (now === last) {
      clearInterval(timer);
      rejectDone(new Error(`stalled at ${now} of ${target}`));
    }
    last = now;
  }, stallMs);
  return {
    done: done.finally(() => clearInterval(timer)),
    notify: () => {
      if (count() >= target) resolveDone();
    },
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The value at quantile `q` (0..1) of an already sorted array, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

/** `order` rotated by `round`, so no contender always runs first (warm caches, CPU boost) or last. */
export function rotate<T>(order: readonly T[], round: number): T[] {
  const shift = round % order.length;
  return [...order.slice(shift), ...order.slice(0, shift)];
}
