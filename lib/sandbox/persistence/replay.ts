import { replayLines, type ReplayLine, type ReplaySource } from "./replay-lines.js";
import type { SessionStore } from "./store.js";
import { PERSISTENCE_DEFAULTS } from "../defaults.js";

export type { ReplaySource } from "./replay-lines.js";

export interface ReplayOptions {
  /** Upper bound of the whole text, notice included (default 12000, as upstream). */
  maxChars?: number;
  /** Upper bound of the events read from the store (default 2000). */
  maxEvents?: number;
}

/** A bounded replay of a session's history, and what was left out of it. */
export interface ReplayText {
  text: string;
  /** Events represented in `text`. */
  includedEvents: number;
  /** Older events left out (by either bound); 0 when the whole history fits. */
  omittedEvents: number;
  /** The `eventIndex` range that was left out, when something was. */
  omitted?: { firstIndex: number; lastIndex: number; firstAt: number; lastAt: number };
}

const HEADER =
  "Earlier in this session (replayed from the client's store because the agent could not reload it; oldest first):\n";
const FOOTER = "\nEnd of the replayed history. The user's new message follows.";
const NOTICE_ROOM = 200;

/**
 * Builds the text sent ahead of the next prompt when a session has to be recreated on an agent that
 * cannot `session/load` it. Unlike upstream (which keeps the oldest events and cuts the newest when
 * the text overflows), the newest events are kept: lines are taken from the end of the history
 * until the bound is reached, and a first line says how many older events were left out and which.
 * Chunks of one message are merged into one line, so the bound holds far more conversation than
 * raw envelopes would. Returns null for an empty history.
 */
export function buildReplayText(events: readonly ReplaySource[], options: ReplayOptions = {}): ReplayText | null {
  return compose([...events].sort((a, b) => a.eventIndex - b.eventIndex), options, undefined);
}

/** Events older than the ones given to `compose`, already left out by the `maxEvents` bound. */
interface Prior {
  count: number;
  first: ReplaySource;
  last: ReplaySource;
}

function compose(sorted: ReplaySource[], options: ReplayOptions, prior: Prior | undefined): ReplayText | null {
  const least = HEADER.length + FOOTER.length + NOTICE_ROOM + 1;
  const maxChars = Math.max(least, options.maxChars ?? PERSISTENCE_DEFAULTS.replayMaxChars);
  const all = replayLines(sorted);
  if (all.length === 0) return null;
  let room = maxChars - HEADER.length - FOOTER.length - NOTICE_ROOM;
  const kept: ReplayLine[] = [];
  for (let i = all.length - 1; i >= 0; i--) {
    const line = all[i] as ReplayLine;
    if (line.text.length + 1 <= room) {
      kept.unshift(line);
      room -= line.text.length + 1;
      continue;
    }
    // The newest line alone is too long: keep its end, which is what was said last.
    if (kept.length === 0) kept.unshift({ ...line, text: `…${line.text.slice(line.text.length - (room - 2))}` });
    break;
  }
  const firstKept = (kept[0] as ReplayLine).first.eventIndex;
  const left = sorted.filter((event) => event.eventIndex < firstKept);
  const first = prior?.first ?? left[0];
  const last = left.at(-1) ?? prior?.last;
  const omittedEvents = left.length + (prior?.count ?? 0);
  const omitted = first && last
    ? { firstIndex: first.eventIndex, lastIndex: last.eventIndex, firstAt: first.createdAt, lastAt: last.createdAt }
    : undefined;
  const notice = omitted
    ? `[${omittedEvents} older events omitted to fit the replay bound: #${omitted.firstIndex}-#${omitted.lastIndex}, ` +
      `${new Date(omitted.firstAt).toISOString()} to ${new Date(omitted.lastAt).toISOString()}]\n`
    : "";
  const text = `${HEADER}${notice}${kept.map((line) => line.text).join("\n")}${FOOTER}`;
  return { text, includedEvents: sorted.length - left.length, omittedEvents, ...(omitted ? { omitted } : {}) };
}

/**
 * Reads a session's most recent events from a store (at most `maxEvents`) and builds the replay;
 * `omittedEvents` then also counts the events older than what was read.
 */
export async function replayFromStore(
  store: SessionStore,
  sessionId: string,
  options: ReplayOptions = {},
): Promise<ReplayText | null> {
  const maxEvents = Math.max(1, options.maxEvents ?? PERSISTENCE_DEFAULTS.replayMaxEvents);
  let tail: ReplaySource[] = [];
  let prior: Prior | undefined;
  let cursor: string | undefined;
  do {
    const page = await store.listEvents({ sessionId, limit: 1000, ...(cursor ? { cursor } : {}) });
    tail.push(...page.items);
    if (tail.length > maxEvents) {
      const gone = tail.slice(0, tail.length - maxEvents);
      const first = prior?.first ?? (gone[0] as ReplaySource);
      prior = { count: (prior?.count ?? 0) + gone.length, first, last: gone.at(-1) as ReplaySource };
      tail = tail.slice(-maxEvents);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return compose(tail, options, prior);
}
