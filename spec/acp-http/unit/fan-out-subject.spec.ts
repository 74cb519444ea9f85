/**
 * envelopes$ is a FanOutSubject: rxjs's Subject with a cheaper delivery loop. Every case here runs
 * against rxjs's own Subject as well, with the same expected outcome, so the two cannot drift apart.
 */
import { ObjectUnsubscribedError, Subject, config, type Subscription } from "rxjs";
import { FanOutSubject } from "../../../lib/internal/fan-out-subject.js";

const kinds: Array<[string, () => Subject<number>]> = [
  ["rxjs Subject", () => new Subject<number>()],
  ["FanOutSubject", () => new FanOutSubject<number>()],
];

describe.each(kinds)("%s", (_name, make) => {
  it("delivers each value to every subscriber, in subscription order", () => {
    const subject = make();
    const seen: string[] = [];
    for (const who of ["a", "b", "c"]) subject.subscribe((value) => seen.push(`${who}${value}`));
    subject.next(1);
    subject.next(2);
    expect(seen).toEqual(["a1", "b1", "c1", "a2", "b2", "c2"]);
  });

  it("gives a subscriber added during delivery the next value, and one removed during delivery nothing more", () => {
    const subject = make();
    const seen: string[] = [];
    let late: Subscription | undefined;
    let second: Subscription | undefined = undefined;
    subject.subscribe((value) => {
      seen.push(`first${value}`);
      if (value === 1) {
        late = subject.subscribe((v) => seen.push(`late${v}`));
        second?.unsubscribe();
      }
    });
    second = subject.subscribe((value) => seen.push(`second${value}`));
    subject.next(1);
    subject.next(2);
    late?.unsubscribe();
    // rxjs's Subscriber checks `isStopped` itself: the removed one is skipped even within the snapshot.
    expect(seen).toEqual(["first1", "first2", "late2"]);
  });

  it("ignores values after complete, and throws ObjectUnsubscribedError once unsubscribed", () => {
    const subject = make();
    const seen: number[] = [];
    subject.subscribe((value) => seen.push(value));
    subject.complete();
    subject.next(1);
    expect(seen).toEqual([]);
    const closed = make();
    closed.unsubscribe();
    expect(() => closed.next(1)).toThrow(ObjectUnsubscribedError);
  });

  it("keeps delivering to the others when one subscriber throws (the error is reported asynchronously)", async () => {
    const subject = make();
    const seen: number[] = [];
    const reported: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    try {
      subject.subscribe(() => {
        throw new Error("consumer bug");
      });
      subject.subscribe((value) => seen.push(value));
      subject.next(7);
      expect(seen).toEqual([7]);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(reported).toHaveLength(1);
      expect((reported[0] as Error).message).toBe("consumer bug");
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it("rethrows a subscriber's error synchronously under rxjs's deprecated synchronous error handling", () => {
    const subject = make();
    config.useDeprecatedSynchronousErrorHandling = true;
    try {
      subject.subscribe(() => {
        throw new Error("consumer bug");
      });
      expect(() => subject.next(1)).toThrow("consumer bug");
    } finally {
      config.useDeprecatedSynchronousErrorHandling = false;
    }
  });
});
