import { BehaviorSubject, distinctUntilChanged, type Observable } from "rxjs";

/**
 * `idle`: nothing sent yet. `connecting`: the first exchange or the first stream open
 * is under way. `open`: the event stream is live. `reconnecting`: it dropped and is
 * coming back. `closed`: final; a new client is needed.
 */
export type AcpConnectionState = "idle" | "connecting" | "open" | "reconnecting" | "closed";

/** The connection's state as a replay-one stream; `closed` is terminal and completes it. */
export class ConnectionStateMachine {
  readonly #state = new BehaviorSubject<AcpConnectionState>("idle");
  readonly state$: Observable<AcpConnectionState> = this.#state.pipe(distinctUntilChanged());

  get value(): AcpConnectionState {
    return this.#state.value;
  }

  set(next: AcpConnectionState): void {
    if (this.#state.value === "closed") return;
    this.#state.next(next);
    if (next === "closed") this.#state.complete();
  }
}
