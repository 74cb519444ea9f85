// A call's `{ signal, timeoutMs }` made one AbortSignal once, where the call enters the sandbox
// layer (the public method, or the lifecycle's `with`/`connect`). Below that point only the signal
// travels: one normalisation of `timeoutMs`, one timer per call. The deadline aborts the signal
// with a `CallTimeoutError` as its reason, so any part below can tell a timeout from an abort.
import { deadlineSignal } from "../internal/abort.js";
import type { CallOptions, CallSignal } from "./call-options.js";
import { CallAbortedError, CallTimeoutError, type SandboxAgentError } from "./errors.js";

/** The one deadline of the call `operation`: made at its boundary, disposed when the call is over. */
export class Bound {
  readonly signal: AbortSignal | undefined;
  readonly #dispose: () => void;

  /** A bad `timeoutMs` (negative, NaN) throws a TypeError here, before anything is sent. */
  constructor(
    readonly operation: string,
    call: CallOptions | undefined,
  ) {
    const deadline = deadlineSignal(call ?? {}, (ms) => new CallTimeoutError(`${operation} timed out after ${ms} ms`));
    this.signal = deadline.signal;
    this.#dispose = deadline.dispose;
  }

  /** What the parts below the boundary get: the signal alone (the deadline is in it). */
  get call(): CallSignal {
    return this.signal ? { signal: this.signal } : {};
  }

  /** The error for this bound having fired, as seen by `what` (the call itself by default). */
  error(reason: unknown, what = this.operation): SandboxAgentError {
    return stoppedBy(reason, what);
  }

  dispose(): void {
    this.#dispose();
  }
}

/** The error of a call whose signal aborted: the deadline's `CallTimeoutError`, else `CallAbortedError`. */
export function stoppedBy(reason: unknown, operation: string): SandboxAgentError {
  if (reason instanceof CallTimeoutError) return reason;
  return new CallAbortedError(`${operation} was aborted`, { cause: reason });
}
