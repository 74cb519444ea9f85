import * as v from "valibot";
import { StoreError } from "../errors.js";
import { PERSISTENCE_DEFAULTS } from "../defaults.js";
import type { SessionEvent } from "./schemas.js";
import type { ListPage } from "./store.js";

/**
 * Page cursors are keyset positions (the last item's sort key), not offsets: a page boundary stays
 * correct while events are inserted or old ones evicted. They are base64url JSON so callers treat
 * them as opaque, and they name the listing they belong to so one cannot be replayed on another.
 */

const EventsCursor = v.object({ k: v.literal("e"), s: v.string(), i: v.number() });
const SessionsCursor = v.object({ k: v.literal("s"), c: v.number(), id: v.string() });

export const DEFAULT_PAGE = PERSISTENCE_DEFAULTS.pageLimit;
export const MAX_PAGE = 1000;

/** The page size for a request: default 100, at least 1, at most 1000. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE;
  return Math.min(MAX_PAGE, Math.max(1, Math.floor(limit)));
}

export function eventsCursor(sessionId: string, lastIndex: number): string {
  return encode({ k: "e", s: sessionId, i: lastIndex });
}

/**
 * A page of events from rows read with one beyond `limit` (that one says whether more follow):
 * the stores read their rows each their own way and page them alike.
 */
export function eventsPage<R>(
  rows: readonly R[],
  limit: number,
  sessionId: string,
  toEvent: (row: R) => SessionEvent,
): ListPage<SessionEvent> {
  const items = rows.slice(0, limit).map(toEvent);
  const last = items.at(-1);
  return rows.length > limit && last ? { items, nextCursor: eventsCursor(sessionId, last.eventIndex) } : { items };
}

/** The `eventIndex` after which the page starts (0 without a cursor). */
export function readEventsCursor(cursor: string | undefined, sessionId: string): number {
  if (cursor === undefined || cursor === "") return 0;
  const parsed = v.safeParse(EventsCursor, decode(cursor));
  if (!parsed.success || parsed.output.s !== sessionId) throw StoreError.invalidCursor();
  return parsed.output.i;
}

export function sessionsCursor(createdAt: number, id: string): string {
  return encode({ k: "s", c: createdAt, id });
}

/** The (createdAt, id) after which the page starts, or undefined for the first page. */
export function readSessionsCursor(cursor: string | undefined): { createdAt: number; id: string } | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  const parsed = v.safeParse(SessionsCursor, decode(cursor));
  if (!parsed.success) throw StoreError.invalidCursor();
  return { createdAt: parsed.output.c, id: parsed.output.id };
}

/** Sort order of sessions: createdAt, then id. */
export function sessionAfter(a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): boolean {
  return a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);
}

function encode(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decode(cursor: string): unknown {
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw StoreError.invalidCursor();
  }
}
