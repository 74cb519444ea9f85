// ACP v2 turns: a v2 `session/prompt` is answered when the prompt is inserted (`messageId`), and its
// turn ends when the session's `state_update` reports `idle` after having been at work. Response
// ordering (response-order.ts) hands every delivered `session/update` here right after putting it on
// `envelopes`, as it settles a call right after delivering its response: so a turn ends after every
// update before its idle was delivered, and the prompt's promise settles after that (the ordering
// promise kept the same way). Each v2 update is also checked against its kind's schema here; a
// malformed one is reported on `parseErrors` (the envelope itself stays on `envelopes`). The turns
// read the state and the echo structurally, before that check: an idle always counts.
import { checkV2Update } from "./acp-types.js";
import { isNotification, type AcpEnvelope } from "./envelope.js";

/** The idle that ended a turn, as the prompt's result reads it. */
export interface TurnEnd {
  /** Absent when the agent gave none (the prompt then reports `UNREPORTED_STOP_REASON`). */
  readonly stopReason?: string;
  readonly error?: { code: number; message: string; [key: string]: unknown };
  readonly _meta?: Record<string, unknown>;
}

/** What a turn reads of one update: the echo of a user message, or a state. */
type TurnFact = { echo: string } | { state: string; end: TurnEnd };

const noop = (): void => undefined;
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The fields a turn needs, read structurally: a malformed field elsewhere in the update (a `_meta`
 * of the wrong type, a bad content item) never hides an idle, and a malformed stop reason or error
 * reads as none given (the schema's `x-deserialize-default-on-error`).
 */
function turnFact(update: unknown): TurnFact | undefined {
  if (!isRecord(update)) return undefined;
  const kind = update["sessionUpdate"];
  if (kind === "user_message" || kind === "user_message_chunk") {
    return typeof update["messageId"] === "string" ? { echo: update["messageId"] } : undefined;
  }
  if (kind !== "state_update" || typeof update["state"] !== "string") return undefined;
  const { stopReason, error, _meta } = update;
  const validError =
    isRecord(error) && typeof error["code"] === "number" && typeof error["message"] === "string"
      ? (error as TurnEnd["error"])
      : undefined;
  return {
    state: update["state"],
    end: {
      ...(typeof stopReason === "string" ? { stopReason } : {}),
      ...(validError ? { error: validError } : {}),
      ...(isRecord(_meta) ? { _meta } : {}),
    },
  };
}

/** `running` and `requires_action`: the session is at work (a turn's idle may follow). */
const atWork = (state: string): boolean => state !== "idle";

/**
 * One v2 prompt, from before it is sent until its idle. Only an idle that follows work counts: a
 * `running` or `requires_action` seen since the prompt was sent (or the session already at work when
 * it was): the draft has an agent report `running` (or `requires_action`) when foreground work starts
 * and `idle` when it ends, while a repeated or resume snapshot of idle must not count as a completion.
 * What the session reports before the acknowledgement is remembered: the agent may echo the user
 * message (with the acknowledged id) and even finish the turn before the acknowledgement is
 * delivered; such an idle ends this turn only when it followed the echo of this prompt's message.
 */
export class V2Turn {
  readonly sessionId: string;
  /** Settles once: with the idle that ended the turn, or the error that ended the wait. */
  readonly ended: Promise<TurnEnd>;
  #resolve: (end: TurnEnd) => void = noop;
  #reject: (error: unknown) => void = noop;
  #messageId: string | undefined;
  /** User message ids echoed since the prompt was sent, with the first idle after work after each. */
  readonly #echoed = new Map<string, TurnEnd | undefined>();
  /** The session ended before the acknowledgement (closed or deleted): how the turn ends once acknowledged. */
  #endedEarly: TurnEnd | undefined;
  /** The session was at work since the prompt was sent, and no idle has followed yet. */
  #atWork: boolean;
  readonly #owner: V2Turns;
  #done = false;

  constructor(sessionId: string, owner: V2Turns, atWorkAlready: boolean) {
    this.sessionId = sessionId;
    this.#owner = owner;
    this.#atWork = atWorkAlready;
    this.ended = new Promise<TurnEnd>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // The wait may end before anyone awaits it (a close while the prompt is still being sent).
    this.ended.catch(noop);
  }

  /**
   * The agent acknowledged the prompt as user message `messageId`: the turn ends at the first idle
   * after work that followed that message, already delivered or still to come.
   */
  acknowledged(messageId: string): Promise<TurnEnd> {
    this.#messageId = messageId;
    const idle = this.#endedEarly ?? this.#echoed.get(messageId);
    if (idle) this.#end(idle);
    return this.ended;
  }

  /** One of this session's updates, just delivered. */
  observe(fact: TurnFact): void {
    if ("echo" in fact) {
      if (!this.#echoed.has(fact.echo)) this.#echoed.set(fact.echo, undefined);
      return;
    }
    if (atWork(fact.state)) {
      this.#atWork = true;
      return;
    }
    if (!this.#atWork) return;
    this.#atWork = false;
    if (this.#messageId !== undefined) return this.#end(fact.end);
    for (const [messageId, idle] of this.#echoed) if (!idle) this.#echoed.set(messageId, fact.end);
  }

  /** The session was closed or deleted: the turn ends with `end` (at once, or when acknowledged). */
  sessionEnded(end: TurnEnd): void {
    if (this.#messageId !== undefined) return this.#end(end);
    this.#endedEarly = end;
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

  #end(end: TurnEnd): void {
    if (this.#done) return;
    this.#done = true;
    this.#owner.forget(this);
    this.#resolve(end);
  }
}

/** Where a malformed v2 update is reported (the inbound's `parseErrors`, an `AcpParseError`). */
export interface V2TurnsOwner {
  parseError(error: { source: "stream" | "response-body"; raw: string; error: string }): void;
}

/**
 * A v2 connection's prompts waiting for their idle, by session, the sessions last seen at work, and
 * the check of every v2 update.
 */
export class V2Turns {
  readonly #bySession = new Map<string, Set<V2Turn>>();
  /** Sessions whose last state was `running` or `requires_action` (bounded by the sessions at work). */
  readonly #atWork = new Set<string>();
  readonly #owner: V2TurnsOwner;

  constructor(owner: V2TurnsOwner) {
    this.#owner = owner;
  }

  /** Starts listening for a prompt's turn, before the prompt is sent. */
  open(sessionId: string): V2Turn {
    const turn = new V2Turn(sessionId, this, this.#atWork.has(sessionId));
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
    // An unknown kind is the protocol's way to grow, not a fault: it is left to readers.
    if (!checked.ok && checked.error !== "") {
      const raw = JSON.stringify(envelope);
      this.#owner.parseError({ source: fromStream ? "stream" : "response-body", raw, error: checked.error });
    }
    const sessionId = params?.sessionId;
    const fact = typeof sessionId === "string" ? turnFact(params?.update) : undefined;
    if (!fact || typeof sessionId !== "string") return;
    if ("state" in fact) {
      if (atWork(fact.state)) this.#atWork.add(sessionId);
      else this.#atWork.delete(sessionId);
    }
    const turns = this.#bySession.get(sessionId);
    if (turns) for (const turn of [...turns]) turn.observe(fact);
  }

  /**
   * `sessionId` was closed or deleted: the agent sends nothing more for it, so each waiting turn ends
   * with `end` (once acknowledged, for one whose acknowledgement is still to come).
   */
  endSession(sessionId: string, end: TurnEnd): void {
    this.#atWork.delete(sessionId);
    for (const turn of [...(this.#bySession.get(sessionId) ?? [])]) turn.sessionEnded(end);
  }

  /** Every waiting turn of `sessionId` fails (its stream was lost with what it carried). */
  failSession(sessionId: string, error: (method: string) => unknown): void {
    for (const turn of [...(this.#bySession.get(sessionId) ?? [])]) turn.fail(error("session/prompt"));
  }

  /** Every waiting turn fails (the connection closed, or is being rebuilt). */
  failAll(error: (method: string) => unknown): void {
    this.#atWork.clear();
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
