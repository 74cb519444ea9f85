import { StoreError } from "./store-error.js";

/** A value given to a store, or read back from one, does not match its schema. */
export class InvalidRecordError extends StoreError {
  override name = "InvalidRecordError";
  readonly issues: string;

  constructor(what: string, issues: string) {
    super(`invalid ${what}: ${issues}`);
    this.issues = issues;
  }
}
