import { Observable } from "rxjs";
import { normalizeReconnectPolicy, reconnectDelay, type ReconnectPolicy } from "../../../internal/backoff.js";
import { sleep } from "../../../internal/abort.js";
import { readSseBody } from "../../../internal/sse.js";
import { SandboxAgentHttpError, SandboxAgentError } from "../../errors.js";
import { toLogEntry, type ProcessLogEntry } from "./log-entry.js";
import { LogEntryWireSchema, type LogStreamName, type ProcessInfo } from "./schemas.js";
import * as v from "valibot";
import { PROCESS_DEFAULTS } from "../../defaults.js";

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

/*
 * Why completion waits a bounded time rather than for a fact. In the server (0.4.2, read in
 * its process runtime and checked by experiment), the task that reaps the child marks the
 * process `exited` (and stamps `exitedAtMs`) on its own, while one task per pipe reads the
 * output and stores it; nothing waits for those readers to reach EOF, and the log has no end
 * marker, byte count or other trace of their end. Entries stamped after `exitedAtMs` were seen,
 * and under load a reader can be later still. So after `exited`, reads go on until one brings
 * nothing new at least EXIT_GRACE_MS after both the exit was seen and the newest entry was
 * read (local time since an answer is a lower bound of the server's time since it stamped what
 * the answer holds), and stop after EXIT_CAP_MS whatever happens (a background child that
 * inherited the pipes can keep writing after its parent exited).
 */
const EXIT_GRACE_MS = 250;
const EXIT_CAP_MS = 5_000;
/*
 * Each of the server's pipe readers takes its sequence number (and timestamp) before it stores
 * the entry, so the combined log can hold an entry after later-numbered ones of the other
 * stream: seen 1 in 100 quick processes under load, once 21 places late. One stream alone
 * (stdout, stderr, pty) has one reader, so it is stored in order. In the combined log the
 * numbers have no holes (a pipe process logs only stdout and stderr), so a hole below the
 * newest delivered number is an entry not delivered yet: it is delivered when it comes (out of
 * sequence order, as the server stored it), and reconnects and the reads after exit start at
 * the lowest hole. A hole still open after EXIT_CAP_MS is given up (its entry was dropped, or
 * the stream skipped it and the server no longer keeps it), so that it costs nothing more.
 */

/**
 * Follows a process's log. The server's stream stays open (heartbeats only) after the
 * process exits, so a second loop polls the state; once it reads `exited`, the retained
 * log is read with plain GETs until it is settled (see `settleAfterExit`), delivered, and
 * the stream completes. Entries are delivered once each, in sequence order except for
 * the rare entry the server stores after a later-numbered one (see `interleaved`);
 * reconnects send `Last-Event-ID`.
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
    const policy = normalizeReconnectPolicy(options.reconnect, PROCESS_DEFAULTS.logsReconnect);
    // The combined log can be stored out of sequence order (see the comment above `followLogs`).
    const interleaved = options.stream === undefined || options.stream === "combined";
    // `floor`: every entry numbered up to it was delivered or lies before the start; `above`:
    // what was delivered above it (only while a hole is open); `last`: the newest delivered.
    // Numbers start at 1. A hole at the start that never fills (the server keeps only the newest
    // 10 MiB) is given up like any other.
    let floor = options.since ?? 0;
    let last = options.since;
    const above = new Set<number>();
    let holeOpenedAt = 0;
    const deliver = (entry: ProcessLogEntry): boolean => {
      const { sequence } = entry;
      if (signal.aborted || sequence <= floor || above.has(sequence)) return false;
      if (interleaved) {
        above.add(sequence);
        while (above.delete(floor + 1)) floor++;
        const now = Date.now();
        if (above.size > 0 && holeOpenedAt > 0 && now - holeOpenedAt > EXIT_CAP_MS) {
          let lowest = sequence;
          for (const seen of above) lowest = Math.min(lowest, seen);
          floor = lowest - 1;
          while (above.delete(floor + 1)) floor++;
          holeOpenedAt = 0;
        }
        if (above.size === 0) holeOpenedAt = 0;
        else if (holeOpenedAt === 0) holeOpenedAt = now;
      } else floor = sequence;
      if (last === undefined || sequence > last) last = sequence;
      subscriber.next(entry);
      return true;
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
          const body = await deps.open(floor === 0 ? undefined : String(floor), signal);
          await readSseBody(unnameEvents(body, "log"), {
            onFrame: (frame) => {
              const parsed = v.safeParse(LogEntryWireSchema, safeJson(frame.data));
              if (!parsed.success) {
                throw new SandboxAgentError(`logs of ${processId}: unreadable log event`, { kind: "protocol" });
              }
              deliver(toLogEntry(parsed.output));
            },
          });
          throw new SandboxAgentError(`logs of ${processId}: the stream ended`, { kind: "log-stream" });
        } catch (error) {
          if (signal.aborted) return;
          if (error instanceof SandboxAgentHttpError && FATAL.has(error.status)) return fail(error);
          if (error instanceof SandboxAgentError && error.kind === "protocol") return fail(error);
          failures = last !== before ? 1 : failures + 1;
          if (failures > policy.maxRetries) {
            const message = `${policy.maxRetries} reconnects failed in a row`;
            const why = { kind: "log-stream" as const, cause: error };
            return fail(new SandboxAgentError(`logs of ${processId}: ${message}`, why));
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
      await settleAfterExit(Math.min(interval, 50));
      if (signal.aborted) return;
      controller.abort();
      subscriber.complete();
    };

    // Reads the log after exit until it is settled (see EXIT_GRACE_MS for why this is bounded).
    const settleAfterExit = async (pauseMs: number) => {
      const exitSeen = Date.now();
      let newestRead = exitSeen;
      while (!signal.aborted) {
        const since = floor === 0 ? undefined : floor;
        let fresh = false;
        for (const entry of await retryBlips(() => deps.read({ since }, signal))) if (deliver(entry)) fresh = true;
        const now = Date.now();
        if (fresh) newestRead = now;
        else if (now - newestRead >= EXIT_GRACE_MS) return;
        if (now - exitSeen >= EXIT_CAP_MS) return;
        await sleep(pauseMs, signal);
      }
    };

    const start = async () => {
      const { tail } = options;
      if (tail !== undefined) {
        // At least the newest entry is read: with `tail: 0` it is still where following starts.
        const kept = await retryBlips(() => deps.read({ since: options.since, tail: Math.max(tail, 1) }, signal));
        for (const entry of kept.slice(Math.max(kept.length - tail, 0))) deliver(entry);
        const newest = kept.at(-1)?.sequence;
        if (newest !== undefined && (last === undefined || newest > last)) last = newest;
        // Following starts after the newest entry (what the tail left out stays out).
        if (last !== undefined) floor = last;
        above.clear();
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
/**
 * The protocol layer's SSE reader (`readSseBody`) dispatches only unnamed events, but the
 * log stream names every event `log`. This removes that one `event:` line from the bytes
 * before they reach the reader, turning each `log` event into an unnamed one; every other
 * line (ids, data, comments, other event names) passes unchanged, so the framing stays the
 * reader's job. Lines are held back only until their end arrives.
 */
export function unnameEvents(body: ReadableStream<Uint8Array>, eventName: string): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const drop = new RegExp(`^event: ?${eventName.replace(/[^\w-]/g, "\\$&")}\\r?$`);
  let pending = "";
  const filter = (text: string): string => {
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    const kept = lines.filter((line) => !drop.test(line));
    return kept.length > 0 ? `${kept.join("\n")}\n` : "";
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const out = filter(decoder.decode(chunk, { stream: true }));
        if (out) controller.enqueue(encoder.encode(out));
      },
      flush(controller) {
        const out = filter(decoder.decode()) + pending;
        if (out) controller.enqueue(encoder.encode(out));
      },
    }),
  );
}
