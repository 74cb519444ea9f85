import { StoreError } from "./store-error.js";

/**
 * This worker no longer holds the session's lease: it expired before it was renewed, or another
 * worker has claimed the session since (a newer generation). The write or call was refused; the
 * session is another worker's now.
 */
export class LeaseLostError extends StoreError {
  override name = "LeaseLostError";
  readonly sessionId: string;
  /** The generation this worker held. */
  readonly generation: number;

  constructor(sessionId: string, generation: number, detail = "another worker holds it now") {
    super(`lease on session ${sessionId} (generation ${generation}) lost: ${detail}`);
    this.sessionId = sessionId;
    this.generation = generation;
  }
}
