/**
 * Wakes long-polls when a job is queued on a route. Each notice wakes one waiter, the one
 * waiting longest on that route: waking them all would have every waiting agent race for
 * a single job (a thundering herd that delays the winner). A woken waiter that cannot use
 * its notice (it claimed a job of another route, or its client went away) passes it on
 * with `passOn`, so no queued job is left with its agents asleep.
 *
 * `InProcessJobNotifier` below keeps one process's waiters. How a process hears of jobs
 * queued by others is the store's part (`PrintQueueStore`'s implementations): on SQLite a
 * watch of the file's `data_version` (`../store/sqlite/sqlite-job-notifier.ts`), on
 * PostgreSQL a LISTEN session that hears every instance's NOTIFY
 * (`../store/postgres/postgres-job-notifier.ts`); each hands what it hears to an
 * in-process notifier (docs/printing.md).
 */
export interface JobNotifier {
  /**
   * A job that this process queued on this route (created, retried, reprinted, given back)
   * has committed. On PostgreSQL the transaction itself announced it (NOTIFY), so this
   * wakes nobody unless that announcement cannot come back (the LISTEN connection is down).
   */
  jobQueued(companyId: number, route: string): void;
  /** A woken waiter did not use its notice: wake the next waiter of that route here. */
  passOn(companyId: number, route: string): void;
  /**
   * Waits (once) for a job queued on one of `routes` of the company: `listener` is called
   * with that route, at most once. The returned function cancels the wait.
   */
  subscribe(
    companyId: number,
    routes: readonly string[],
    listener: (route: string) => void,
  ): () => void;
  /** Wakes every waiter: jobs may have been queued where this notifier could not see. */
  wakeAll(): void;
  /** Whether anybody waits (the SQLite cross-process watch runs only then). */
  hasWaiters(): boolean;
  /** Ready to deliver notices (PostgreSQL: listening). */
  start(): Promise<void>;
  close(): Promise<void>;
}

interface Waiter {
  keys: string[];
  listener: (route: string) => void;
}

const keyOf = (companyId: number, route: string) => `${companyId}\u0000${route}`;

export class InProcessJobNotifier implements JobNotifier {
  /** Per company and route, its waiters in the order they came (a Set keeps that order). */
  private readonly waiting = new Map<string, Set<Waiter>>();

  jobQueued(companyId: number, route: string): void {
    this.wakeOne(companyId, route);
  }

  passOn(companyId: number, route: string): void {
    this.wakeOne(companyId, route);
  }

  /** Wakes the waiter of the route that came first; whether there was one. */
  wakeOne(companyId: number, route: string): boolean {
    const waiters = this.waiting.get(keyOf(companyId, route));
    const first = waiters?.values().next().value;
    if (!first) return false;
    this.remove(first);
    first.listener(route);
    return true;
  }

  /** Whether a waiter of this process waits for a job of the route. */
  hasWaiter(companyId: number, route: string): boolean {
    return this.waiting.has(keyOf(companyId, route));
  }

  subscribe(
    companyId: number,
    routes: readonly string[],
    listener: (route: string) => void,
  ): () => void {
    const waiter: Waiter = { keys: routes.map((route) => keyOf(companyId, route)), listener };
    for (const key of waiter.keys) {
      let set = this.waiting.get(key);
      if (!set) {
        set = new Set();
        this.waiting.set(key, set);
      }
      set.add(waiter);
    }
    return () => this.remove(waiter);
  }

  wakeAll(): void {
    const everyone = new Set<Waiter>();
    for (const set of this.waiting.values()) for (const waiter of set) everyone.add(waiter);
    for (const waiter of everyone) {
      this.remove(waiter);
      waiter.listener(waiter.keys[0]!.split('\u0000')[1]!);
    }
  }

  hasWaiters(): boolean {
    return this.waiting.size > 0;
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.waiting.clear();
  }

  private remove(waiter: Waiter): void {
    for (const key of waiter.keys) {
      const set = this.waiting.get(key);
      if (!set) continue;
      set.delete(waiter);
      if (set.size === 0) this.waiting.delete(key);
    }
  }
}
