/**
 * A value now, or a promise of it. The read path answers from memory and from SQLite's
 * synchronous driver: where every step has its value at once, the request is answered in
 * the turn it came in, with no promise made and no microtask queued (docs/http.md, "One
 * turn for a read").
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next(value)`: at once when `value` is no promise, once it settles when it is. A throw
 * of `next` on the first path is a throw, on the second a rejection: callers handle both
 * (the pipeline's `try` and `catch` in handle-request.ts).
 */
export function andThen<T, U>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<U>,
): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
