import { StoreError } from "./store-error.js";

/** The store fell so far behind that the recorder's queue was full: these events were not stored. */
export class StoreBacklogError extends StoreError {
  override name = "StoreBacklogError";
  readonly sessionId: string;
  readonly eventId: string;

  constructor(sessionId: string, eventId: string, limit: number) {
    super(`recorder queue full (${limit} events): event ${eventId} of session ${sessionId} was not stored`);
    this.sessionId = sessionId;
    this.eventId = eventId;
  }
}
