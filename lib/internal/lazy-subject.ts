// A hot stream that is made when first read: the rarely watched streams of a connection (gaps,
// recoveries, reconnect attempts, parse errors) cost an idle connection nothing until then.
import { Subject, type Observable } from "rxjs";

/**
 * A `Subject` made on first access of `observable`. Before that nobody can have subscribed, so
 * the values it drops are the ones a `Subject` without subscribers drops too; once completed, a
 * stream read for the first time afterwards is a completed one, as the `Subject` would have been.
 */
export class LazySubject<T> {
  #subject: Subject<T> | undefined;
  #observable: Observable<T> | undefined;
  #completed = false;

  /** The stream, without the `Subject`'s `next` (as `asObservable()`); the same object each time. */
  get observable(): Observable<T> {
    if (!this.#observable) {
      const subject = (this.#subject = new Subject<T>());
      if (this.#completed) subject.complete();
      this.#observable = subject.asObservable();
    }
    return this.#observable;
  }

  next(value: T): void {
    this.#subject?.next(value);
  }

  complete(): void {
    this.#completed = true;
    this.#subject?.complete();
  }
}
