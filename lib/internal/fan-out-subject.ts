// A Subject for the hot streams many consumers subscribe to (envelopes$): the same semantics as
// rxjs's, with a cheaper delivery loop.
import { ObjectUnsubscribedError, Subject, config, type Observer } from "rxjs";

/** The Subject fields `next` reads: public at run time, private or deprecated in rxjs's types. */
interface SubjectInternals<T> {
  currentObservers: Observer<T>[] | null;
  observers: Observer<T>[];
}

/**
 * A `Subject` whose `next` walks its observers by index. rxjs's Node build is compiled to ES5,
 * where `Subject.next`'s `for…of` allocates an iterator and one result object per observer per
 * value: with 100 subscribers on `envelopes$` that allocation was most of what the 99 extra
 * subscribers cost. Everything else is rxjs's own: the same snapshot of observers (rxjs drops it
 * whenever one subscribes or unsubscribes, so an observer added during delivery waits for the
 * next value), the same closed and stopped checks, and rxjs's own `next` under its deprecated
 * synchronous error handling, which needs the error context only rxjs can set up.
 */
export class FanOutSubject<T> extends Subject<T> {
  override next(value: T): void {
    if (config.useDeprecatedSynchronousErrorHandling) return super.next(value);
    if (this.closed) throw new ObjectUnsubscribedError();
    if (this.isStopped) return;
    const self = this as unknown as SubjectInternals<T>;
    const observers = (self.currentObservers ??= Array.from(self.observers));
    for (let i = 0; i < observers.length; i++) (observers[i] as Observer<T>).next(value);
  }
}
