// The transcript as an RxJS operator (`toTranscript()`: one session's events → snapshots) and for a
// finished list of events (`transcriptOf`). Both are a `TranscriptBuilder` fed one event at a time;
// `session(id).transcript$` is `mergeToTranscript` over the stored history, the live events and the notes.
import { Observable, Subscription, type Observer, type OperatorFunction } from "rxjs";
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
 * `merge(...sources).pipe(toTranscript(options))` in one step: each source's events go straight to
 * one builder, in the order they come; it completes when every source has, and errors with the first
 * error. A session view's `transcript$` merges three sources (stored history, live events, notes):
 * rxjs's `merge` would put two more subscribers between each event and the builder, and with a
 * transcript per session (1,000 on one client, bench scenario 13) every one of them is memory the
 * update has to reach again.
 */
export function mergeToTranscript(
  sources: readonly Observable<TranscriptSource>[],
  options: TranscriptOptions = {},
): Observable<Transcript> {
  return new Observable<Transcript>((subscriber) => {
    const builder = new TranscriptBuilder(options);
    subscriber.next(builder.snapshot);
    let open = sources.length;
    if (open === 0) return subscriber.complete();
    const observer: Observer<TranscriptSource> = {
      next: (event) => {
        const before = builder.snapshot;
        const after = builder.push(event);
        if (after !== before) subscriber.next(after);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        if (--open === 0) subscriber.complete();
      },
    };
    const subscriptions = new Subscription();
    for (const source of sources) {
      if (subscriber.closed) break;
      subscriptions.add(source.subscribe(observer));
    }
    return subscriptions;
  });
}

/** The transcript of a finished list of events (tests, server-side rendering). */
export function transcriptOf(events: Iterable<TranscriptSource>, options: TranscriptOptions = {}): Transcript {
  const builder = new TranscriptBuilder(options);
  for (const event of events) builder.push(event);
  return builder.snapshot;
}
