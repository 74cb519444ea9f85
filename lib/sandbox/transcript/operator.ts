// The transcript as an RxJS operator (`toTranscript()`: one session's events → snapshots) and for a
// finished list of events (`transcriptOf`). Both are a `TranscriptBuilder` fed one event at a time;
// `session(id).transcript$` is the operator over the stored history, the live events and the notes.
import { Observable, type OperatorFunction } from "rxjs";
import { TranscriptBuilder } from "./builder.js";
import type { Transcript, TranscriptOptions, TranscriptSource } from "./model.js";

/**
 * One session's events (live `SandboxEvent`s, the client's `TranscriptNote`s, or stored
 * `HistoryEvent`s, in any mix; filter the client's `events$` with `forSession`, or use a view's) →
 * transcript snapshots. Emits the empty transcript first, then a snapshot for each event that
 * changed it; consecutive snapshots share every entry that did not change.
 */
export function toTranscript(options: TranscriptOptions = {}): OperatorFunction<TranscriptSource, Transcript> {
  return (source) =>
    new Observable<Transcript>((subscriber) => {
      const builder = new TranscriptBuilder(options);
      subscriber.next(builder.snapshot);
      return source.subscribe({
        next: (event) => {
          const before = builder.snapshot;
          const after = builder.push(event);
          if (after !== before) subscriber.next(after);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

/** The transcript of a finished list of events (tests, server-side rendering). */
export function transcriptOf(events: Iterable<TranscriptSource>, options: TranscriptOptions = {}): Transcript {
  const builder = new TranscriptBuilder(options);
  for (const event of events) builder.push(event);
  return builder.snapshot;
}
