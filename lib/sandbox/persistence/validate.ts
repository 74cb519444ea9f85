import * as v from "valibot";
import { StoreError } from "../errors.js";
import { NewSessionEventSchema, SessionEventSchema, SessionRecordSchema } from "./schemas.js";
import type { NewSessionEvent, SessionEvent, SessionRecord } from "./schemas.js";

/** Validation at the store boundary, shared by every driver (inputs on write, rows on read). */

function check<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const issues = result.issues
    .slice(0, 3)
    .map((issue) => `${issue.path?.map((item) => String(item.key)).join(".") ?? ""}: ${issue.message}`)
    .join("; ");
  throw StoreError.invalidRecord(what, issues);
}

export const checkSession = (value: unknown): SessionRecord => check(SessionRecordSchema, value, "session record");
export const checkNewEvent = (value: unknown): NewSessionEvent => check(NewSessionEventSchema, value, "session event");
export const checkEvent = (value: unknown): SessionEvent => check(SessionEventSchema, value, "stored session event");

/** Rejects an event whose `sessionId` disagrees with the session it is inserted under. */
export function checkInsert(sessionId: string, event: unknown): NewSessionEvent {
  const checked = checkNewEvent(event);
  if (checked.sessionId !== sessionId) {
    throw StoreError.invalidRecord("session event", `sessionId ${checked.sessionId} inserted under ${sessionId}`);
  }
  return checked;
}

/** A deep copy, so callers never share mutable state with a store (structuredClone is in Node 17+ and browsers). */
export const copy = <T>(value: T): T => structuredClone(value);
