import { Observable } from "rxjs";
import { SandboxAgentHttpError } from "../../errors.js";
import { sleep } from "../../../internal/abort.js";
import type { ProcessInfo } from "./schemas.js";
import { PROCESS_DEFAULTS } from "../../defaults.js";

export interface WatchStatusOptions {
  /** How often the state is read (the server pushes no state changes). Default 500 ms. */
  pollIntervalMs?: number;
  /** Failed reads in a row (network errors only) before giving up. Default 5. */
  maxFailures?: number;
}

/**
 * A process's state as it changes: the current `ProcessInfo` first, then one value each
 * time its status changes; completes after the `exited` value. Polls, because the server
 * has no push channel for process state. An HTTP error (404: removed) ends it with that error.
 */
export function watchStatus(
  get: (signal: AbortSignal) => Promise<ProcessInfo>,
  options: WatchStatusOptions,
): Observable<ProcessInfo> {
  return new Observable<ProcessInfo>((subscriber) => {
    const controller = new AbortController();
    const { signal } = controller;
    const interval = options.pollIntervalMs ?? PROCESS_DEFAULTS.statusPollIntervalMs;
    const maxFailures = options.maxFailures ?? PROCESS_DEFAULTS.statusMaxFailures;
    (async () => {
      let previous: string | undefined;
      let failures = 0;
      while (!signal.aborted) {
        let info: ProcessInfo;
        try {
          info = await get(signal);
          failures = 0;
        } catch (error) {
          if (signal.aborted || error instanceof SandboxAgentHttpError || ++failures > maxFailures) throw error;
          await sleep(interval, signal);
          continue;
        }
        if (info.status !== previous) {
          previous = info.status;
          subscriber.next(info);
        }
        if (info.status === "exited") return subscriber.complete();
        await sleep(interval, signal);
      }
    })().catch((error: unknown) => {
      if (!signal.aborted) subscriber.error(error);
    });
    return () => controller.abort();
  });
}
