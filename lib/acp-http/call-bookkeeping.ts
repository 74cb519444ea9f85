// What a call does to the connection's record of its sessions, around the call itself: a session the
// server refused with 409 (its calls fail until it is loaded again), the session streams a call opens
// or closes, the calls only a session's stream can answer (lost with a stream that cannot be
// replayed), and the recovery ledger of what a rebuilt connection must repeat. `Connection.#send`
// tells it each step of a call and is left with the call itself.
import type { RpcCorrelator } from "./call-correlation.js";
import { isErrorResponse, sessionOf, type AcpResponse, type JsonRpcId } from "./envelope.js";
import { AcpInterruptedError, type AcpHttpError } from "./errors.js";
import type { Outbox, SendOutcome } from "./outbox.js";
import type { SessionLedger } from "./recovery.js";
import type { SessionStreams } from "./session-streams.js";

/** The connection's parts the bookkeeping works on (each is made by `Connection` and kept there too). */
export interface CallBookkeepingParts {
  readonly correlator: Pick<RpcCorrelator, "reject">;
  readonly outbox: Pick<Outbox, "cancelRequest">;
  readonly streams: Pick<SessionStreams, "beforeSend" | "answeredOn" | "afterError" | "afterResult">;
  readonly ledger: Pick<SessionLedger, "note">;
}

/** One call in flight, as the bookkeeping sees it: made once per request. */
export interface TrackedCall {
  readonly id: number;
  readonly method: string;
  readonly params: unknown;
  /** The session whose stream alone can bring the answer (RFD profile, over a POST); undefined otherwise. */
  readonly answeredOn: string | undefined;
}

/**
 * The bookkeeping of every call on one connection. The steps, in order: `admit` (before an id is
 * taken), `sending` (registered, about to go out), `posted` (the send was accepted), `settled` (the
 * answer or the failure came), `succeeded` (a result). `sessionConflict` and `sessionStreamLost` are
 * what the outbox and the streams report about a session, failing the calls concerned.
 */
export class CallBookkeeping {
  readonly #parts: CallBookkeepingParts;
  readonly #conflicts = new SessionConflicts();
  readonly #streamWaits = new StreamWaits();

  constructor(parts: CallBookkeepingParts) {
    this.#parts = parts;
  }

  /** Throws the 409 of a session held elsewhere, unless the call attaches it anew. */
  admit(method: string, params: unknown): void {
    const conflict = this.#conflicts.blocking(method, params);
    if (conflict) throw conflict;
  }

  /** The call is registered and goes out next; `post`: it goes as a POST (not a socket frame). */
  sending(id: number, method: string, params: unknown, post: boolean): TrackedCall {
    const streams = this.#parts.streams;
    this.#conflicts.track(id, params);
    streams.beforeSend(method, params);
    // RFD: an answer that only the session's stream can bring is lost with a stream that cannot be replayed.
    const answeredOn = post ? streams.answeredOn(method, params) : undefined;
    if (answeredOn !== undefined) this.#streamWaits.sent(id, method, answeredOn);
    return { id, method, params, answeredOn };
  }

  /** The send was accepted; with no answer in its body, a stream lost meanwhile has taken the answer. */
  posted(call: TrackedCall, outcome: SendOutcome): void {
    if (call.answeredOn === undefined || outcome !== "accepted") return;
    if (this.#streamWaits.accepted(call.id)) this.#streamLost(call.id, call.method, undefined);
  }

  /** The call settled: `answer` is its response, undefined when it failed. */
  settled(call: TrackedCall, answer: AcpResponse | undefined): void {
    if (call.answeredOn !== undefined) this.#streamWaits.settled(call.id);
    const ok = answer !== undefined && !isErrorResponse(answer);
    this.#conflicts.settled(call.id, call.method, call.params, ok);
    if (!ok) this.#parts.streams.afterError(call.method, call.params);
  }

  /** The call succeeded: the ledger notes what recovery must repeat, the streams follow its sessions. */
  succeeded(call: TrackedCall, result: unknown): void {
    this.#parts.ledger.note(call.method, call.params, result);
    this.#parts.streams.afterResult(call.method, call.params, result);
  }

  /** The session's stream or POST got 409: its calls in flight fail, and later ones until it is loaded. */
  sessionConflict(sessionId: string, error: AcpHttpError): void {
    this.#conflicts.fail(sessionId, error, (id, cause) => this.#parts.correlator.reject(id, cause));
  }

  /** The session's stream was lost unreplayable: the calls waiting on it alone for their answers fail. */
  sessionStreamLost(sessionId: string, cause: Error): void {
    for (const [id, method] of this.#streamWaits.lost(sessionId)) this.#streamLost(id, method, cause);
  }

  /**
   * A call accepted without an answer whose session stream was lost unreplayable: it fails, and the
   * agent is told it was given up (`$/cancel_request`, with `cancelRequests`), as for an abort.
   */
  #streamLost(id: JsonRpcId, method: string, cause: unknown): void {
    const failed = this.#parts.correlator.reject(id, new AcpInterruptedError(method, cause, "stream-lost"));
    if (failed) this.#parts.outbox.cancelRequest(id);
  }
}

interface Waiting {
  readonly method: string;
  /** The session whose stream carries the answer. */
  readonly session: string;
  /** That stream's losses when the request went out: a later loss may have taken its answer. */
  readonly losses: number;
  /** The POST was accepted without an answer in its body: only the stream can still bring it. */
  accepted: boolean;
}

/**
 * Which requests in flight only a session's event stream can answer (RFD profile: the POST gets
 * 202, the answer comes on the session's stream), so that when that stream ends on a server that
 * cannot replay it, exactly those requests fail instead of waiting forever. A request answered
 * in its POST body never waits here. Entries live from send to settle; the loss counts are one
 * number per session whose stream was ever lost.
 */
export class StreamWaits {
  // Made on first use: only the RFD profile's requests ever wait here (as ResponseHolds.#held in response-order.ts).
  #waiting: Map<JsonRpcId, Waiting> | undefined;
  #losses: Map<string, number> | undefined;

  /** A request about to go out whose answer would come on `session`'s stream. */
  sent(id: JsonRpcId, method: string, session: string): void {
    const losses = this.#losses?.get(session) ?? 0;
    (this.#waiting ??= new Map()).set(id, { method, session, losses, accepted: false });
  }

  /**
   * The request's POST was accepted without an answer in its body. True when its session's stream
   * was lost meanwhile (its answer may have been written while no stream was attached): fail it now.
   */
  accepted(id: JsonRpcId): boolean {
    const entry = this.#waiting?.get(id);
    if (!entry) return false;
    if ((this.#losses?.get(entry.session) ?? 0) === entry.losses) {
      entry.accepted = true;
      return false;
    }
    this.#waiting?.delete(id);
    return true;
  }

  /** The request settled (or failed): nothing waits for it any more. */
  settled(id: JsonRpcId): void {
    this.#waiting?.delete(id);
  }

  /**
   * `session`'s stream was lost where it cannot be replayed: returns the requests (id, method)
   * that were waiting on it alone, and forgets them. Requests whose POST is still open are left
   * to `accepted`, which fails them if the POST brings no answer.
   */
  lost(session: string): Array<[JsonRpcId, string]> {
    const losses = (this.#losses ??= new Map());
    losses.set(session, (losses.get(session) ?? 0) + 1);
    const failed: Array<[JsonRpcId, string]> = [];
    const waiting = this.#waiting;
    if (waiting === undefined) return failed;
    for (const [id, entry] of waiting) {
      if (entry.session !== session || !entry.accepted) continue;
      waiting.delete(id);
      failed.push([id, entry.method]);
    }
    return failed;
  }
}

/** Requests that attach a session anew: they are how a conflicted session comes back. */
const REATTACH = new Set(["session/load", "session/resume"]);

/**
 * Sessions the server refused with 409 (the RFD's "stream held elsewhere"): only that session
 * fails, the connection lives on. Its in-flight requests are failed with the 409, new ones
 * fail at once, until a `session/load` or `session/resume` of it succeeds.
 */
export class SessionConflicts {
  // Both made on first use: a connection without sessions, or one never refused, needs neither.
  #failed: Map<string, AcpHttpError> | undefined;
  /** Request id → the session its params name, while it is in flight. */
  #inFlight: Map<number, string> | undefined;

  /** The 409 that blocks this request, if its session is conflicted and it does not reattach it. */
  blocking(method: string, params: unknown): AcpHttpError | undefined {
    const sessionId = sessionOf(params);
    return sessionId === undefined || REATTACH.has(method) ? undefined : this.#failed?.get(sessionId);
  }

  track(id: number, params: unknown): void {
    const sessionId = sessionOf(params);
    if (sessionId !== undefined) (this.#inFlight ??= new Map()).set(id, sessionId);
  }

  /** The request settled; a successful reattach clears its session. */
  settled(id: number, method: string, params: unknown, ok: boolean): void {
    this.#inFlight?.delete(id);
    const sessionId = sessionOf(params);
    if (ok && sessionId !== undefined && REATTACH.has(method)) this.#failed?.delete(sessionId);
  }

  /** Marks the session conflicted and fails its in-flight requests through `reject`. */
  fail(sessionId: string, error: AcpHttpError, reject: (id: number, error: AcpHttpError) => void): void {
    (this.#failed ??= new Map()).set(sessionId, error);
    for (const [id, session] of [...(this.#inFlight ?? [])]) {
      if (session !== sessionId) continue;
      this.#inFlight?.delete(id);
      reject(id, error);
    }
  }
}
