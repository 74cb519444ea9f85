import { StoreError } from "./store-error.js";

/** A page cursor that this store did not issue (or that belongs to another listing). */
export class InvalidCursorError extends StoreError {
  override name = "InvalidCursorError";

  constructor() {
    super("invalid page cursor: pass the nextCursor of a previous page of the same listing");
  }
}
