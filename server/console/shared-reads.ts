/**
 * Reads that requests arriving together share: at every live change each open page reads
 * the same things again (20 tabs of one company: 20 reads of the same jobs page and overview
 * at once). A request never takes an answer read before it arrived, which could predate the
 * change it was sent for: while a read of its key runs, it waits for the next one, which
 * every request arriving meanwhile shares. So at most one read runs and one waits, per key.
 *
 * A key names the company and everything the answer depends on: an answer is never shared
 * across companies.
 */
export class SharedReads {
  readonly #running = new Map<string, Promise<unknown>>();
  readonly #next = new Map<string, Promise<unknown>>();

  read<T>(key: string, read: () => Promise<T>): Promise<T> {
    const waiting = this.#next.get(key);
    if (waiting) return waiting as Promise<T>;
    const running = this.#running.get(key);
    if (!running) return this.#start(key, read);
    const next = running
      .catch(() => undefined)
      .then(() => {
        this.#next.delete(key);
        return this.#start(key, read);
      });
    this.#next.set(key, next);
    return next;
  }

  #start<T>(key: string, read: () => Promise<T>): Promise<T> {
    const reading = read().finally(() => {
      if (this.#running.get(key) === reading) this.#running.delete(key);
    });
    this.#running.set(key, reading);
    return reading;
  }
}
