/**
 * `deadlineSignal`: a call's `{ signal, timeoutMs }` as one AbortSignal, so a timeout is given up
 * exactly as an abort is, with a reason that tells the two apart.
 */
import { jest } from "@jest/globals";
import { deadlineSignal } from "../../../lib/internal/abort.js";

class Deadline {
  constructor(readonly ms: number) {}
}
const reason = (ms: number): Deadline => new Deadline(ms);

afterEach(() => jest.useRealTimers());

describe("deadlineSignal", () => {
  it("aborts with the deadline's reason once timeoutMs has passed", () => {
    jest.useFakeTimers();
    const { signal, dispose } = deadlineSignal({ timeoutMs: 250 }, reason);
    expect(signal?.aborted).toBe(false);
    jest.advanceTimersByTime(249);
    expect(signal?.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toEqual(new Deadline(250));
    dispose();
  });

  it("aborts with the caller's reason when the caller's signal aborts first", () => {
    jest.useFakeTimers();
    const caller = new AbortController();
    const { signal, dispose } = deadlineSignal({ signal: caller.signal, timeoutMs: 1000 }, reason);
    caller.abort("stop");
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe("stop");
    jest.advanceTimersByTime(2000);
    expect(signal?.reason).toBe("stop");
    dispose();
  });

  it("is the caller's own signal when there is no deadline (none, or one too long for a timer)", () => {
    const caller = new AbortController();
    expect(deadlineSignal({ signal: caller.signal }, reason).signal).toBe(caller.signal);
    expect(deadlineSignal({ signal: caller.signal, timeoutMs: Infinity }, reason).signal).toBe(caller.signal);
    expect(deadlineSignal({}, reason).signal).toBeUndefined();
  });

  it("fires nothing and leaves no listener once disposed", () => {
    jest.useFakeTimers();
    const caller = new AbortController();
    const added = jest.spyOn(caller.signal, "addEventListener");
    const removed = jest.spyOn(caller.signal, "removeEventListener");
    const { signal, dispose } = deadlineSignal({ signal: caller.signal, timeoutMs: 100 }, reason);
    dispose();
    jest.advanceTimersByTime(1000);
    caller.abort();
    expect(signal?.aborted).toBe(false);
    expect(removed).toHaveBeenCalledTimes(added.mock.calls.length);
  });

  it("refuses a negative or NaN timeoutMs with a TypeError", () => {
    expect(() => deadlineSignal({ timeoutMs: -1 }, reason)).toThrow(TypeError);
    expect(() => deadlineSignal({ timeoutMs: Number.NaN }, reason)).toThrow(TypeError);
  });
});
