// Type guards and RxJS operators that filter session events and narrow their type in one step, so
// that a subscriber does not write the condition once to filter and again for the compiler.
// They accept the events of `events$`, `session(id).events$` and `prompt$` alike.
import { filter, type Observable } from "rxjs";
import type { SandboxEvent } from "./events.js";
import type { SessionUpdate, SessionUpdateKind } from "./events.js";
import type { PromptEvent } from "../types.js";

/** Anything with a `kind`: a {@link SandboxEvent}, a {@link PromptEvent}. */
type Kinded = { kind: string };

/** The event of the given kind(s), e.g. `EventOfKind<"session-ended">`. */
export type EventOfKind<K extends PromptEvent["kind"]> = Extract<PromptEvent, { kind: K }>;

/** An `update` event carrying a session update of the given kind(s) (any kind by default). */
export type UpdateEvent<K extends SessionUpdateKind = SessionUpdateKind> = Omit<
  Extract<SandboxEvent, { kind: "update" }>,
  "update"
> & { update: Extract<SessionUpdate, { sessionUpdate: K }> };

/**
 * Whether `event` is of one of `kinds`; narrows it to that kind:
 * `if (isEvent(event, "session-ended")) console.log(event.reason)`.
 */
export function isEvent<E extends Kinded, K extends E["kind"]>(
  event: E,
  ...kinds: K[]
): event is Extract<E, { kind: K }> {
  return (kinds as string[]).includes(event.kind);
}

/**
 * Whether `event` is a session update of one of `kinds` (any update when none is given); narrows
 * it, so that `event.update` has that kind's fields:
 * `if (isUpdate(event, "agent_message_chunk")) write(event.update.content.text)`.
 */
export function isUpdate<K extends SessionUpdateKind = SessionUpdateKind>(
  event: Kinded,
  ...kinds: K[]
): event is UpdateEvent<K> {
  if (event.kind !== "update") return false;
  const update = (event as Extract<SandboxEvent, { kind: "update" }>).update;
  return kinds.length === 0 || (kinds as string[]).includes(update.sessionUpdate);
}

/**
 * Only the events of `kinds`, typed as such: `events$.pipe(ofKind("session-ended"))` is an
 * `Observable` of session-ended events.
 */
export function ofKind<K extends PromptEvent["kind"]>(
  ...kinds: K[]
): <E extends Kinded>(source: Observable<E>) => Observable<Extract<E, { kind: K }>> {
  const wanted: readonly string[] = kinds;
  return <E extends Kinded>(source: Observable<E>) =>
    source.pipe(filter((event): event is Extract<E, { kind: K }> => wanted.includes(event.kind)));
}

/**
 * Only the session updates of `kinds` (every update when none is given), typed as such:
 * `events$.pipe(ofUpdate("agent_message_chunk"))` is an `Observable<UpdateEvent<"agent_message_chunk">>`,
 * whose `update.content` needs no further check.
 */
export function ofUpdate<K extends SessionUpdateKind = SessionUpdateKind>(
  ...kinds: K[]
): (source: Observable<Kinded>) => Observable<UpdateEvent<K>> {
  return (source) => source.pipe(filter((event): event is UpdateEvent<K> => isUpdate(event, ...kinds)));
}
