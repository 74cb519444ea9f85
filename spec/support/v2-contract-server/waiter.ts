/** A one-shot slot for an agent response, with the §1.7 request timeout. */
import type { JsonObject } from "./json.js";
import type { HttpProblem } from "./problem.js";

export class Waiter {
  readonly promise: Promise<JsonObject>;
  private settled = false;
  private resolvePromise: (value: JsonObject) => void = () => undefined;
  private rejectPromise: (problem: HttpProblem) => void = () => undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(timeoutMs: number, onTimeout: () => HttpProblem) {
    this.promise = new Promise<JsonObject>((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
    this.timer = setTimeout(() => this.fail(onTimeout()), timeoutMs);
    this.timer.unref();
  }

  /** A settled waiter swallows later answers: §1.2 "after a 504 the late response is silently dropped". */
  resolve(value: JsonObject): void {
    if (this.finish()) this.resolvePromise(value);
  }

  fail(problem: HttpProblem): void {
    if (this.finish()) this.rejectPromise(problem);
  }

  private finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }
}
