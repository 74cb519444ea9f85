import type { JsonRpcId } from "./envelope.js";

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
  readonly #waiting = new Map<JsonRpcId, Waiting>();
  readonly #losses = new Map<string, number>();

  /** A request about to go out whose answer would come on `session`'s stream. */
  sent(id: JsonRpcId, method: string, session: string): void {
    this.#waiting.set(id, { method, session, losses: this.#losses.get(session) ?? 0, accepted: false });
  }

  /**
   * The request's POST was accepted without an answer in its body. True when its session's stream
   * was lost meanwhile (its answer may have been written while no stream was attached): fail it now.
   */
  accepted(id: JsonRpcId): boolean {
    const entry = this.#waiting.get(id);
    if (!entry) return false;
    if ((this.#losses.get(entry.session) ?? 0) === entry.losses) {
      entry.accepted = true;
      return false;
    }
    this.#waiting.delete(id);
    return true;
  }

  /** The request settled (or failed): nothing waits for it any more. */
  settled(id: JsonRpcId): void {
    this.#waiting.delete(id);
  }

  /**
   * `session`'s stream was lost where it cannot be replayed: returns the requests (id, method)
   * that were waiting on it alone, and forgets them. Requests whose POST is still open are left
   * to `accepted`, which fails them if the POST brings no answer.
   */
  lost(session: string): Array<[JsonRpcId, string]> {
    this.#losses.set(session, (this.#losses.get(session) ?? 0) + 1);
    const failed: Array<[JsonRpcId, string]> = [];
    for (const [id, entry] of this.#waiting) {
      if (entry.session !== session || !entry.accepted) continue;
      this.#waiting.delete(id);
      failed.push([id, entry.method]);
    }
    return failed;
  }
}
