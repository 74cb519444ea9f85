import { StoreError } from "./store-error.js";

/** The recorder could not store an event; the event was still delivered to subscribers. */
export class StoreWriteError extends StoreError {
  override name = "StoreWriteError";
  readonly sessionId: string;
  readonly eventId: string;

  constructor(sessionId: string, eventId: string, cause: unknown) {
    super(`could not store event ${eventId} of session ${sessionId}`, { cause });
    this.sessionId = sessionId;
    this.eventId = eventId;
  }
}
