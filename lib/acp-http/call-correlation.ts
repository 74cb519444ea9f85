// Call correlation: the calls in flight by id. A call is registered before it is sent and settles
// exactly once (RpcCorrelator): from the first copy of its answer, by its caller's abort or
// deadline, or when the connection closes.
import type { AcpResponse, JsonRpcId } from "./envelope.js";
import { AcpAbortError, AcpTimeoutError } from "./errors.js";
import { deadlineSignal } from "../internal/abort.js";

export interface PendingOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

const noop = (): void => undefined;

/** One request waiting for its answer; a class, not closures: this is made once per request. */
class Pending {
  resolve: (response: AcpResponse) => void = noop;
  reject: (error: unknown) => void = noop;
  /** Until the POST's answer has been read (or it failed): only an open POST needs letting go. */
  postOpen: boolean;
  /** When an answered request's POST still open is let go (Date.now()); see RpcCorrelator.#releasing. */
  releaseAt = 0;
  onAbort: (() => void) | undefined = undefined;
  /** Drops the deadline's timer and its link to the caller's signal (set only with a deadline). */
  cancelDeadline: (() => void) | undefined = undefined;

  constructor(
    readonly method: string,
    /** Aborts this request's POST: on settle from another copy, on abort, on close. None without a POST. */
    readonly post: AbortController | undefined,
    readonly signal: AbortSignal | undefined,
  ) {
    this.postOpen = post !== undefined;
  }

  /** Drops the deadline and the abort listener. */
  dispose(): void {
    this.cancelDeadline?.();
    if (this.onAbort) this.signal?.removeEventListener("abort", this.onAbort);
  }
}

/** A signal aborted by a deadline (here, or a caller's own, as the sandbox layer's) fails as a timeout. */
function abortError(method: string, reason: unknown): Error {
  return reason instanceof AcpTimeoutError ? reason : new AcpAbortError(method, reason);
}

/**
 * A first request id in [2^20, 2^50): far from the ids another client on the same connection started
 * at 1, and from another client's random base (the first million ids of two such clients overlap with
 * odds of about 2^-29), while every id stays a safe integer.
 */
export function randomIdBase(): number {
  return 2 ** 20 + Math.floor(Math.random() * (2 ** 50 - 2 ** 20));
}

/** Told of a request its caller gave up after it was sent (`Connection` implements it). */
export interface CorrelatorOwner {
  abandoned(id: JsonRpcId): void;
}

/**
 * The table of requests waiting for their answer. A request settles exactly once:
 * from the first copy of its response (POST body or stream), by its caller's abort
 * or deadline, or when the connection closes. Nothing here ever waits on a clock
 * unless the caller asked for a deadline.
 */
export class RpcCorrelator {
  /**
   * By the id itself: a Map keeps `"8"` and `8` apart as the wire does, so no string key is built
   * (twice per request) as `idKey` would.
   */
  readonly #pending = new Map<JsonRpcId, Pending>();
  /**
   * Answered requests whose POST is still open, waiting to be let go, in the order they are due
   * (each is due `#postReleaseMs` after its answer). One timer serves them all, armed for the
   * oldest: on a server that echoes answers to the stream most answers come that way while
   * their POST is still being read, and a timer armed and cleared per request cost about 1 µs.
   * Made on first use (as ResponseHolds.#held, response-order.ts).
   */
  #releasing: Set<Pending> | undefined;
  #releaseTimer: ReturnType<typeof setTimeout> | undefined;
  #nextId: number;
  /** How long a POST may stay open after its response arrived on the stream. */
  readonly #postReleaseMs: number;
  readonly #owner: CorrelatorOwner | undefined;

  /**
   * `owner.abandoned`: a request that was sent is given up by its caller (its signal aborted or its
   * deadline passed) and the agent may still be working on it (the outbox tells it so).
   * `randomIds`: number from `randomIdBase()` instead of 1 (an earlier client used the connection).
   */
  constructor(postReleaseMs: number, owner?: CorrelatorOwner, randomIds = false) {
    this.#nextId = randomIds ? randomIdBase() : 1;
    this.#postReleaseMs = postReleaseMs;
    this.#owner = owner;
  }

  /** Requests waiting for their answer. */
  get size(): number {
    return this.#pending.size;
  }

  nextId(): number {
    return this.#nextId++;
  }

  /** The request `id` is registered and not settled yet. */
  has(id: JsonRpcId): boolean {
    return this.#pending.has(id);
  }

  /**
   * Registers a request before it is sent; the promise settles once, whatever happens.
   * Call `postFinished` once the POST is over (answer read, or failed). `withPost: false` (a
   * WebSocket: no POST to abort) makes no AbortController, which costs more than the rest of
   * the registration together on Node 20.
   */
  register(
    id: JsonRpcId,
    method: string,
    options: PendingOptions = {},
    withPost = true,
  ): { response: Promise<AcpResponse>; postSignal: AbortSignal | undefined; postFinished: () => void } {
    // One signal for the caller's abort and the deadline: a timeout is given up exactly as an abort
    // is (`onAbandon`). Built before anything is registered or sent: a bad deadline is the caller's bug.
    const deadline =
      options.timeoutMs === undefined ? undefined : deadlineSignal(options, (ms) => new AcpTimeoutError(method, ms));
    const post = withPost ? new AbortController() : undefined;
    const signal = deadline ? deadline.signal : options.signal;
    const entry = new Pending(method, post, signal);
    if (deadline) entry.cancelDeadline = deadline.dispose;
    const response = new Promise<AcpResponse>((resolve, reject) => {
      entry.resolve = resolve;
      entry.reject = reject;
    });
    this.#pending.set(id, entry);
    if (signal) {
      // Aborted before it was sent: there is nothing for the agent to stop.
      if (signal.aborted) this.reject(id, abortError(method, signal.reason), { abortPost: true });
      else {
        entry.onAbort = () => this.#abandon(id, abortError(method, signal.reason));
        signal.addEventListener("abort", entry.onAbort, { once: true });
      }
    }
    // Aborting a POST that is already over does nothing but costs an event dispatch (and a
    // timer per request on servers that echo responses to the stream): skip it.
    if (!post) return { response, postSignal: undefined, postFinished: noop };
    const postFinished = (): void => {
      entry.postOpen = false;
      this.#releasing?.delete(entry);
    };
    return { response, postSignal: post.signal, postFinished };
  }

  /**
   * Settles the request a response belongs to. `fromStream` responses may leave their
   * POST still open (some servers never answer it); that POST is released after a
   * short grace so a healthy keep-alive socket is not thrown away.
   */
  settle(response: AcpResponse, fromStream: boolean): boolean {
    const entry = this.#pending.get(response.id);
    if (!entry) return false;
    this.#pending.delete(response.id);
    entry.dispose();
    if (fromStream && entry.postOpen) {
      entry.releaseAt = Date.now() + this.#postReleaseMs;
      (this.#releasing ??= new Set()).add(entry);
      if (this.#releaseTimer === undefined) this.#armRelease(this.#postReleaseMs);
    }
    entry.resolve(response);
    return true;
  }

  reject(id: JsonRpcId, error: unknown, options: { abortPost?: boolean } = {}): boolean {
    const entry = this.#pending.get(id);
    if (!entry) return false;
    this.#pending.delete(id);
    entry.dispose();
    if (options.abortPost) entry.post?.abort();
    entry.reject(error);
    return true;
  }

  #armRelease(ms: number): void {
    const timer = setTimeout(() => this.#releaseDue(), ms);
    // A pending release must never keep a process alive on its own.
    (timer as { unref?: () => void }).unref?.();
    this.#releaseTimer = timer;
  }

  /** Aborts the POSTs that are due, then waits for the next one (none left: no timer). */
  #releaseDue(): void {
    this.#releaseTimer = undefined;
    const now = Date.now();
    const releasing = this.#releasing ?? [];
    for (const entry of releasing) {
      if (entry.releaseAt > now) return this.#armRelease(entry.releaseAt - now);
      this.#releasing?.delete(entry);
      entry.post?.abort();
    }
  }

  /** The caller gave up on a pending request: it fails, its POST ends, the agent is told. */
  #abandon(id: JsonRpcId, error: unknown): void {
    if (this.reject(id, error, { abortPost: true })) this.#owner?.abandoned(id);
  }

  /** Rejects every pending request (the connection is gone) and aborts their POSTs. */
  rejectAll(makeError: (method: string) => unknown): void {
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = undefined;
    const releasing = [...(this.#releasing ?? [])];
    this.#releasing?.clear();
    for (const entry of releasing) entry.post?.abort();
    const entries = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of entries) {
      entry.dispose();
      entry.post?.abort();
      entry.reject(makeError(entry.method));
    }
  }
}
