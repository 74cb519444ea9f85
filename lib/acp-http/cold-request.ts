import { Observable } from "rxjs";
import { linkSignal } from "../internal/abort.js";
import type { PendingOptions } from "./rpc-correlator.js";

/**
 * A request as a cold observable: `send` runs on subscribe, the result is emitted once, and
 * unsubscribing aborts the request (through a signal linked to the caller's own).
 */
export function coldRequest(
  send: (options: PendingOptions) => Promise<unknown>,
  options: PendingOptions,
): Observable<unknown> {
  return new Observable<unknown>((subscriber) => {
    const controller = new AbortController();
    const unlink = linkSignal(options.signal, controller);
    send({ ...options, signal: controller.signal }).finally(unlink).then(
      (result) => {
        subscriber.next(result);
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => controller.abort();
  });
}
