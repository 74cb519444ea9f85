// ACP v2 turns: a v2 `session/prompt` is answered when the prompt is inserted (`messageId`), and its
// turn ends when the session's `state_update` reports `idle`. Response ordering (response-order.ts)
// hands every delivered `session/update` here right after putting it on `envelopes`, as it settles a
// call right after delivering its response: so a turn ends after every update before its idle was
// delivered, and the prompt's promise settles after that (the ordering promise kept the same way).
// Each v2 update is also checked against its kind's schema here; a malformed one is reported on
// `parseErrors` (the envelope itself stays on `envelopes`).
import { checkV2Update, type V2SessionUpdate } from "./acp-types.js";
import { isNotification, type AcpEnvelope } from "./envelope.js";

/** A v2 `state_update` to `idle`: the one that ended a turn. */
export type IdleUpdate = Extract<V2SessionUpdate, { sessionUpdate: "state_update" }>;

const noop = (): void => undefined;

/**
 * One v2 prompt, from before it is sent until its idle. What the session reports before the
 * acknowledgement is remembered: the agent may echo the user message (with the acknowledged id) and
 * even finish the turn before the acknowledgement is delivered, and an idle that followed the echo
 * of this prompt's message ends this turn. An idle before the echo belongs to earlier work.
 */
export class V2Turn {
  readonly sessionId: string;
  /** Settles once: with the idle that ended the turn, or the error that ended the wait. */
  readonly ended: Promise<IdleUpdate>;
  #resolve: (idle: IdleUpdate) => void = noop;
  #reject: (error: unknown) => void = noop;
  #messageId: string | undefined;
  /** User message ids echoed since the prompt was sent, with the first idle after each (if any yet). */
  readonly #echoed = new Map<string, IdleUpdate | undefined>();
  readonly #owner: V2Turns;
  #done = false;

  constructor(sessionId: string, owner: V2Turns) {
    this.sessionId = sessionId;
    this.#owner = owner;
    this.ended = new Promise<IdleUpdate>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // The wait may end before anyone awaits it (a close while the prompt is still being sent).
    this.ended.catch(noop);
  }

  /**
   * The agent acknowledged the prompt as user message `messageId`: the turn ends at the first idle
   * after that message, already delivered or still to come.
   */
  acknowledged(messageId: string): Promise<IdleUpdate> {
    this.#messageId = messageId;
    const idle = this.#echoed.get(messageId);
    if (idle) this.#end(idle);
    return this.ended;
  }

  /** One of this session's updates, just delivered. */
  observe(update: V2SessionUpdate): void {
    if (update.sessionUpdate === "user_message" || update.sessionUpdate === "user_message_chunk") {
      if (!this.#echoed.has(update.messageId)) this.#echoed.set(update.messageId, undefined);
      return;
    }
    if (update.sessionUpdate !== "state_update" || update.state !== "idle") return;
    if (this.#messageId !== undefined) return this.#end(update);
    for (const [messageId, idle] of this.#echoed) if (!idle) this.#echoed.set(messageId, update);
  }

  /** Ends the wait with `error` (abort, deadline, close, a lost stream); no-op once ended. */
  fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#owner.forget(this);
    this.#reject(error);
  }

  /** The caller is done with the turn (it ended, or its prompt failed): it stops listening. */
  dispose(): void {
    if (this.#done) return;
    this.#done = true;
    this.#owner.forget(this);
  }

  #end(idle: IdleUpdate): void {
    if (this.#done) return;
    this.#done = true;
    this.#owner.forget(this);
    this.#resolve(idle);
  }
}

/** Where a malformed v2 update is reported (the inbound's `parseErrors`, an `AcpParseError`). */
export interface V2TurnsOwner {
  parseError(error: { source: "stream" | "response-body"; raw: string; error: string }): void;
}

/** A v2 connection's prompts waiting for their idle, by session, and the check of every v2 update. */
export class V2Turns {
  readonly #bySession = new Map<string, Set<V2Turn>>();
  readonly #owner: V2TurnsOwner;

  constructor(owner: V2TurnsOwner) {
    this.#owner = owner;
  }

  /** Starts listening for a prompt's turn, before the prompt is sent. */
  open(sessionId: string): V2Turn {
    const turn = new V2Turn(sessionId, this);
    let turns = this.#bySession.get(sessionId);
    if (!turns) this.#bySession.set(sessionId, (turns = new Set()));
    turns.add(turn);
    return turn;
  }

  /** An envelope just delivered on `envelopes` (response-order.ts calls this for each notification). */
  observe(envelope: AcpEnvelope, fromStream: boolean): void {
    if (!isNotification(envelope) || envelope.method !== "session/update") return;
    const params = envelope.params as { sessionId?: unknown; update?: unknown } | undefined;
    const checked = checkV2Update(params?.update);
    if (!checked.ok) {
      // An unknown kind is the protocol's way to grow, not a fault: it is left to readers.
      if (checked.error === "") return;
      const raw = JSON.stringify(envelope);
      this.#owner.parseError({ source: fromStream ? "stream" : "response-body", raw, error: checked.error });
      return;
    }
    const turns = typeof params?.sessionId === "string" ? this.#bySession.get(params.sessionId) : undefined;
    if (turns) for (const turn of [...turns]) turn.observe(checked.update);
  }

  /** Every waiting turn of `sessionId` fails (its stream was lost with what it carried). */
  failSession(sessionId: string, error: (method: string) => unknown): void {
    for (const turn of [...(this.#bySession.get(sessionId) ?? [])]) turn.fail(error("session/prompt"));
  }

  /** Every waiting turn fails (the connection closed, or is being rebuilt). */
  failAll(error: (method: string) => unknown): void {
    for (const turns of [...this.#bySession.values()]) {
      for (const turn of [...turns]) turn.fail(error("session/prompt"));
    }
  }

  /** A turn that ended or was given up. */
  forget(turn: V2Turn): void {
    const turns = this.#bySession.get(turn.sessionId);
    turns?.delete(turn);
    if (turns?.size === 0) this.#bySession.delete(turn.sessionId);
  }
}
