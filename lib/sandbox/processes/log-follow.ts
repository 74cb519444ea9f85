import { Observable } from "rxjs";
import { normalizeReconnectPolicy, reconnectDelay, type ReconnectPolicy } from "../../internal/backoff.js";
import { readSseBody } from "../../internal/sse.js";
import { SandboxAgentHttpError, SandboxAgentError, ProtocolError } from "../errors.js";
import { toLogEntry, type ProcessLogEntry } from "./log-entry.js";
import { unnameEvents } from "./named-event-adapter.js";
import { LogEntryWireSchema, type LogStreamName, type ProcessInfo } from "./schemas.js";
import * as v from "valibot";
import { PROCESS_DEFAULTS } from "../defaults.js";

/** What following needs from the process API: the stream itself, the state, and a plain read. */
export interface LogFollowDeps {
  /** The event stream from after `lastEventId` (or the caller's `since`); never cut by `tail`. */
  open(lastEventId: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array>>;
  get(signal: AbortSignal): Promise<ProcessInfo>;
  /** The retained entries after `since` (exclusive), only the last `tail` of them when given. */
  read(from: { since?: number; tail?: number }, signal: AbortSignal): Promise<ProcessLogEntry[]>;
}

export interface FollowLogsOptions {
  stream?: LogStreamName;
  /** Start after this sequence number (exclusive), e.g. the last one a previous read returned. */
  since?: number;
  /** Begin with only the last N retained entries. */
  tail?: number;
  /** How often the process state is checked, to end the stream after exit. Default 250 ms. */
  pollIntervalMs?: number;
  /** Reconnects after a dropped stream; `maxRetries` counts failures in a row without new entries. */
  reconnect?: ReconnectPolicy;
}

/** Statuses retrying cannot change: the process is unknown, the request or the token is wrong. */
const FATAL = new Set([400, 401, 403, 404, 422]);

/**
 * Follows a process's log. The server's stream stays open (heartbeats only) after the
 * process exits, so a second loop polls the state; once it reads `exited`, the retained
 * log after the last delivered entry is read with a plain GET (twice, the second time to
 * catch output flushed while the first was answered), delivered, and the stream completes.
 * Entries are delivered once each in sequence order: reconnects send `Last-Event-ID`
 * and anything at or below the last delivered sequence is dropped.
 *
 * `tail` is taken once, by a plain read before either loop starts, and everything after
 * follows from its last entry. Left to the stream it would hold only while the stream is
 * faster than the exit path: behind a buffering proxy the exit path's read came first
 * and replayed the whole log (and a tail taken at exit would drop live output instead).
 */
export function followLogs(
  processId: string,
  deps: LogFollowDeps,
  options: FollowLogsOptions,
): Observable<ProcessLogEntry> {
  return new Observable<ProcessLogEntry>((subscriber) => {
    const controller = new AbortController();
    const { signal } = controller;
    const policy = normalizeReconnectPolicy({ ...PROCESS_DEFAULTS.logsReconnect, ...options.reconnect });
    let last = options.since;
    const deliver = (entry: ProcessLogEntry) => {
      if (signal.aborted || (last !== undefined && entry.sequence <= last)) return;
      last = entry.sequence;
      subscriber.next(entry);
    };
    const fail = (error: unknown) => {
      if (signal.aborted) return;
      controller.abort();
      subscriber.error(error);
    };

    const readLoop = async () => {
      let failures = 0;
      while (!signal.aborted) {
        const before = last;
        try {
          const body = await deps.open(last === undefined ? undefined : String(last), signal);
          await readSseBody(unnameEvents(body, "log"), {
            onFrame: (frame) => {
              const parsed = v.safeParse(LogEntryWireSchema, safeJson(frame.data));
              if (!parsed.success) throw new ProtocolError(`logs of ${processId}: unreadable log event`);
              deliver(toLogEntry(parsed.output));
            },
          });
          throw new SandboxAgentError(`logs of ${processId}: the stream ended`, { kind: "log_stream" });
        } catch (error) {
          if (signal.aborted) return;
          if (error instanceof SandboxAgentHttpError && FATAL.has(error.status)) return fail(error);
          if (error instanceof ProtocolError) return fail(error);
          failures = last !== before ? 1 : failures + 1;
          if (failures > policy.maxRetries) {
            const message = `${policy.maxRetries} reconnects failed in a row`;
            return fail(new SandboxAgentError(`logs of ${processId}: ${message}`, { kind: "log_stream", cause: error }));
          }
          await sleep(reconnectDelay(policy, failures), signal);
        }
      }
    };

    // A blip is retried with the reconnect policy; an HTTP answer (404: removed) is final.
    const retryBlips = async <T>(call: () => Promise<T>): Promise<T> => {
      for (let failures = 1; ; failures++) {
        try {
          return await call();
        } catch (error) {
          if (signal.aborted || error instanceof SandboxAgentHttpError || failures > policy.maxRetries) throw error;
          await sleep(reconnectDelay(policy, failures), signal);
        }
      }
    };

    const exitWatch = async () => {
      const interval = options.pollIntervalMs ?? PROCESS_DEFAULTS.logsPollIntervalMs;
      let failures = 0;
      while (!signal.aborted) {
        try {
          if ((await deps.get(signal)).status === "exited") break;
          failures = 0;
        } catch (error) {
          // A blip in a poll is not the end of the stream; an HTTP answer (404: removed) is.
          if (signal.aborted || error instanceof SandboxAgentHttpError || ++failures > policy.maxRetries) throw error;
        }
        await sleep(interval, signal);
      }
      for (let pass = 0; pass < 2 && !signal.aborted; pass++) {
        if (pass > 0) await sleep(Math.min(interval, 100), signal);
        for (const entry of await deps.read({ since: last }, signal)) deliver(entry);
      }
      if (signal.aborted) return;
      controller.abort();
      subscriber.complete();
    };

    const start = async () => {
      const { tail } = options;
      if (tail !== undefined) {
        // At least the newest entry is read: with `tail: 0` it is still where following starts.
        const kept = await retryBlips(() => deps.read({ since: options.since, tail: Math.max(tail, 1) }, signal));
        for (const entry of kept.slice(Math.max(kept.length - tail, 0))) deliver(entry);
        const newest = kept.at(-1)?.sequence;
        if (newest !== undefined && (last === undefined || newest > last)) last = newest;
      }
      if (signal.aborted) return;
      readLoop().catch(fail);
      exitWatch().catch(fail);
    };

    start().catch(fail);
    return () => controller.abort();
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (the loops then see it and stop). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
