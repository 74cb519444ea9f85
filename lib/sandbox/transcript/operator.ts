// The transcript as an RxJS operator (`toTranscript()`: one session's events → snapshots) and for a
// finished list of events (`transcriptOf`). Both are a `TranscriptBuilder` fed one event at a time;
// `session(id).transcript$` is `mergeToTranscript` over the stored history, the live events and the notes.
import { Observable, Subscription, type Observer, type OperatorFunction, type Subscriber } from "rxjs";
import { TranscriptBuilder } from "./builder.js";
import type { Transcript, TranscriptOptions, TranscriptSource } from "./model.js";

/**
 * One session's events (live `SandboxEvent`s, the client's `TranscriptNote`s, or stored
 * `HistoryEvent`s, in any mix; filter the client's `events$` with `forSession`, or use a view's) →
 * transcript snapshots. Emits the empty transcript first, then a snapshot for each event that
 * changed it; consecutive snapshots share every entry that did not change.
 */
export function toTranscript(options: TranscriptOptions = {}): OperatorFunction<TranscriptSource, Transcript> {
  return (source) => mergeToTranscript([source], options);
}

/**
 * A source that hands its events to the builder's observer itself (returning its teardown), with no
 * subscriber of rxjs's between them; the observer is the builder's own and does not throw. It calls
 * nothing on the observer after its teardown.
 */
export type DirectSource = (observer: Observer<TranscriptSource>) => () => void;

/**
 * `merge(...sources).pipe(toTranscript(options))` in one step: each source's events go straight to
 * one builder, in the order they come; it completes when every source has, and errors with the first
 * error. A session view's `transcript$` merges three sources (stored history, live events, notes):
 * rxjs's `merge` would put two more subscribers between each event and the builder, and with a
 * transcript per session (1,000 on one client, bench scenario 13) every one of them is memory the
 * update has to reach again. For the same reason a source may be a `DirectSource`, and the builder's
 * observer is one object (not an object, its closures and their context).
 */
export function mergeToTranscript(
  sources: readonly (Observable<TranscriptSource> | DirectSource)[],
  options: TranscriptOptions = {},
): Observable<Transcript> {
  return new Observable<Transcript>((subscriber) => {
    const builder = new TranscriptBuilder(options);
    subscriber.next(builder.snapshot);
    if (sources.length === 0) return subscriber.complete();
    const observer = new BuilderObserver(builder, subscriber, { open: sources.length });
    const subscriptions = new Subscription();
    for (const source of sources) {
      if (subscriber.closed) break;
      subscriptions.add(typeof source === "function" ? source(observer) : source.subscribe(observer));
    }
    return subscriptions;
  });
}

/**
 * The sources' events into one builder, each snapshot that changed to the subscriber. Fields rather
 * than `#private` ones, and the count in an object of its own: under rxjs's deprecated
 * `useDeprecatedNextContext` each subscription calls these methods on an object made from this one
 * (`Object.create`), which reads its fields but would keep its own copy of a count it writes.
 */
class BuilderObserver implements Observer<TranscriptSource> {
  constructor(
    private readonly builder: TranscriptBuilder,
    private readonly subscriber: Subscriber<Transcript>,
    /** Sources not yet complete. */
    private readonly sources: { open: number },
  ) {}

  next(event: TranscriptSource): void {
    const builder = this.builder;
    const before = builder.snapshot;
    const after = builder.push(event);
    if (after !== before) this.subscriber.next(after);
  }

  error(error: unknown): void {
    this.subscriber.error(error);
  }

  complete(): void {
    if (--this.sources.open === 0) this.subscriber.complete();
  }
}

/** The transcript of a finished list of events (tests, server-side rendering). */
export function transcriptOf(events: Iterable<TranscriptSource>, options: TranscriptOptions = {}): Transcript {
  const builder = new TranscriptBuilder(options);
  for (const event of events) builder.push(event);
  return builder.snapshot;
}
